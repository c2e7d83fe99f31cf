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
import { crc32 } from "node:zlib"
import type { CorruptReport } from "../../TranscriptStore.js"

/** The format version this code writes and reads. */
export const VERSION = 2

const MAGIC = new TextEncoder().encode("BLINDEX\n")

/** Bytes of the fixed head. */
export const HEAD_BYTES = 48

/** Probes of the id filter per id. */
export const FILTER_PROBES = 5

/** Bits of the id filter per id (about 2% false "maybe"s, each checked against one bucket of the id set). */
export const FILTER_BITS = 8

/** Hashes per bucket of the id set, about (a power of two of buckets). */
export const BUCKET_HASHES = 256

/** Bytes of one record of the row table. */
export const ROW_BYTES = 24

/**
 * The entry types by their code in the row table (code = position + 1; 255: another type). A
 * list of the format's own, not session-core's: an index written today must read the same when
 * session-core's list grows or moves, so a new type only ever goes at the end.
 */
export const ENTRY_TYPES: ReadonlyArray<string> = [
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "usage",
  "context_edit"
]

/** The code of each of {@link ENTRY_TYPES} in the row table. */
export const TYPE_CODES: ReadonlyMap<string, number> = new Map(ENTRY_TYPES.map((type, i) => [type, i + 1]))

/** A row the bounded open reads: its line number, byte offset and length (no newline), id and kind. */
export interface RowRef {
  readonly line: number
  readonly offset: number
  readonly length: number
  /** The row's id (`""` for the header). */
  readonly id: string
  /** {@link KIND_OTHER}, {@link KIND_THINKING}, {@link KIND_MODEL} or {@link KIND_COMPACTION}. */
  readonly kind: number
}

/** A row that changes nothing a bounded open tracks. */
export const KIND_OTHER = 0
/** A `thinking_level_change`: sets the context's thinking level. */
export const KIND_THINKING = 1
/** A `model_change` or an assistant message: sets the context's model. */
export const KIND_MODEL = 2
/** A `compaction`. */
export const KIND_COMPACTION = 3

/** The file the index describes, as of the end it covers (a `FileSnapshot.Snapshot` plus the head's hash). */
export interface Watermark {
  /** Bytes covered: every line before this offset is indexed. */
  readonly size: number
  readonly dev: string
  readonly ino: string
  readonly mtimeNs: string
  /** Hex sha256 of the bytes `[size - tailLength, size)`. */
  readonly tailHash: string
  readonly tailLength: number
  /** Hex sha256 of the bytes `[0, headLength)` (the header line lives there). */
  readonly headHash: string
  readonly headLength: number
}

/** What a bounded open needs, as of the watermark. */
export interface Summary {
  readonly watermark: Watermark
  /** Lines covered (blank lines included). */
  readonly lineCount: number
  /** `false`: this session is only answered by a full read (the reason says why). */
  readonly bounded: boolean
  readonly reason?: string
  readonly header: RowRef | null
  readonly leafId: string | null
  readonly appendParentId: string | null
  readonly tailId: string | null
  readonly hasAssistant: boolean
  /** The active path from the last compaction's kept entry (or from the root) to the leaf. */
  readonly segment: ReadonlyArray<RowRef>
  /** Index in `segment` of the last compaction on the path; -1: none (the segment starts at the root). */
  readonly compactionAt: number
  /** The last thinking-level and model rows of the path before the segment (they settle the context's settings). */
  readonly before: ReadonlyArray<RowRef>
  /** Every resolved label: `[target id, label, timestamp]`. */
  readonly labels: ReadonlyArray<readonly [string, string, string]>
  /** The latest `session_info` row (any branch). */
  readonly sessionInfo: RowRef | null
  readonly corrupt: ReadonlyArray<CorruptReport>
  /** Each compaction of the file: `[row number (0-based line), firstKeptEntryId]`. */
  readonly compactions: ReadonlyArray<readonly [number, string | null]>
}

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

/** The bucket of a hash among `count` (a power of two): its top bits. */
export const bucketOf = (h: number, count: number): number => Math.floor(h / (0x10000000000000 / count))

/**
 * The bucket table of a sorted id set: for each bucket (and one past the last) the index of its
 * first hash and the crc32 of its hashes' bytes.
 */
export const bucketsOf = (ids: Float64Array): Uint32Array => {
  let count = 1
  while (count * BUCKET_HASHES < ids.length) count *= 2
  const table = new Uint32Array((count + 1) * 2)
  const bytes = new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength)
  let i = 0
  for (let b = 0; b <= count; b++) {
    const start = i
    while (i < ids.length && bucketOf(ids[i]!, count) === b) i++
    table[b * 2] = start
    table[b * 2 + 1] = b === count ? 0 : crc32(bytes.subarray(start * 8, i * 8))
  }
  return table
}

/** `true` when a bucket's bytes (of hashes sorted) hold `h`: `undefined` when they do not match their crc32. */
export const bucketHas = (bytes: Uint8Array, crc: number, h: number): boolean | undefined => {
  if (bytes.length % 8 !== 0 || crc32(bytes) !== crc) return undefined
  const copy = new Float64Array(bytes.length / 8)
  new Uint8Array(copy.buffer).set(bytes)
  return hasHash(copy, h)
}

