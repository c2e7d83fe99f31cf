/**
 * Typed-array helpers of the outline's replay (`outline.ts`): the row table as 32-bit words, and
 * a lookup from 32-bit hashes to rows as two sorted arrays (a radix sort, no object per row).
 */
import * as Format from "./format.js"

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1

/** Words of a row record: {@link Format.ROW_BYTES} / 4. */
export const ROW_WORDS = Format.ROW_BYTES / 4

/**
 * The row table as little-endian 32-bit words (a view when the bytes allow it, else a copy): word
 * 3 of a row is its id hash, word 4 its parent hash, word 5 its tag, type, flags and has-parent bytes.
 */
export const words = (rows: Uint8Array): Uint32Array => {
  const count = rows.length / 4
  if (LITTLE_ENDIAN && rows.byteOffset % 4 === 0) return new Uint32Array(rows.buffer, rows.byteOffset, count)
  const out = new Uint32Array(count)
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength)
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * 4, true)
  return out
}

/** 32-bit keys sorted with their rows: `find` gives the row of a key, or -1. */
export interface SortedKeys {
  readonly keys: Uint32Array
  readonly rows: Int32Array
}

/**
 * Sorts `keys` (and `rows` with them) in place: a least-significant-digit radix sort, two passes of
 * 16 bits, through `scratch` when given (arrays at least as long, overwritten) or two allocated.
 */
export const sortPairs = (
  keys: Uint32Array,
  rows: Int32Array,
  scratch?: { readonly keys: Uint32Array; readonly rows: Int32Array }
): SortedKeys => {
  const m = keys.length
  let k1 = keys
  let r1 = rows
  let k2: Uint32Array = scratch === undefined ? new Uint32Array(m) : scratch.keys.subarray(0, m)
  let r2: Int32Array = scratch === undefined ? new Int32Array(m) : scratch.rows.subarray(0, m)
  const counts = new Int32Array(65537)
  for (let shift = 0; shift < 32; shift += 16) {
    counts.fill(0)
    for (let i = 0; i < m; i++) counts[((k1[i]! >>> shift) & 0xffff) + 1]! += 1
    for (let b = 0; b < 65536; b++) counts[b + 1]! += counts[b]!
    for (let i = 0; i < m; i++) {
      const at = counts[(k1[i]! >>> shift) & 0xffff]!++
      k2[at] = k1[i]!
      r2[at] = r1[i]!
    }
    const k = k1
    k1 = k2
    k2 = k
    const r = r1
    r1 = r2
    r2 = r
  }
  return { keys: k1, rows: r1 }
}

/** The position of `h` in sorted `keys`, or -1. */
export const search = (keys: Uint32Array, h: number): number => {
  let lo = 0
  let hi = keys.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = keys[mid]!
    if (v === h) return mid
    if (v < h) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
