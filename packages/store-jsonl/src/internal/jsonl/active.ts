/**
 * The JSONL store's bounded open (`TranscriptStore.loadActive`) through the sidecar index
 * `<file>.index`: read the index's head and summary, check its watermark against the file,
 * catch up the rows appended since (by anyone: pi writes no index), then read only the rows of
 * the active path by offset. Whatever cannot be trusted (no index, a damaged one, another file's,
 * a rewritten, truncated or swapped transcript, rows the summary cannot fold) leads to a full
 * load in one pass that builds the index again: the index is never needed for correctness.
 */
import type { Entry, Line } from "@branchlog/session-core"
import { assemble, catchUp, summarize } from "@branchlog/session-store/PathIndex"
import type {
  ActiveLoaded,
  ActiveOptions,
  ActiveResult,
  Loaded,
  StoreFailure
} from "@branchlog/session-store/TranscriptStore"
import { emptyReport } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as OversizedLine from "../../OversizedLine.js"
import * as SessionFiles from "../../SessionFiles.js"
import { applyLog, readIndex, rewrite } from "../index/file.js"
import * as Follower from "../index/follower.js"
import * as Format from "../index/format.js"
import type { RowRef } from "../index/format.js"
import { idsOf, lazyIds } from "../index/ids.js"
import * as Log from "../index/log.js"
import { recorder } from "../index/recorder.js"
import * as Watermark from "../index/watermark.js"
import { JsonlCursor, toCursor } from "./cursor.js"
import type { Env } from "./env.js"
import { direct, isEmpty, load, nothing, reload } from "./load.js"
import { scanFile } from "./scan.js"

/** Caught-up bytes (and bytes of update log) past which a writable resume rewrites the index whole. */
export const REWRITE_AFTER_BYTES = 1024 * 1024

/** Bytes of update log past which a writable resume folds it into a new base. */
export const LOG_REWRITE_BYTES = 512 * 1024

/** The most update log a reader reads. */
export { MAX_LOG_BYTES } from "../index/file.js"

/** The most update log a writer appends to (past it, it leaves the index to the next writable resume, which rewrites it). */
export const MAX_WRITER_LOG_BYTES = 1024 * 1024

/** Indexes of at most this many rows are rewritten after every catch-up. */
export const REWRITE_SMALL_ROWS = 65536

const decoder = new TextDecoder()

const full = (loaded: Loaded): ActiveResult => ({ _tag: "Full", loaded })

/** Whether this open may write the index (default: unless read-only). */
const writes = (options: ActiveOptions): boolean => options.writeIndex ?? options.readOnly !== true

/** One full pass that folds the file and (unless told not to, or the file is torn) writes its index. */
const build = (env: Env, path: string, index: string, options: ActiveOptions) =>
  Effect.gen(function*() {
    const size = Option.match(yield* env.snapshots.capture(path).pipe(Effect.orElseSucceed(() => Option.none())), {
      onNone: () => 0,
      onSome: (snapshot) => snapshot.size
    })
    const rec = recorder(size)
    const scan = yield* scanFile(env, path, rec.observer)
    if (isEmpty(scan)) return full(nothing(scan.bytesRead))
    if (!scan.direct) return full(yield* load(env, path, { ...options, cache: false }))
    const loaded = direct(scan)
    if (
      !writes(options) || scan.snapshot === undefined || scan.tornTail !== undefined ||
      scan.oversized.length > 0
    ) return full(loaded)
    const watermark = yield* Watermark.of(env, path, scan.snapshot)
    if (watermark === undefined) return full(loaded)
    const tables = rec.tables()
    const summary = summarize({
      state: scan.state,
      tables,
      watermark,
      lineCount: scan.lineCount,
      tailId: scan.tailId,
      hasAssistant: scan.hasAssistant,
      corrupt: scan.corrupt
    })
    const wrote = yield* env.files.writeSideFile(index, Format.encode(summary, tables.rowBytes(), tables.idSet())).pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false)
    )
    if (!wrote || options.readOnly === true || !summary.bounded) return full(loaded)
    const index_ = Follower.make({
      env,
      path,
      index,
      written: summary,
      current: summary,
      ids: [],
      rows: [],
      logBytes: 0,
      maxLogBytes: MAX_WRITER_LOG_BYTES
    })
    return { _tag: "Full", loaded, index: index_ } satisfies ActiveResult
  })

