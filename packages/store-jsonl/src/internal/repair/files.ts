/**
 * The effectful half of a check and a repair, over the file services: a raw read of every line
 * (nothing recovered or migrated behind the caller's back, as opening does), and a repair that
 * streams the file's lines through as bytes (never one string of the file: a file beyond a
 * string's size is repaired, invalid UTF-8 is kept) into the one destructive rewrite,
 * `TranscriptFile.replace`, which keeps a backup. The header id comes from `IdSource`, times from
 * `Clock`, the cwd from the caller.
 */
import type { Line as LineTypes } from "@branchlog/session-core"
import { Diagnostics, Entry } from "@branchlog/session-core"
import * as IdSource from "@branchlog/session-store/IdSource"
import type { Diagnosis, Finding, Scanned } from "@branchlog/session-store/Repair"
import {
  diagnose,
  disposition,
  isRepairable,
  oversizedFinding,
  plan,
  storeFindings
} from "@branchlog/session-store/Repair"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as OversizedLine from "../../OversizedLine.js"
import type { InvalidUtf8, ReadError, Repaired, RepairError, RepairOptions } from "../../Repair.js"
import * as SessionFiles from "../../SessionFiles.js"
import * as TranscriptFile from "../../TranscriptFile.js"
import * as TranscriptLock from "../../TranscriptLock.js"
import { invalidAt } from "./utf8.js"

const NEWLINE = new Uint8Array([0x0a])

/** Every line of `path` as parsed (blank lines and lines over the ceiling included), and its diagnosis. */
export const check = (path: string): Effect.Effect<Diagnosis, ReadError, TranscriptFile.TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const ids = yield* IdSource.current
    let terminated = true
    const lines: Array<LineTypes.ParsedLine> = []
    yield* files.forEachChunk(path, (chunk) => {
      for (const line of chunk) {
        terminated = line.terminated
        lines.push(OversizedLine.parse(line, path, files))
      }
    })
    const diagnosis = diagnose({ lines, terminated }, {
      mintId: (taken) => IdSource.entryId(ids, (id) => taken.has(id))
    })
    // the bytes themselves: what decoded to U+FFFD (a second, raw read; fsck is no hot path)
    const invalid = yield* invalidUtf8(path)
    return invalid.length === 0 ? diagnosis : { ...diagnosis, findings: [...diagnosis.findings, ...invalid] }
  })

/**
 * The check of `path` in one streamed pass over its lines (then the raw pass for invalid UTF-8):
 * the findings of {@link check}, keeping of each entry only its id, parent and type (see
 * session-core's `Diagnostics.accumulator`), so memory is bounded by the longest line plus a few
 * tens of bytes per entry. A header of an older version needs the in-memory migration of every
 * row: that file is checked whole, by {@link check}.
 */
export const scan = (path: string): Effect.Effect<Scanned, ReadError, TranscriptFile.TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const accumulator = Diagnostics.accumulator()
    let terminated = true
    let lastLine: LineTypes.ParsedLine | undefined
    const oversized: Array<Finding> = []
    // what a repair's plan reads: blank lines, corrupt rows, session headers
    const kept: Array<LineTypes.ParsedLine> = []
    yield* files.forEachChunk(path, (chunk) => {
      for (const raw of chunk) {
        terminated = raw.terminated
        const line = OversizedLine.parse(raw, path, files)
        if (line._tag === "Blank") {
          kept.push({ _tag: "Blank", raw: "", line: line.line, offset: line.offset })
          continue
        }
        lastLine = line
        if (line._tag === "Corrupt") {
          kept.push({ _tag: "Corrupt", raw: "", reason: "", line: line.line, offset: line.offset })
        } else if (line._tag === "Header") kept.push(line)
        const found = oversizedFinding(line)
        if (found !== undefined) oversized.push(found)
        accumulator.push(line)
      }
    })
    const header = accumulator.header()
    const state = { header }
    const version = header === undefined ? undefined : typeof header.version === "number" ? header.version : 1
    if (version !== undefined && version < Entry.CURRENT_SESSION_VERSION) return yield* check(path)
    const findings = storeFindings(accumulator.finish(), { lastLine, terminated, oversized, version })
    const invalid = yield* invalidUtf8(path)
    return { state, lines: kept, terminated, version, findings: [...findings, ...invalid] }
  })

