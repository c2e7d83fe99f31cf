/**
 * The id set of a path index (see `format.ts`): the 52-bit hashes of a session's ids, sorted, and
 * the Bloom filter over them that answers "certainly not held" for most ids. Pure functions of
 * bytes and numbers: no reads. (The JSONL sidecar index adds a bucket table with checksums.)
 */
/** Probes of the id filter per id. */
export const FILTER_PROBES = 5

/** Bits of the id filter per id (about 2% false "maybe"s, each checked against one bucket of the id set). */
export const FILTER_BITS = 8

/** The Bloom filter of an id set: {@link FILTER_BITS} bits per id (at least 2^16 bits): about 2% false "maybe"s. */
export const filterOf = (ids: Float64Array): Uint32Array => {
  const words = Math.max(2048, Math.ceil((ids.length * FILTER_BITS) / 32))
  const filter = new Uint32Array(words)
  for (let i = 0; i < ids.length; i++) probe(filter, ids[i]!, true)
  return filter
}

/**
 * Sets (with `set`) or tests the bits of a hash in a filter of `probes` probes per hash (default the
 * index's {@link FILTER_PROBES}); `false` only for a hash never set.
 */
export const probe = (filter: Uint32Array, h: number, set = false, probes = FILTER_PROBES): boolean => {
  const bits = filter.length * 32
  const a = Math.floor(h / 0x100000) >>> 0
  const b = (Math.imul(h % 0x100000, 0x9e3779b1) | 1) >>> 0
  for (let i = 0; i < probes; i++) {
    const bit = ((a + Math.imul(i, b)) >>> 0) % bits
    const word = bit >>> 5
    const m = 1 << (bit & 31)
    if (set) filter[word] = filter[word]! | m
    else if ((filter[word]! & m) === 0) return false
  }
  return true
}

/**
 * The bits that the probes of a hash test in a filter of `bits` bits (as {@link probe}), written
 * to `out` from `at` ({@link FILTER_PROBES} of them): bit `k` of the filter is bit `k & 7` of its
 * byte `k >>> 3` (the words are little endian).
 */
export const probeBits = (h: number, bits: number, out: Float64Array, at: number): void => {
  const a = Math.floor(h / 0x100000) >>> 0
  const b = (Math.imul(h % 0x100000, 0x9e3779b1) | 1) >>> 0
  for (let i = 0; i < FILTER_PROBES; i++) out[at + i] = ((a + Math.imul(i, b)) >>> 0) % bits
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
