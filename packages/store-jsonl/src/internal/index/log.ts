/**
 * The update log of a sidecar index: records appended after the index's base (`Head.baseEnd`) by
 * whoever extends what the index covers without rewriting it: a writer after its own appends
 * (under the transcript lock, when its hold ends), a writable resume after catching up. One
 * record per line, `BLU <crc32 of the JSON, 8 hex> <JSON>\n` ({@link Record}): the summary's
 * change from the watermark `from` to the watermark `to` (the path's kept part and its new rows,
 * the small fields, the labels when they changed, the corrupt lines and compactions added), the
 * new ids' hashes and the new rows' records.
 *
 * A reader applies, in order, each record whose `from` is exactly the watermark reached so far
 * and skips any other (torn, damaged, or written against another base or chain: the rows it
 * describes are then caught up from the transcript, as after a foreign append). A crash between
 * the transcript's write and the record's costs that catch-up, never a wrong answer.
 */
import { crc32 } from "../crc32.js"
import type { RowRef, Summary, Watermark } from "./format.js"
import { isRowRef, isSummary, ROW_BYTES } from "./format.js"

/** One record of the log. */
export interface Record {
  readonly from: Watermark
  readonly to: Watermark
  /** The new path is `segment.slice(cut[0], cut[1])` followed by `add`. */
  readonly cut: readonly [number, number]
  readonly add: ReadonlyArray<RowRef>
  readonly lineCount: number
  readonly leafId: string | null
  readonly appendParentId: string | null
  readonly tailId: string | null
  readonly hasAssistant: boolean
  readonly compactionAt: number
  readonly before: ReadonlyArray<RowRef>
  readonly sessionInfo: RowRef | null
  /** The labels after the change, `null` when unchanged. */
  readonly labels: ReadonlyArray<readonly [string, string, string]> | null
  readonly corrupt: Summary["corrupt"]
  readonly compactions: Summary["compactions"]
  /** 52-bit hashes of the new rows' ids and written parent ids. */
  readonly ids: ReadonlyArray<number>
  /** The new rows' records of the row table, base64. */
  readonly rows: string
}

const PREFIX = "BLU "

const sameRef = (a: RowRef | undefined, b: RowRef | undefined): boolean =>
  a !== undefined && b !== undefined && a.line === b.line && a.offset === b.offset && a.id === b.id

/** `true` when two watermarks are the same. */
export const sameWatermark = (a: Watermark, b: Watermark): boolean =>
  a.size === b.size && a.dev === b.dev && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.tailHash === b.tailHash &&
  a.tailLength === b.tailLength && a.headHash === b.headHash && a.headLength === b.headLength

/**
 * The record that takes `written` to `current` (both bounded; `current` is `written` with rows
 * folded in by `catchUp`, so its corrupt lines and compactions extend `written`'s).
 */
export const diff = (
  written: Summary,
  current: Summary,
  ids: ReadonlyArray<number>,
  rows: Uint8Array
): Record => {
  let cut: [number, number] = [0, 0]
  let add: ReadonlyArray<RowRef> = current.segment
  const w = written.segment
  const c = current.segment
  const first = c[0]
  if (first !== undefined) {
    // `current` comes from `written` by a catch-up: a slice of its rows (the same objects) and new ones
    let at = w[0] === first ? 0 : w.indexOf(first)
    if (at === -1) at = w.findIndex((r) => sameRef(r, first))
    if (at !== -1) {
      let run = 0
      const most = Math.min(w.length - at, c.length)
      while (run < most && w[at + run] === c[run]) run++
      while (sameRef(w[at + run], c[run])) run++
      cut = [at, at + run]
      add = c.slice(run)
    }
  }
  const labels = JSON.stringify(written.labels) === JSON.stringify(current.labels) ? null : current.labels
  return {
    from: written.watermark,
    to: current.watermark,
    cut,
    add,
    lineCount: current.lineCount,
    leafId: current.leafId,
    appendParentId: current.appendParentId,
    tailId: current.tailId,
    hasAssistant: current.hasAssistant,
    compactionAt: current.compactionAt,
    before: current.before,
    sessionInfo: current.sessionInfo,
    labels,
    corrupt: current.corrupt.slice(written.corrupt.length),
    compactions: current.compactions.slice(written.compactions.length),
    ids,
    rows: Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength).toString("base64")
  }
}

/** One record as its line (with the newline). */
export const encode = (record: Record): string => {
  const json = JSON.stringify(record)
  return `${PREFIX}${crc32(json).toString(16).padStart(8, "0")} ${json}`
}

