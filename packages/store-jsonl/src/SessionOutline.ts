/**
 * The outline of a JSONL session from its sidecar index (`<file>.index`), without reading the
 * session: its entries counted by type, labels, compactions, leaf and size (the index's summary
 * and row table), and its tree (the row table's ids, parents and types, with the few rows the
 * table cannot settle read by offset; see `internal/index/outline.ts`). What `branchlog info` and
 * `branchlog tree` answer large sessions with.
 *
 * `open` gives `None` whenever the index cannot answer exactly as a full read would: no index or
 * a damaged one, an index behind the file (catch it up first: `SessionManager.resume` does), a
 * summary a bounded open cannot use (duplicate ids, side appends, no header first); `tree` gives
 * `None` where the replay cannot be exact. The caller then reads the session whole.
 *
 * @since 0.2.0
 */
import type { Entry, Line as LineType } from "@branchlog/session-core"
import { Line } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { FileSnapshot } from "./FileSnapshot.js"
import { crc32 } from "./internal/crc32.js"
import { applyLog, readIndex } from "./internal/index/file.js"
import * as Format from "./internal/index/format.js"
import { mergeIds } from "./internal/index/ids.js"
import type { OutlineTree as Tree } from "./internal/index/outline.js"
import { replay } from "./internal/index/outline.js"
import * as SessionFiles from "./SessionFiles.js"
import { TranscriptFile } from "./TranscriptFile.js"
import type { TranscriptFileShape } from "./TranscriptFile.js"

/** The tree of an outline: entry rows (0-based line numbers) with their parents, children, labels and the leaf's path. */
export type OutlineTree = Tree

/** The entries of a session by type, counted over the index's row table. */
export interface Counts {
  /** Canonical entries (every entry row, side appends included). */
  readonly entries: number
  /** Entries by type, in the order types were first seen in the format (`other`: a type the index has no code for). */
  readonly types: ReadonlyArray<readonly [string, number]>
}

/** What the index says of a session. */
export interface Outline {
  /** The session file (absolute). */
  readonly path: string
  /** Bytes of the session file. */
  readonly size: number
  /** Lines of the file (blank ones included). */
  readonly lines: number
  readonly leafId: string | null
  /** Resolved labels. */
  readonly labels: number
  /** Compaction entries (any branch). */
  readonly compactions: number
  /** Lines that are not JSON objects. */
  readonly corrupt: number
  /**
   * The entries by type: the row table passed through one small buffer, never held (`None`: the
   * table is damaged or was replaced; read the session whole).
   */
  readonly counts: Effect.Effect<Option.Option<Counts>>
  /** The tree, replayed from the row table (`None`: it cannot be exact; read the session whole). */
  readonly tree: Effect.Effect<Option.Option<OutlineTree>>
  /** The entries of these rows, read by offset (`None`: a row is not where the index says). */
  readonly entriesOf: (rows: ReadonlyArray<number>) => Effect.Effect<Option.Option<ReadonlyMap<number, Entry.Entry>>>
}

/** Row records passed at once when counting: 384 KiB, one buffer for the whole table. */
const COUNT_PIECE = Format.ROW_BYTES * 16_384

/** Adds the entry rows of `rows` (whole records) to `byCode`, by type code. */
const countRows = (byCode: Float64Array, rows: Uint8Array): void => {
  for (let at = 0; at + Format.ROW_BYTES <= rows.length; at += Format.ROW_BYTES) {
    if (rows[at + 20] === Format.TAG.Entry) byCode[rows[at + 21]!]! += 1
  }
}

/** The counts of `byCode` (entry rows by type code) by type name. */
const countsOf = (byCode: Float64Array): Counts => {
  const counts = new Array<number>(Format.ENTRY_TYPES.length + 1).fill(0)
  let entries = 0
  for (let code = 0; code < 256; code++) {
    entries += byCode[code]!
    counts[code >= 1 && code <= Format.ENTRY_TYPES.length ? code - 1 : Format.ENTRY_TYPES.length]! += byCode[code]!
  }
  const types: Array<readonly [string, number]> = []
  counts.forEach((count, i) => {
    if (count > 0) types.push([Format.ENTRY_TYPES[i] ?? "other", count])
  })
  return { entries, types }
}

const decoder = new TextDecoder()

/** Rows closer than this are read in one range (the bytes between them with them). */
const GAP = 4096

/**
 * Reads rows by offset from the table (each with the byte before it and its newline, near rows in
 * one range, all through one descriptor, in file order) and parses them. The rows the replay must
 * parse are kept until shown; those read for a time only, and the shown entries, are not (they are
 * read in batches, each dropped once printed).
 */