/** The Bloom filter of an id set: {@link FILTER_BITS} bits per id (at least 2^16 bits): about 2% false "maybe"s. */
export const filterOf = (ids: Float64Array): Uint32Array => {
  const words = Math.max(2048, Math.ceil((ids.length * FILTER_BITS) / 32))
  const filter = new Uint32Array(words)
  for (let i = 0; i < ids.length; i++) probe(filter, ids[i]!, true)
  return filter
}

/** Sets (with `set`) or tests the bits of a hash in a filter; `false` only for a hash never set. */
export const probe = (filter: Uint32Array, h: number, set = false): boolean => {
  const bits = filter.length * 32
  const a = Math.floor(h / 0x100000) >>> 0
  const b = (Math.imul(h % 0x100000, 0x9e3779b1) | 1) >>> 0
  for (let i = 0; i < FILTER_PROBES; i++) {
    const bit = ((a + Math.imul(i, b)) >>> 0) % bits
    const word = bit >>> 5
    const m = 1 << (bit & 31)
    if (set) filter[word] = filter[word]! | m
    else if ((filter[word]! & m) === 0) return false
  }
  return true
}

/**
 * The bit that probe `i` of a hash tests in a filter of `bits` bits (as {@link probe}): bit `k`
 * of the filter is bit `k & 7` of its byte `k >>> 3` (the words are little endian).
 */
export const probeBit = (h: number, i: number, bits: number): number => {
  const a = Math.floor(h / 0x100000) >>> 0
  const b = (Math.imul(h % 0x100000, 0x9e3779b1) | 1) >>> 0
  return ((a + Math.imul(i, b)) >>> 0) % bits
}

/** The row table from its bytes (`undefined` when its checksum is wrong). */
export const decodeRows = (head: Head, bytes: Uint8Array): Uint8Array | undefined =>
  bytes.length === head.rowCount * ROW_BYTES && crc32(bytes) === head.crcRows ? bytes : undefined

/** `true` for a well-formed {@link RowRef}. */
export const isRowRef = (u: unknown): u is RowRef => {
  const r = u as RowRef
  return typeof r === "object" && r !== null && Number.isSafeInteger(r.line) && Number.isSafeInteger(r.offset) &&
    Number.isSafeInteger(r.length) && r.length >= 0 && r.offset >= 0 && typeof r.id === "string" &&
    Number.isInteger(r.kind)
}

/** `true` for a well-formed {@link Summary}. */
export const isSummary = (u: unknown): u is Summary => {
  const s = u as Summary
  if (typeof s !== "object" || s === null || typeof s.watermark !== "object" || s.watermark === null) return false
  const w = s.watermark
  return Number.isSafeInteger(w.size) && typeof w.dev === "string" && typeof w.ino === "string" &&
    typeof w.mtimeNs === "string" && typeof w.tailHash === "string" && Number.isSafeInteger(w.tailLength) &&
    typeof w.headHash === "string" && Number.isSafeInteger(w.headLength) && Number.isSafeInteger(s.lineCount) &&
    typeof s.bounded === "boolean" && (s.header === null || isRowRef(s.header)) &&
    (s.leafId === null || typeof s.leafId === "string") &&
    (s.appendParentId === null || typeof s.appendParentId === "string") &&
    (s.tailId === null || typeof s.tailId === "string") && typeof s.hasAssistant === "boolean" &&
    Array.isArray(s.segment) && s.segment.every(isRowRef) && Number.isInteger(s.compactionAt) &&
    s.compactionAt >= -1 && s.compactionAt < Math.max(1, s.segment.length) &&
    Array.isArray(s.before) && s.before.every(isRowRef) && Array.isArray(s.labels) &&
    s.labels.every((l) => Array.isArray(l) && l.length === 3 && l.every((x) => typeof x === "string")) &&
    (s.sessionInfo === null || isRowRef(s.sessionInfo)) && Array.isArray(s.corrupt) && Array.isArray(s.compactions)
}

/** FNV-1a (32 bits) of a string's UTF-16 code units, from a seed. */
const fnv = (text: string, seed: number): number => {
  let h = seed
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** The 32-bit hash of an id in the row table. */
export const hash32 = (id: string): number => fnv(id, 0x811c9dc5)

/** The 52-bit hash of an id in the id set (two seeds, exact in a float64): its top 32 bits are {@link hash32}. */
export const hash52 = (id: string): number => {
  // both seeds in one pass over the id (the same values as `fnv` of each)
  let a = 0x811c9dc5
  let b = 0x2f6b1d3d
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193)
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff)
}

/** {@link hash32} of a {@link hash52}. */
export const top32 = (h52: number): number => Math.floor(h52 / 0x100000) >>> 0

/** The position of this hash in a sorted id set, `-1` when the set does not hold it. */
export const indexOfHash = (ids: Float64Array, h: number): number => {
  let lo = 0
  let hi = ids.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = ids[mid]!
    if (v === h) return mid
    if (v < h) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/** `true` when a sorted id set holds this hash. */
export const hasHash = (ids: Float64Array, h: number): boolean => indexOfHash(ids, h) !== -1

/** Row table tags (the parsed line's kind). */
export const TAG = { Blank: 0, Header: 1, Entry: 2, LeafControl: 3, Opaque: 4, Corrupt: 5 } as const
