/**
 * The sidecar index of a JSONL transcript, `<file>.index` (format version 2; documented in the
 * README, "Sidecar index"). One binary file, little endian:
 *
 * | bytes | what |
 * | --- | --- |
 * | 8 | magic `BLINDEX\n` |
 * | 4 | format version (2) |
 * | 4 | byte length of the summary |
 * | 4 | row count |
 * | 4 | id count |
 * | 4 | crc32 of the summary |
 * | 4 | crc32 of the row table |
 * | 4 | crc32 of the id set |
 * | 4 | byte length of the id filter |
 * | 4 | crc32 of the id filter (and of the bucket table after it) |
 * | 4 | bucket count of the id set |
 * | n | the summary: UTF-8 JSON ({@link Summary}), padded with spaces to a multiple of 8 |
 * | 24 × rows | the row table: one record per line of the file ({@link ROW_BYTES}) |
 * | 8 × ids | the id set: sorted 52-bit hashes of every id and written parent id (float64) |
 * | filter | a Bloom filter of the id set ({@link FILTER_PROBES} probes, {@link FILTER_BITS} bits per id) |
 * | 8 × (buckets + 1) | the bucket table: per bucket of the id set (by its top bits) the index of its first hash and the crc32 of its hashes |
 * | log | update records appended by writers after their own appends (`log.ts`) |
 *
 * A resume reads the first 48 bytes and the summary (and the update log after the base); new rows
 * caught up (or an id minted) are checked against the id filter, and only an id the filter may
 * hold against its one bucket of the id set (a read of a few hundred bytes); the row table is
 * written for tools and later uses, never needed.
 */
import type { Summary } from "@branchlog/session-store/PathIndex"
import { filterOf, isSummary, ROW_BYTES } from "@branchlog/session-store/PathIndex"
import { crc32 } from "../crc32.js"
import { bucketsOf } from "./buckets.js"

// the summary, the row layout and the id set are part of the format: one namespace for its readers
export * from "@branchlog/session-store/PathIndex"
export * from "./buckets.js"

/** The format version this code writes and reads. */
export const VERSION = 2

const MAGIC = new TextEncoder().encode("BLINDEX\n")

/** Bytes of the fixed head. */
export const HEAD_BYTES = 48

/** A decoded head: the summary and where the other sections are. */
export interface Head {
  readonly summary: Summary
  readonly rowCount: number
  readonly idCount: number
  readonly rowsAt: number
  readonly idsAt: number
  readonly crcRows: number
  readonly crcIds: number
  readonly filterAt: number
  readonly filterBytes: number
  readonly crcFilter: number
  readonly bucketCount: number
  /** Where the bucket table starts (right after the filter). */
  readonly bucketsAt: number
  /** Where the base ends (the update log starts). */
  readonly baseEnd: number
}

const pad8 = (n: number) => (n + 7) & ~7

/** The whole index file, in pieces (head and summary, row table, id set, id filter): written in order. */
export const encode = (summary: Summary, rows: Uint8Array, ids: Float64Array): Array<Uint8Array> => {
  const json = new TextEncoder().encode(JSON.stringify(summary))
  const summaryBytes = pad8(json.length)
  const idBytes = new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength)
  const filter = filterOf(ids)
  const buckets = bucketsOf(ids)
  const filterBytes = new Uint8Array(filter.byteLength + buckets.byteLength)
  filterBytes.set(new Uint8Array(filter.buffer, filter.byteOffset, filter.byteLength), 0)
  filterBytes.set(new Uint8Array(buckets.buffer, buckets.byteOffset, buckets.byteLength), filter.byteLength)
  const head = new Uint8Array(HEAD_BYTES + summaryBytes)
  const view = new DataView(head.buffer)
  head.set(MAGIC, 0)
  head.fill(0x20, HEAD_BYTES, HEAD_BYTES + summaryBytes)
  head.set(json, HEAD_BYTES)
  view.setUint32(8, VERSION, true)
  view.setUint32(12, summaryBytes, true)
  view.setUint32(16, rows.length / ROW_BYTES, true)
  view.setUint32(20, ids.length, true)
  view.setUint32(24, crc32(head.subarray(HEAD_BYTES)), true)
  view.setUint32(28, crc32(rows), true)
  view.setUint32(32, crc32(idBytes), true)
  view.setUint32(36, filter.byteLength, true)
  view.setUint32(40, crc32(filterBytes), true)
  view.setUint32(44, buckets.length / 2 - 1, true)
  return [head, rows, idBytes, filterBytes]
}

