/**
 * The id questions of a bounded open and a catch-up, answered from a sidecar index without reading
 * its id set whole: the id filter (read once), then the one bucket of the id set a hash may be in
 * (one read for a batch of hashes, each bucket checked against its crc32), plus the ids the update
 * log added. Anything unreadable or damaged answers "maybe". The questions are synchronous (a
 * minted id, a bounded session's synchronous reads): the reads are the file service's synchronous
 * ones (`unsafeReadRanges`, `unsafeScanBytes`).
 */
import type { Line } from "@branchlog/session-core"
import * as Either from "effect/Either"
import { crc32 } from "../crc32.js"
import type { Env } from "../jsonl/env.js"
import * as Format from "./format.js"
import type { Head } from "./format.js"

/** Bytes of the id filter read at a time when a batch of hashes is checked in one pass over it. */
export const FILTER_PIECE = 64 * 1024

/**
 * Whether the indexed session may hold an id (by its 52-bit hash): the id filter first, then, for
 * a hash it may hold, that hash's one bucket of the id set (a read of a few hundred bytes, checked
 * against its crc32). A batch (`prefetch`: a catch-up's new ids) is checked in one pass over the
 * filter through a buffer of {@link FILTER_PIECE} bytes, which is not kept (1.4 MB of fresh memory
 * per open costs more than the reading, in page faults); a single question (a minted id) reads the
 * filter whole, once, and keeps it. Anything unreadable or damaged: "maybe".
 */