/** The lines of `path` that hold bytes that are not UTF-8, in one raw read of the file. */
export const invalidUtf8 = (
  path: string
): Effect.Effect<ReadonlyArray<InvalidUtf8>, ReadError, TranscriptFile.TranscriptFile> =>
  Effect.flatMap(TranscriptFile.TranscriptFile, (files) => {
    const found: Array<InvalidUtf8> = []
    return Stream.runForEach(files.rawLines(path), (line) =>
      Effect.sync(() => {
        const at = invalidAt(line.pieces)
        if (at !== -1) found.push({ _tag: "InvalidUtf8", line: line.line, offset: line.offset, at: line.offset + at })
      })).pipe(Effect.as(found))
  })

/** The pieces of a line, without the UTF-8 byte-order mark that may start the file (repair removes it). */
const withoutByteOrderMark = (line: TranscriptFile.RawLine): ReadonlyArray<Uint8Array> => {
  const first = line.pieces[0]
  return line.offset === 0 && first !== undefined && first.length >= 3 && first[0] === 0xef && first[1] === 0xbb &&
      first[2] === 0xbf
    ? [first.subarray(3), ...line.pieces.slice(1)]
    : line.pieces
}

/** A new header: a fresh id from `IdSource`, the time from `Clock`, the cwd given. */
const newHeader = (cwd: string) =>
  Effect.gen(function*() {
    const ids = yield* IdSource.current
    const millis = yield* Clock.currentTimeMillis
    return Entry.makeHeader({ id: ids.uuid(), timestamp: new Date(millis).toISOString(), cwd })
  })

/** The repair of `path`, under its lock: check, then (when something can be fixed) the streamed rewrite and the sidecar. */
export const repair = (
  path: string,
  options: RepairOptions
): Effect.Effect<Repaired, RepairError, TranscriptFile.TranscriptFile | TranscriptLock.TranscriptLock> =>
  Effect.flatMap(TranscriptLock.TranscriptLock, (lock) =>
    lock.withLock(
      path,
      Effect.gen(function*() {
        const diagnosis = yield* scan(path)
        if (!diagnosis.findings.some(isRepairable)) {
          return { _tag: "NothingToRepair", path, findings: diagnosis.findings } as const
        }
        // the plan asks for a header only when the rows have none: the id and the time are drawn only then
        const header = diagnosis.state.header === undefined ? yield* newHeader(options.cwd) : undefined
        const planned = plan(diagnosis, { header: () => header! })
        const files = yield* TranscriptFile.TranscriptFile
        const first = planned.header._tag === "InPlace" ? [] : [planned.header.text + "\n"]
        // the lines stream through as bytes; the moved ones are gathered for the sidecar
        const removed: Array<Uint8Array> = []
        const content = Stream.concat(
          Stream.fromIterable(first),
          files.rawLines(path).pipe(
            Stream.mapConcat((line): ReadonlyArray<Uint8Array> => {
              switch (disposition(planned, line.line)) {
                case "keep":
                  return [...withoutByteOrderMark(line), NEWLINE]
                case "move":
                  removed.push(...withoutByteOrderMark(line), NEWLINE)
                  return []
                case "drop":
                  return []
              }
            })
          )
        )
        const replaced = yield* files.replace(path, content, { backup: "repair" })
        let removedLines: string | undefined
        if (removed.length > 0) {
          removedLines = SessionFiles.removedLinesName(replaced.path, yield* Clock.currentTimeMillis)
          yield* files.rewrite(removedLines, Stream.fromIterable(removed))
        }
        return {
          _tag: "Repaired",
          path,
          written: replaced.path,
          backup: replaced.backup,
          fixed: planned.fixes,
          header: planned.header,
          moved: planned.moved.size,
          removedLines
        } as const
      }),
      options.lock
    ))