const isRecord = (u: unknown): u is Record => {
  const r = u as Record
  return typeof r === "object" && r !== null && Array.isArray(r.cut) && r.cut.length === 2 &&
    Number.isSafeInteger(r.cut[0]) && Number.isSafeInteger(r.cut[1]) && Array.isArray(r.add) && r.add.every(isRowRef) &&
    Array.isArray(r.ids) && r.ids.every((h) => Number.isSafeInteger(h) && h >= 0) && typeof r.rows === "string" &&
    (r.labels === null || Array.isArray(r.labels)) && Array.isArray(r.corrupt) && Array.isArray(r.compactions) &&
    typeof r.from === "object" && r.from !== null && typeof r.to === "object" && r.to !== null
}

/** The records of a log's bytes, in order (lines that are not whole, intact records are left out). */
export const decode = (bytes: Uint8Array): Array<Record> => {
  const out: Array<Record> = []
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  let start = 0
  while (start < text.length) {
    const end = text.indexOf("\n", start)
    if (end === -1) break
    const line = text.slice(start, end)
    start = end + 1
    if (!line.startsWith(PREFIX) || line.charCodeAt(PREFIX.length + 8) !== 0x20) continue
    // the JSON is UTF-8: decode it from its bytes
    const json = Buffer.from(line.slice(PREFIX.length + 9), "latin1").toString("utf8")
    if (crc32(json).toString(16).padStart(8, "0") !== line.slice(PREFIX.length, PREFIX.length + 8)) continue
    try {
      const record = JSON.parse(json) as unknown
      if (isRecord(record)) out.push(record)
    } catch {
      // a damaged record: left out
    }
  }
  return out
}

/** `summary` with `record` applied (`undefined` when it does not follow on from it or gives no valid summary). */
export const apply = (summary: Summary, record: Record): Summary | undefined => {
  if (!summary.bounded || !sameWatermark(summary.watermark, record.from)) return undefined
  const [a, b] = record.cut
  if (a < 0 || b < a || b > summary.segment.length) return undefined
  const next: Summary = {
    ...summary,
    watermark: record.to,
    lineCount: record.lineCount,
    leafId: record.leafId,
    appendParentId: record.appendParentId,
    tailId: record.tailId,
    hasAssistant: record.hasAssistant,
    segment: [...summary.segment.slice(a, b), ...record.add],
    compactionAt: record.compactionAt,
    before: record.before,
    sessionInfo: record.sessionInfo,
    labels: record.labels ?? summary.labels,
    corrupt: [...summary.corrupt, ...record.corrupt],
    compactions: [...summary.compactions, ...record.compactions]
  }
  return isSummary(next) ? next : undefined
}

/**
 * `summary` with every record of `records` that follows on applied in order (one working copy of
 * the path, whatever the number of records), and the records applied with their row records; the
 * summary unchanged (and none applied) when the result is no valid summary.
 */
export const applyAll = (
  summary: Summary,
  records: ReadonlyArray<Record>
): {
  readonly summary: Summary
  readonly applied: ReadonlyArray<{ readonly record: Record; readonly rows: Uint8Array }>
} => {
  if (!summary.bounded) return { summary, applied: [] }
  let last: Record | undefined
  let watermark = summary.watermark
  let segment = [...summary.segment]
  let labels = summary.labels
  const corrupt = [...summary.corrupt]
  const compactions = [...summary.compactions]
  const applied: Array<{ readonly record: Record; readonly rows: Uint8Array }> = []
  for (const record of records) {
    if (!sameWatermark(watermark, record.from)) continue
    const [a, b] = record.cut
    if (a < 0 || b < a || b > segment.length) continue
    const rows = rowsOf(record)
    if (rows.length % ROW_BYTES !== 0) continue
    if (a === 0) segment.length = b
    else segment = segment.slice(a, b)
    for (const r of record.add) segment.push(r)
    for (const c of record.corrupt) corrupt.push(c)
    for (const c of record.compactions) compactions.push(c)
    if (record.labels !== null) labels = record.labels
    watermark = record.to
    last = record
    applied.push({ record, rows })
  }
  if (last === undefined) return { summary, applied: [] }
  const next: Summary = {
    ...summary,
    watermark,
    lineCount: last.lineCount,
    leafId: last.leafId,
    appendParentId: last.appendParentId,
    tailId: last.tailId,
    hasAssistant: last.hasAssistant,
    segment,
    compactionAt: last.compactionAt,
    before: last.before,
    sessionInfo: last.sessionInfo,
    labels,
    corrupt,
    compactions
  }
  return isSummary(next) ? { summary: next, applied } : { summary, applied: [] }
}

/** The row records of a record. */
export const rowsOf = (record: Record): Uint8Array => new Uint8Array(Buffer.from(record.rows, "base64"))