const reader = (files: TranscriptFileShape, path: string, table: DataView) => {
  const cache = new Map<number, LineType.ParsedLine | undefined>()
  // the bytes of a batch are parsed before the next is read: one buffer serves them all (fresh
  // memory per batch cost more than the reads on a large tree)
  let scratch = new Uint8Array(0)
  return (rows: ReadonlyArray<number>, keep = true): Map<number, LineType.ParsedLine | undefined> | undefined => {
    const sorted = Int32Array.from(rows).sort()
    const todo: Array<number> = []
    for (let i = 0; i < sorted.length; i++) {
      const r = sorted[i]!
      if ((i === 0 || sorted[i - 1] !== r) && !cache.has(r)) todo.push(r)
    }
    const ranges: Array<[number, number]> = []
    const rangeOf: Array<number> = []
    for (const r of todo) {
      const offset = table.getFloat64(r * Format.ROW_BYTES, true)
      const length = table.getUint32(r * Format.ROW_BYTES + 8, true)
      const start = Math.max(0, offset - 1)
      const end = offset + length + 1
      const last = ranges[ranges.length - 1]
      if (last !== undefined && start - (last[0] + last[1]) < GAP) last[1] = Math.max(last[1], end - last[0])
      else ranges.push([start, end - start])
      rangeOf.push(ranges.length - 1)
    }
    let size = 0
    for (const [, length] of ranges) size += length
    if (scratch.length < size) scratch = new Uint8Array(Math.max(size, scratch.length * 2))
    const chunks = ranges.length === 0
      ? []
      : Either.getOrUndefined(files.unsafeReadRanges(path, ranges, scratch))
    if (chunks === undefined) return undefined
    const out = new Map<number, LineType.ParsedLine | undefined>()
    for (const r of rows) {
      if (!cache.has(r)) continue
      out.set(r, cache.get(r))
      if (!keep) cache.delete(r)
    }
    todo.forEach((r, i) => {
      const offset = table.getFloat64(r * Format.ROW_BYTES, true)
      const length = table.getUint32(r * Format.ROW_BYTES + 8, true)
      const range = ranges[rangeOf[i]!]!
      const bytes = chunks[rangeOf[i]!]!
      const at = offset - range[0]
      const whole = bytes.length >= at + length + 1 && bytes[at + length] === 0x0a &&
        (offset === 0 || bytes[at - 1] === 0x0a)
      const parsed = whole ? Line.parse(decoder.decode(bytes.subarray(at, at + length)), r + 1, offset) : undefined
      if (keep) cache.set(r, parsed)
      out.set(r, parsed)
    })
    return out
  }
}

/** The outline of the session file `path` from its index, when the index covers the file exactly as it is now. */
export const open = (
  path: string
): Effect.Effect<Option.Option<Outline>, never, TranscriptFile | FileSnapshot> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const snapshots = yield* FileSnapshot
    const file = files.resolve(path)
    const index = SessionFiles.indexName(files.canonical(path))
    const read = yield* readIndex({ files }, index)
    if (read === undefined) return Option.none()
    const { head } = read
    const log = applyLog(head, read.log)
    const summary = log.summary
    if (!summary.bounded) return Option.none()
    const w = summary.watermark
    const now = yield* snapshots.capture(file).pipe(Effect.orElseSucceed(() => Option.none()))
    if (
      Option.isNone(now) || now.value.size !== w.size || String(now.value.ino) !== w.ino ||
      String(now.value.dev) !== w.dev || String(now.value.mtimeNs) !== w.mtimeNs
    ) return Option.none()
    let logBytes = 0
    for (const r of log.rows) logBytes += r.length
    if (head.rowCount * Format.ROW_BYTES + logBytes !== summary.lineCount * Format.ROW_BYTES) return Option.none()
    // the row table and the id set are read whole only for the tree (and the rows it reads): the
    // counts pass over the table through one small buffer (fresh memory costs more than the read)
    const loadTable = Effect.gen(function*() {
      const [rowBytes, idBytes] = yield* files.readRanges(index, [
        [head.rowsAt, head.rowCount * Format.ROW_BYTES],
        [head.idsAt, head.idCount * 8]
      ])
      const base = rowBytes === undefined ? undefined : Format.decodeRows(head, rowBytes)
      const baseIds = idBytes === undefined ? undefined : Format.decodeIds(head, idBytes)
      if (base === undefined || baseIds === undefined) return undefined
      let rows = base
      if (log.rows.length > 0) {
        rows = new Uint8Array(base.length + logBytes)
        rows.set(base, 0)
        let at = base.length
        for (const r of log.rows) {
          rows.set(r, at)
          at += r.length
        }
      }
      const ids = log.ids.length === 0 ? baseIds : mergeIds(baseIds, Float64Array.from(log.ids).sort())
      const table = new DataView(rows.buffer, rows.byteOffset, rows.byteLength)
      return { rows, ids, table, readRows: reader(files, file, table) }
    }).pipe(Effect.orElseSucceed(() => undefined), Effect.cached)
    const loaded = yield* loadTable
    const streamCounts = Effect.gen(function*() {
      const byCode = new Float64Array(256)
      let crc = 0
      const expected = head.rowCount * Format.ROW_BYTES
      const done = yield* files.scanBytes(index, head.rowsAt, expected, COUNT_PIECE, (piece) => {
        crc = crc32(piece, crc)
        // every piece holds whole records: COUNT_PIECE is a multiple of a record, and so is the table
        countRows(byCode, piece)
      })
      if (done !== expected || crc !== head.crcRows) return Option.none<Counts>()
      for (const r of log.rows) countRows(byCode, r)
      return Option.some(countsOf(byCode))
    }).pipe(Effect.orElseSucceed(() => Option.none<Counts>()), Effect.cached)
    const counts = yield* streamCounts
    let tree: Option.Option<OutlineTree> | undefined
    const outline: Outline = {
      path: file,
      size: w.size,
      lines: summary.lineCount,
      leafId: summary.leafId,
      labels: summary.labels.length,
      compactions: summary.compactions.length,
      corrupt: summary.corrupt.length,
      counts,
      tree: Effect.map(loaded, (t) => {
        if (t === undefined) return Option.none()
        return tree ??= Option.fromNullable(replay(summary, t.rows, t.ids, t.readRows))
      }),
      entriesOf: (wanted) =>
        Effect.map(loaded, (t) => {
          if (t === undefined) return Option.none()
          const got = t.readRows(wanted, false)
          if (got === undefined) return Option.none()
          const out = new Map<number, Entry.Entry>()
          for (const [r, p] of got) {
            if (
              p?._tag !== "Entry" || Format.hash32(p.entry.id) !== t.table.getUint32(r * Format.ROW_BYTES + 12, true)
            ) return Option.none()
            out.set(r, p.entry)
          }
          return Option.some(out)
        })
    }
    return Option.some(outline)
  })