/** The summary length a head announces, or `undefined` when the bytes are no index of this version. */
export const summaryLength = (head: Uint8Array): number | undefined => {
  if (head.length < HEAD_BYTES) return undefined
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return undefined
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  if (view.getUint32(8, true) !== VERSION) return undefined
  const length = view.getUint32(12, true)
  return length % 8 === 0 ? length : undefined
}

/** Where the base of an index ends (its update log starts), from its first {@link HEAD_BYTES} bytes. */
export const baseEndOf = (head: Uint8Array): number | undefined => {
  const length = summaryLength(head)
  if (length === undefined) return undefined
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  return HEAD_BYTES + length + view.getUint32(16, true) * ROW_BYTES + view.getUint32(20, true) * 8 +
    view.getUint32(36, true) + (view.getUint32(44, true) + 1) * 8
}

/** Decodes the head and the summary (`undefined` for anything damaged: a wrong checksum, bad JSON, a wrong shape). */
export const decodeHead = (head: Uint8Array, summaryBytes: Uint8Array): Head | undefined => {
  const length = summaryLength(head)
  if (length === undefined || summaryBytes.length !== length) return undefined
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  if (crc32(summaryBytes) !== view.getUint32(24, true)) return undefined
  let summary: Summary
  try {
    summary = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(summaryBytes)) as Summary
  } catch {
    return undefined
  }
  if (!isSummary(summary)) return undefined
  const rowCount = view.getUint32(16, true)
  const idCount = view.getUint32(20, true)
  const filterBytes = view.getUint32(36, true)
  const bucketCount = view.getUint32(44, true)
  if (filterBytes === 0 || filterBytes % 4 !== 0 || bucketCount === 0 || (bucketCount & (bucketCount - 1)) !== 0) {
    return undefined
  }
  const filterAt = HEAD_BYTES + length + rowCount * ROW_BYTES + idCount * 8
  return {
    summary,
    rowCount,
    idCount,
    rowsAt: HEAD_BYTES + length,
    idsAt: HEAD_BYTES + length + rowCount * ROW_BYTES,
    crcRows: view.getUint32(28, true),
    crcIds: view.getUint32(32, true),
    filterAt,
    filterBytes,
    crcFilter: view.getUint32(40, true),
    bucketCount,
    bucketsAt: filterAt + filterBytes,
    baseEnd: filterAt + filterBytes + (bucketCount + 1) * 8
  }
}

/** The id set from its bytes (`undefined` when its checksum is wrong). */
export const decodeIds = (head: Head, bytes: Uint8Array): Float64Array | undefined => {
  if (bytes.length !== head.idCount * 8 || crc32(bytes) !== head.crcIds) return undefined
  if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, head.idCount)
  const copy = new Float64Array(head.idCount)
  new Uint8Array(copy.buffer).set(bytes)
  return copy
}

/** The id filter and the bucket table from their bytes (read together; `undefined` when their checksum is wrong). */
export const decodeFilter = (
  head: Head,
  bytes: Uint8Array
): { readonly filter: Uint32Array; readonly buckets: Uint32Array } | undefined => {
  const total = head.filterBytes + (head.bucketCount + 1) * 8
  if (bytes.length !== total || crc32(bytes) !== head.crcFilter) return undefined
  let words: Uint32Array
  if (bytes.byteOffset % 4 === 0) words = new Uint32Array(bytes.buffer, bytes.byteOffset, total / 4)
  else {
    words = new Uint32Array(total / 4)
    new Uint8Array(words.buffer).set(bytes)
  }
  return { filter: words.subarray(0, head.filterBytes / 4), buckets: words.subarray(head.filterBytes / 4) }
}

/** The row table from its bytes (`undefined` when its checksum is wrong). */
export const decodeRows = (head: Head, bytes: Uint8Array): Uint8Array | undefined =>
  bytes.length === head.rowCount * ROW_BYTES && crc32(bytes) === head.crcRows ? bytes : undefined