/** Reads rows by offset, each with the byte before it and its newline (near rows in one read). */
const readRows = (env: Env, path: string, refs: ReadonlyArray<RowRef>) =>
  Effect.gen(function*() {
    const sorted = [...refs].sort((a, b) => a.offset - b.offset)
    const ranges: Array<[number, number]> = []
    const rangeOf: Array<number> = []
    for (const r of sorted) {
      const start = Math.max(0, r.offset - 1)
      const end = r.offset + r.length + 1
      const last = ranges[ranges.length - 1]
      if (last !== undefined && start - (last[0] + last[1]) < 65536) last[1] = Math.max(last[1], end - last[0])
      else ranges.push([start, end - start])
      rangeOf.push(ranges.length - 1)
    }
    const chunks = yield* env.files.readRanges(path, ranges)
    const texts = new Map<RowRef, string | undefined>()
    sorted.forEach((r, i) => {
      const range = ranges[rangeOf[i]!]!
      const bytes = chunks[rangeOf[i]!]!
      const at = r.offset - range[0]
      const whole = bytes.length >= at + r.length + 1 && bytes[at + r.length] === 0x0a &&
        (r.offset === 0 || bytes[at - 1] === 0x0a)
      texts.set(r, whole ? decoder.decode(bytes.subarray(at, at + r.length)) : undefined)
    })
    return texts
  })

