/**
 * `fsck` and `repair` as a library: check a session for what is wrong with it (typed findings,
 * each with the line and byte offset it applies to) and mend what can be mended without losing a
 * byte (a backup of the original first, through the store's one destructive
 * rewrite).
 *
 * This is the pure half, for every store: it takes rows and gives findings ({@link diagnose}), a
 * plan by line number ({@link plan}) and the repaired rows ({@link apply}): no I/O, no clock, no
 * randomness, and no use of byte offsets beyond reporting them, so a store of rows runs it as the
 * file backend does. The file half (`check`, `scan`, `repair` of a JSONL file under its lock,
 * streaming its lines through as bytes) is `@branchlog/store-jsonl`'s `Repair`, which re-exports
 * this one.
 *
 * What repair does: corrupt lines, a torn tail and extra headers move to a sidecar
 * (`<file>.removed-<time>.txt`, byte for byte), blank lines are dropped, a late header moves to
 * the top, a missing one is written, a missing final newline is added, a byte-order mark is
 * removed; every other row is kept as its bytes. Orphans, cycles, duplicate ids and the other
 * findings are reported, not changed (no entry is touched).
 *
 * @since 0.1.0
 */
import type { Diagnostics, Entry, Line, Migration, SessionState } from "@branchlog/session-core"
import * as Diagnoses from "./internal/repair/diagnosis.js"
import * as Plans from "./internal/repair/plan.js"

/** A finding session-core's `Diagnostics` does not make: about how the rows end, their size or their version. */
export type StoreFinding =
  /** The last line is corrupt and no newline ends it: a write torn by a crash. */
  | { readonly _tag: "TornTail"; readonly reason: string; readonly line: number; readonly offset: number }
  /** The last line parses but no newline ends it. */
  | { readonly _tag: "NoFinalNewline"; readonly line: number; readonly offset: number }
  /** A line over the line ceiling: kept byte for byte, not read. */
  | {
    readonly _tag: "OversizedLine"
    readonly line: number
    readonly offset: number
    readonly byteLength: number
    readonly id?: string
  }
  /** The header declares an older version (`migrate` brings it to the current one). */
  | { readonly _tag: "OldVersion"; readonly version: number }
  /**
   * A line holds bytes that are not UTF-8 (`at`: the file offset of the first invalid sequence):
   * read as U+FFFD, which is what a copy to another store or a rewrite of the rows as text writes
   * (a check of a file's bytes; `repair` copies lines as bytes and keeps them).
   */
  | { readonly _tag: "InvalidUtf8"; readonly line: number; readonly offset: number; readonly at: number }

/**
 * One finding of a check: session-core's diagnostics (a corrupt line that is the torn tail is a
 * `TornTail` instead of a `CorruptLine`), then how the rows end, oversized lines, an old version.
 */
export type Finding = Diagnostics.Problem | StoreFinding

/** The `_tag` of a finding (what `fsck --json` prints as `kind`). */
export type Kind = Finding["_tag"]

/** What a check reads: every line in order (blank lines included) and whether a newline ends the last. */
export interface Rows {
  readonly lines: ReadonlyArray<Line.ParsedLine>
  /** `false` when the last line has no `\n` after it (a file's torn tail); a store of rows passes `true`. */
  readonly terminated: boolean
}

/**
 * What a streamed check found ({@link Diagnosis} is one): the findings, and of the rows what a
 * repair plans with. `lines` holds every line for a whole check, and only the blank lines, the
 * corrupt rows and the session headers for a streamed one, whose `state` is only the header.
 */
export interface Scanned {
  readonly lines: ReadonlyArray<Line.ParsedLine>
  readonly terminated: boolean
  /** Of the state, the header (a whole check gives the whole state). */
  readonly state: Pick<SessionState.SessionState, "header">
  readonly version: number | undefined
  readonly findings: ReadonlyArray<Finding>
}

/** What a check found, with what it found it in. */
export interface Diagnosis extends Rows, Scanned {
  /** The state of the rows as they are (older versions migrated in memory, never written: for the tree checks). */
  readonly state: SessionState.SessionState
  /** The version the header declares (absent ⇒ 1), `undefined` without a header. */
  readonly version: number | undefined
  /** Every finding, in the order `fsck` prints them. */
  readonly findings: ReadonlyArray<Finding>
}

/** Options of {@link diagnose}: where the ids of an in-memory migration come from (never written). */
export interface DiagnoseOptions {
  readonly mintId?: Migration.MintId
}

/** What becomes of the header: it stays the first row, a later one moves to the top, or a new one is written. */
export type HeaderFix =
  | { readonly _tag: "InPlace" }
  | { readonly _tag: "Moved"; readonly line: number; readonly text: string }
  | { readonly _tag: "Created"; readonly header: Entry.SessionHeader; readonly text: string }

/** What a repair does, by line number; rows it does not name are kept as they are. */
export interface Plan {
  /** The findings it fixes (empty: nothing to repair, and nothing is written). */
  readonly fixes: ReadonlyArray<Finding>
  /** The header written first. */
  readonly header: HeaderFix
  /** Corrupt lines and extra headers: moved out of the session, kept aside byte for byte. */
  readonly moved: ReadonlySet<number>
  /** Blank lines: dropped. */
  readonly dropped: ReadonlySet<number>
}

/** What becomes of one row: kept, moved aside, or left out (a blank line, or the header written first). */
export type Disposition = "keep" | "move" | "drop"

/** Options of {@link plan}: the header to write when the rows have none (called only then). */
export interface PlanOptions {
  readonly header: () => Entry.SessionHeader
}

/** The repaired rows, and the rows moved aside: what a store of rows writes (positions are those read). */
export interface Applied {
  readonly rows: ReadonlyArray<Line.Row>
  readonly removed: ReadonlyArray<Line.Row>
}

/** Every finding of the rows, in `fsck`'s order, with the state they fold into (pure). */
export const diagnose = Diagnoses.diagnose

/** The severity of a finding. */
export const severity = Diagnoses.severity

/** One line that says what a finding is (what `fsck` prints). */
export const describe = Diagnoses.describe

/** Where a finding applies (line and byte offset), or `undefined` for the whole session. */
export const position = Diagnoses.position

/** The kinds {@link repair} fixes. */
export const repairableKinds = Diagnoses.repairableKinds

/** `true` for a finding {@link repair} fixes. */
export const isRepairable = Diagnoses.isRepairable

/** The plan of a repair of diagnosed rows (pure). */
export const plan = Plans.plan

/** What a plan does with the row on a line. */
export const disposition = Plans.disposition

/** The store findings of a stream of rows read one by one: a torn tail, a missing final newline, oversized lines, an old version. */
export const storeFindings = Diagnoses.storeFindings

/** The `OversizedLine` finding of a row that stands for a line over the line ceiling, else `undefined`. */
export const oversizedFinding = Diagnoses.oversizedFinding

/** A plan applied to rows: what a store of rows writes, and what it keeps aside (pure). */
export const apply = Plans.apply