export const lazyIds = (env: Env, index: string, head: Head, logIds: ReadonlyArray<number>) => {
  const logged = new Set(logIds)
  let ids: Float64Array | undefined | null = null
  let filter: ReturnType<typeof Format.decodeFilter> | null = null
  const section = <A>(at: number, length: number, decode: (bytes: Uint8Array) => A | undefined) =>
    Either.match(env.files.unsafeReadRanges(index, [[at, length]]), {
      onLeft: () => undefined,
      onRight: (chunks) => decode(chunks[0]!)
    })
  const set = (): Float64Array | undefined => {
    if (ids === null) ids = section(head.idsAt, head.idCount * 8, (bytes) => Format.decodeIds(head, bytes))
    return ids
  }
  const answers = new Map<number, boolean>()
  const loadFilter = () => {
    if (filter === null) {
      filter = section(head.filterAt, head.baseEnd - head.filterAt, (bytes) => Format.decodeFilter(head, bytes))
    }
    return filter
  }
  /**
   * One pass over the filter and the bucket table through one small buffer, their crc32 checked:
   * sets `absent[k]` for each hash `hashes[k]` the filter does not hold, and gives the bucket
   * table (`undefined`: damaged or unreadable).
   */
  const pass = (hashes: Float64Array, absent: Uint8Array): Uint32Array | undefined => {
    const total = head.baseEnd - head.filterAt
    const bits = head.filterBytes * 8
    const pieceBits = FILTER_PIECE * 8
    const pieces = Math.ceil(head.filterBytes / FILTER_PIECE)
    const probes = hashes.length * Format.FILTER_PROBES
    // every probe's bit, and the probes in the order of the pieces they fall in (a counting sort)
    const bit = new Float64Array(probes)
    const starts = new Uint32Array(pieces + 1)
    for (let k = 0; k < hashes.length; k++) Format.probeBits(hashes[k]!, bits, bit, k * Format.FILTER_PROBES)
    for (let j = 0; j < probes; j++) starts[Math.floor(bit[j]! / pieceBits) + 1]!++
    for (let p = 0; p < pieces; p++) starts[p + 1]! += starts[p]!
    const order = new Uint32Array(probes)
    const fill = starts.slice(0, pieces)
    for (let j = 0; j < probes; j++) order[fill[Math.floor(bit[j]! / pieceBits)]!++] = j
    const found = new Uint8Array(hashes.length)
    const tableBytes = new Uint8Array((head.bucketCount + 1) * 8)
    let crc = 0
    const read = Either.getOrElse(
      env.files.unsafeScanBytes(index, head.filterAt, total, FILTER_PIECE, (piece, at) => {
        crc = crc32(piece, crc)
        const start = at - head.filterAt
        const p = start / FILTER_PIECE
        if (Number.isInteger(p) && p < pieces) {
          for (let o = starts[p]!; o < starts[p + 1]!; o++) {
            const j = order[o]!
            const b = bit[j]!
            if (((piece[Math.floor(b / 8) - start] ?? 0) & (1 << (b & 7))) === 0) {
              found[Math.floor(j / Format.FILTER_PROBES)] = 1
            }
          }
        }
        const from = Math.max(start, head.filterBytes)
        const to = Math.min(start + piece.length, total)
        if (to > from) tableBytes.set(piece.subarray(from - start, to - start), from - head.filterBytes)
      }),
      () => -1
    )
    if (read !== total || crc !== head.crcFilter) return undefined
    absent.set(found)
    return new Uint32Array(tableBytes.buffer)
  }
  /** Answers for hashes the filter may hold, from their buckets (near buckets in one read). */
  const fromBuckets = (buckets: Uint32Array, hashes: ReadonlyArray<number>): void => {
    const wanted = new Map<number, Array<number>>()
    for (const h of hashes) {
      const b = Format.bucketOf(h, head.bucketCount)
      const start = buckets[b * 2]!
      const end = buckets[b * 2 + 2]!
      if (start > end || end > head.idCount) answers.set(h, true)
      else if (start === end) answers.set(h, buckets[b * 2 + 1] !== 0)
      else {
        const list = wanted.get(b)
        if (list === undefined) wanted.set(b, [h])
        else list.push(h)
      }
    }
    if (wanted.size === 0) return
    const sorted = [...wanted.keys()].sort((a, b) => a - b)
    const chunks = Either.getOrUndefined(
      env.files.unsafeReadRanges(
        index,
        sorted.map((b) => {
          const start = buckets[b * 2]!
          return [head.idsAt + start * 8, (buckets[b * 2 + 2]! - start) * 8] as const
        })
      )
    )
    sorted.forEach((b, i) => {
      for (const h of wanted.get(b)!) {
        const chunk = chunks?.[i]
        answers.set(h, chunk === undefined ? true : Format.bucketHas(chunk, buckets[b * 2 + 1]!, h) ?? true)
      }
    })
  }
  // the answers to one batch (a catch-up's ids): its hashes sorted, and which of them the filter does not hold
  let batch: Float64Array | undefined
  let batchAbsent: Uint8Array | undefined
  /** `false` when the batch answered that the session does not hold `h`, `undefined` when the batch did not ask. */
  const fromBatch = (h: number): boolean | undefined => {
    const at = batch === undefined ? -1 : Format.indexOfHash(batch, h)
    return at !== -1 && batchAbsent![at] === 1 ? false : undefined
  }
  /**
   * Answers for a batch of hashes (a catch-up's ids): from the filter when it is held, else in one
   * pass over it; the few it may hold, from their buckets.
   */
  const prefetch = (hashes: ReadonlyArray<number>): void => {
    if (filter === undefined || hashes.length === 0) return
    const sorted = Float64Array.from(hashes).sort()
    let n = 0
    for (let i = 0; i < sorted.length; i++) {
      const h = sorted[i]!
      if ((n === 0 || sorted[n - 1] !== h) && (logged.size === 0 || !logged.has(h))) sorted[n++] = h
    }
    const todo = sorted.subarray(0, n)
    const absent = new Uint8Array(n)
    let buckets: Uint32Array | undefined
    if (filter !== null) {
      for (let k = 0; k < n; k++) if (!Format.probe(filter.filter, todo[k]!)) absent[k] = 1
      buckets = filter.buckets
    } else {
      buckets = pass(todo, absent)
      if (buckets === undefined) {
        // damaged or unreadable: every question goes to the id set
        filter = undefined
        return
      }
    }
    const maybe: Array<number> = []
    for (let k = 0; k < n; k++) if (absent[k] === 0 && !answers.has(todo[k]!)) maybe.push(todo[k]!)
    fromBuckets(buckets, maybe)
    batch = todo
    batchAbsent = absent
  }
  return {
    set,
    prefetch,
    mayHave: (h: number): boolean => {
      if (logged.size > 0 && logged.has(h)) return true
      const known = answers.get(h) ?? fromBatch(h)
      if (known !== undefined) return known
      const held = loadFilter()
      if (held === undefined) {
        const all = set()
        return all === undefined || Format.hasHash(all, h)
      }
      if (!Format.probe(held.filter, h)) {
        answers.set(h, false)
        return false
      }
      fromBuckets(held.buckets, [h])
      return answers.get(h) ?? true
    }
  }
}

/** The ids a catch-up of these rows may ask about: each row's id and each compaction's kept entry. */
export const idsOf = (parsed: ReadonlyArray<Line.ParsedLine>): Array<string> => {
  const out: Array<string> = []
  for (const p of parsed) {
    if (p._tag === "Entry") {
      out.push(p.entry.id)
      if (p.entry.type === "compaction" && typeof p.entry.firstKeptEntryId === "string") {
        out.push(p.entry.firstKeptEntryId)
      }
    } else if (p._tag === "LeafControl") out.push(p.control.id)
  }
  return out
}

/** Merges two sorted id sets. */
export const mergeIds = (a: Float64Array, b: Float64Array): Float64Array => {
  const out = new Float64Array(a.length + b.length)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.length || j < b.length) {
    const v = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!
    if (n === 0 || out[n - 1] !== v) out[n++] = v
  }
  return out.slice(0, n)
}
