/**
 * One streaming pass over a transcript: lines come from `TranscriptFile.lines` (never a
 * whole-file string), are parsed with their line number and byte offset, and are folded into a
 * state at once when the file starts with a current-version header (the fast path); otherwise
 * they are collected for header recovery and migration.
 */
import type { Line } from "@branchlog/session-core"
import { Migration, SessionState } from "@branchlog/session-core"
import type { FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import type { CorruptReport, OversizedReport } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as FileSnapshot from "../../FileSnapshot.js"
import * as OversizedLine from "../../OversizedLine.js"
import type * as TranscriptFile from "../../TranscriptFile.js"
import type { TranscriptFileShape } from "../../TranscriptFile.js"

/** The file-level services a scan reads through. */
export interface Services {
  readonly files: TranscriptFileShape
  readonly snapshots: FileSnapshot.FileSnapshotShape
}

/** What one pass found. */
export interface Scan {
  readonly exists: boolean
  /** `true`: the state holds every line (current version, header first). */
  readonly direct: boolean
  readonly state: SessionState.SessionState
  /** Every parsed line, when not `direct`. */
  readonly lines: Array<Line.ParsedLine>
  readonly endOffset: number
  readonly lineCount: number
  readonly tailId: string | null
  readonly hasAssistant: boolean
  readonly corrupt: Array<CorruptReport>
  /** The blank lines (which a state does not keep), for `Loaded.rows`. */
  readonly blanks: Array<Line.BlankLine>
  /** Lines longer than the line ceiling: kept on disk as they are, opaque rows in the state. */
  readonly oversized: Array<OversizedReport>
  readonly tornTail: CorruptReport | undefined
  readonly snapshot: FileSnapshot.Snapshot | undefined
  readonly bytesRead: number
}

const PROBE = 0
const DIRECT = 1
const COLLECT = 2

/** Sees every line of a scan with its parse (an index being built); `start` begins each attempt again. */
export interface LineObserver {
  readonly start: () => void
  readonly line: (line: TranscriptFile.Line, parsed: Line.ParsedLine) => void
}

/** Reads and parses a whole file in one pass. A missing file gives `exists: false`. */
export const scanFile = (
  services: Services,
  path: string,
  observer?: LineObserver
): Effect.Effect<Scan, FileSystemError | NotRegularFileError> =>
  Effect.gen(function*() {
    for (let attempt = 0;; attempt++) {
      observer?.start()
      const before = yield* services.snapshots.capture(path)
      if (Option.isNone(before)) return missing()
      const startBytes = yield* services.files.bytesRead
      const state = SessionState.empty()
      let mode = PROBE
      const lines: Array<Line.ParsedLine> = []
      let endOffset = 0
      let lineCount = 0
      const tail = SessionState.emptyTail()
      const corrupt: Array<CorruptReport> = []
      const oversized: Array<OversizedReport> = []
      let tornTail: CorruptReport | undefined
      const blanks: Array<Line.BlankLine> = []
      const fold = (parsed: Line.ParsedLine) => {
        if (parsed._tag === "Blank") blanks.push(parsed)
        SessionState.applyTail(state, tail, parsed)
      }
      const read = yield* services.files.forEachChunk(path, (chunk) => {
        for (const l of chunk) {
          const parsed = OversizedLine.parse(l, path, services.files)
          if (observer !== undefined) observer.line(l, parsed)
          if (l.oversized !== undefined) oversized.push({ line: l.line, offset: l.offset, byteLength: l.byteLength })
          lineCount = l.line
          endOffset = l.offset + l.byteLength + (l.terminated ? 1 : 0)
          if (parsed._tag === "Corrupt") corrupt.push({ line: l.line, offset: l.offset, reason: parsed.reason })
          if (!l.terminated) tornTail = { line: l.line, offset: l.offset, reason: "no newline at end of file" }
          if (mode === DIRECT) {
            fold(parsed)
            continue
          }
          lines.push(parsed)
          if (mode === PROBE && parsed._tag !== "Blank" && parsed._tag !== "Corrupt") {
            if (parsed._tag === "Header" && !Migration.needsMigration(Migration.versionOf(parsed.header))) {
              mode = DIRECT
              for (const buffered of lines) fold(buffered)
              lines.length = 0
            } else mode = COLLECT
          }
        }
      }).pipe(
        Effect.as(true),
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(false))
      )
      if (!read) return missing()
      const after = yield* services.snapshots.capture(path, { upTo: endOffset })
      if (Option.isNone(after)) return missing()
      if (after.value.ino !== before.value.ino || after.value.dev !== before.value.dev) {
        if (attempt < 3) continue
      }
      const bytesRead = (yield* services.files.bytesRead) - startBytes
      return {
        exists: true,
        direct: mode === DIRECT,
        state,
        lines,
        endOffset,
        lineCount,
        tailId: tail.tailId,
        hasAssistant: tail.hasAssistant,
        corrupt,
        blanks,
        oversized,
        tornTail,
        snapshot: after.value,
        bytesRead
      } satisfies Scan
    }
  })

const missing = (): Scan => ({
  exists: false,
  direct: false,
  state: SessionState.empty(),
  lines: [],
  endOffset: 0,
  lineCount: 0,
  tailId: null,
  hasAssistant: false,
  corrupt: [],
  blanks: [],
  oversized: [],
  tornTail: undefined,
  snapshot: undefined,
  bytesRead: 0
})
