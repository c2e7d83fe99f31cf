/**
 * A raw read of a session file for `fsck` and `repair`: every line parsed as it is on disk, with
 * nothing recovered or migrated behind the caller's back (the store's open repairs in memory what
 * these commands must report).
 */
import type { Line } from "@branchlog/session-core"
import { Migration, SessionState } from "@branchlog/session-core"
import { OversizedLine, TranscriptFile } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { requireFile } from "./session.js"

/** What a scan found. */
export interface Scan {
  readonly path: string
  /** Every line as parsed, in file order (blank lines included; a line over the ceiling as an `OversizedRow`). */
  readonly lines: ReadonlyArray<Line.ParsedLine>
  /** The state of the lines as they are (older versions migrated in memory, for the tree checks). */
  readonly state: SessionState.SessionState
  /** `false` when the file does not end with `\n` (its last line may be torn). */
  readonly endsWithNewline: boolean
  /** The version on disk, when there is a header. */
  readonly version: number | undefined
}

/** Mints ids for an in-memory migration (never written). */
export const mintId = (taken: ReadonlySet<string>): string => {
  for (;;) {
    const id = randomUUID().slice(0, 8)
    if (!taken.has(id)) return id
  }
}

/** Reads and parses every line of `path`. */
export const scan = (path: string) =>
  Effect.gen(function*() {
    yield* requireFile(path)
    const files = yield* TranscriptFile.TranscriptFile
    let endsWithNewline = true
    const lines: Array<Line.ParsedLine> = []
    yield* files.forEachChunk(path, (chunk) => {
      for (const line of chunk) {
        endsWithNewline = line.terminated
        lines.push(OversizedLine.parse(line, path, files))
      }
    })
    const migration = Migration.migrate(lines, mintId)
    return {
      path,
      lines,
      state: SessionState.fromRecords(migration.lines),
      endsWithNewline,
      version: migration.fromVersion
    } satisfies Scan
  })
