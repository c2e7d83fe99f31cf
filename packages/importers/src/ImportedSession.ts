/**
 * What every importer produces: one or more branchlog sessions (a header's identity, the entries
 * in an order where every parent comes before its children, the leaf), with what was skipped
 * (a line that is not a record, a record of a type the importer does not know) and warnings
 * (records left out on purpose, counted; parents outside the file). Pure data: no I/O.
 *
 * @since 0.1.0
 */
import type { Entry } from "@branchlog/session-core"

/** The source formats. */
export type Format = "claude-code" | "codex" | "openclaw"

/** The formats, in the order detection tries them. */
export const formats: ReadonlyArray<Format> = ["claude-code", "codex", "openclaw"]

/** A source record that was not imported, and why (`line` for JSONL sources, `seq` for OpenClaw's events). */
export interface Skipped {
  readonly line?: number
  readonly offset?: number
  readonly seq?: number
  readonly reason: string
}

/** Where an imported session came from: stored in its first entry (`custom`, {@link PROVENANCE_TYPE}). */
export interface Provenance {
  readonly format: Format
  /** The version of the tool that wrote the source, when the source says it. */
  readonly formatVersion?: string
  /** The source file (or database) as given to the importer. */
  readonly source: string
  /** The session's id in the source. */
  readonly sourceSessionId: string
}

/** The `customType` of the provenance entry every imported session starts with. */
export const PROVENANCE_TYPE = "branchlog.import"

/** One session to write. */
export interface ImportedSession {
  readonly provenance: Provenance
  /** The branchlog session id (derived from the source's). */
  readonly sessionId: string
  readonly cwd: string
  /** The header's timestamp: the source session's start. */
  readonly timestamp: string
  /** The `sessionId` of the session this one belongs to (a subagent's parent), if any. */
  readonly parentSessionId?: string
  /** Entries, every parent before its children; the first is the provenance entry. */
  readonly entries: ReadonlyArray<Entry.Entry>
  /** Where the conversation continues (`null`: nothing). */
  readonly leafId: string | null
  readonly skipped: ReadonlyArray<Skipped>
  readonly warnings: ReadonlyArray<string>
}

/** The provenance of an imported session's entries, if its first entry is one. */
export const provenanceOf = (entries: ReadonlyArray<Entry.Entry>): Provenance | undefined => {
  for (const entry of entries) {
    if (entry.type === "custom" && entry.customType === PROVENANCE_TYPE) return entry.data as Provenance
  }
  return undefined
}
