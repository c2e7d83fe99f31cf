/**
 * The bucket table of the sidecar index's id set: it sends a "maybe" of the id filter to the one
 * bucket of the set its hash can be in, each bucket with its crc32 (a read of a few hundred bytes
 * instead of the whole set). Pure functions of bytes and numbers: no reads.
 */
import * as PathIndex from "@branchlog/session-store/PathIndex"
import { crc32 } from "../crc32.js"

/** Hashes per bucket of the id set, about (a power of two of buckets). */
export const BUCKET_HASHES = 256

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
  return PathIndex.hasHash(copy, h)
}