/** The bounded open of `path` (its canonical file's index), or a full load. */
export const loadActive = (
  env: Env,
  path: string,
  options: ActiveOptions
): Effect.Effect<ActiveResult, StoreFailure> =>
  Effect.gen(function*() {
    const index = SessionFiles.indexName(env.keyOf(path))
    const read = yield* readIndex(env, index)
    if (read === undefined) return yield* build(env, path, index, options)
    const head = read.head
    const log = applyLog(head, read.log)
    let summary = log.summary
    const change = yield* Watermark.check(env, path, summary.watermark)
    if (change._tag === "Missing") return full(nothing())
    if (change._tag === "Replaced") return yield* build(env, path, index, options)
    const ids = lazyIds(env, index, head, log.ids)
    let snapshot = Watermark.toSnapshot(env.files.resolve(path), summary.watermark)
    // the caught-up rows' id hashes (sorted), for the minted ids' question
    let batch: Float64Array | undefined
    let bytesRead = 0
    // the rows caught up in this open, by line (from `firstFresh`): not read a second time
    let fresh: ReadonlyArray<Line.ParsedLine> = []
    const firstFresh = summary.lineCount + 1
    const freshAt = (line: number): Line.ParsedLine | undefined =>
      line >= firstFresh ? fresh[line - firstFresh] : undefined
    // what the index on disk holds (base and log), and what this open knows beyond it
    let written = summary
    let logBytes = log.bytes
    const extra = { ids: [] as Array<number>, rows: [] as Array<Uint8Array> }
    /** The index on disk now holds all this open knows (`summary`): nothing is left to write. */
    const settled = () => {
      written = summary
      extra.ids = []
      extra.rows = []
    }
    /** The base, the log and what this open caught up, folded into one new base (`false`: not written). */
    const rebase = Effect.suspend(() => {
      const set = ids.set()
      return set === undefined ? Effect.succeed(false) : Effect.tap(
        rewrite(env, index, head, set, summary, {
          ids: [...log.ids, ...extra.ids],
          rows: [...log.rows, ...extra.rows]
        }),
        (rewritten) => {
          if (!rewritten) return
          settled()
          logBytes = 0
        }
      )
    })
    if (change._tag === "Appended") {
      const tail = yield* env.files.readFrom(path, summary.watermark.size, { firstLine: summary.lineCount + 1 })
      bytesRead += tail.bytesRead
      const parsed = tail.lines.map((l) => OversizedLine.parse(l, path, env.files))
      ids.prefetch(idsOf(parsed).map(Format.hash52))
      const caught = catchUp(summary, tail.lines, parsed, (id) => ids.mayHave(Format.hash52(id)))
      if (caught === undefined) return yield* build(env, path, index, options)
      fresh = parsed
      const after = yield* env.snapshots.capture(path, { upTo: tail.endOffset })
      if (Option.isNone(after) || after.value.size !== tail.endOffset) return yield* build(env, path, index, options)
      snapshot = after.value
      // the head window of an appended file is the one the index hashed (same inode): no read
      const wm = Watermark.following(snapshot, summary.watermark) ?? (yield* Watermark.of(env, path, snapshot))
      if (wm === undefined) return yield* build(env, path, index, options)
      summary = { ...caught.summary, watermark: wm }
      const caughtIds = caught.tables.ids.subarray(0, caught.tables.idCount)
      batch = caughtIds
      if (writes(options)) {
        extra.ids = Array.from(caughtIds)
        extra.rows = [caught.tables.rowBytes()]
      }
      if (writes(options)) {
        const caughtBytes = tail.endOffset - written.watermark.size
        if (
          caughtBytes > REWRITE_AFTER_BYTES || head.rowCount <= REWRITE_SMALL_ROWS ||
          logBytes + caughtBytes > LOG_REWRITE_BYTES
        ) {
          // whole: the base, the log and the catch-up in one new base
          yield* rebase
        } else {
          // only the appended part: one record on the index's log
          const line = Log.encode(Log.diff(written, summary, extra.ids, caught.tables.rowBytes()))
          const ok = yield* env.files.append(index, [line], { create: false }).pipe(
            Effect.as(true),
            Effect.orElseSucceed(() => false)
          )
          if (ok) {
            settled()
            logBytes += Buffer.byteLength(line) + 1
          }
        }
      }
    }
    if (writes(options) && logBytes > LOG_REWRITE_BYTES && summary.bounded) {
      // a long log (writers' records): folded into a new base, so that resumes read a short one
      yield* rebase
    }
    if (!summary.bounded) return full(yield* load(env, path, { ...options, cache: false }))
    const s = summary
    const refs = [s.header!, ...s.before, ...s.segment, ...(s.sessionInfo === null ? [] : [s.sessionInfo])]
    const texts = yield* readRows(env, path, refs.filter((r) => freshAt(r.line) === undefined))
    for (const t of texts.values()) bytesRead += t === undefined ? 0 : t.length
    const parse = (r: RowRef): Line.ParsedLine | undefined => {
      const caughtUp = freshAt(r.line)
      if (caughtUp !== undefined) return caughtUp.offset === r.offset ? caughtUp : undefined
      const text = texts.get(r)
      return text === undefined ? undefined : OversizedLine.parse(
        { text, line: r.line, offset: r.offset, byteLength: r.length, terminated: true } as never,
        path,
        env.files
      )
    }
    const entryOf = (r: RowRef): Line.EntryLine | undefined => {
      const p = parse(r)
      return p?._tag === "Entry" && p.entry.id === r.id ? p : undefined
    }
    const header = parse(s.header!)
    const before = s.before.map(entryOf)
    const segment = s.segment.map(entryOf)
    const info = s.sessionInfo === null ? undefined : entryOf(s.sessionInfo)
    if (
      header?._tag !== "Header" || before.includes(undefined) || segment.includes(undefined) ||
      (s.sessionInfo !== null && info?.entry.type !== "session_info")
    ) return yield* build(env, path, index, options)
    const view = assemble(s, {
      header,
      before: before.map((l) => l!.entry),
      segment: segment.map((l) => l!),
      sessionInfo: info?.entry as Entry.SessionInfoEntry | undefined
    })
    const end = { line: s.lineCount, offset: s.watermark.size }
    let known: Float64Array | undefined
    const active: ActiveLoaded = {
      _tag: "Active",
      state: view.state,
      before: view.before,
      cursor: toCursor(new JsonlCursor(snapshot, end, false)),
      end,
      tailId: s.tailId,
      hasAssistant: s.hasAssistant,
      report: { ...emptyReport, corrupt: s.corrupt, bytesRead },
      mayHaveId: (id) => {
        const h = Format.hash52(id)
        if (batch !== undefined && known === undefined) known = Float64Array.from(batch).sort()
        return (known !== undefined && Format.hasHash(known, h)) || ids.mayHave(h)
      },
      loadRest: reload(env, path, options.cwd),
      ...(options.readOnly === true || !writes(options) ? {} : {
        index: Follower.make({
          env,
          path,
          index,
          written,
          current: summary,
          ids: extra.ids,
          rows: extra.rows,
          logBytes,
          maxLogBytes: MAX_WRITER_LOG_BYTES
        })
      })
    }
    return active
  })
