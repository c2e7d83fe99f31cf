/**
 * The hashed window of a snapshot (the last bytes of a file), extended after an append without an
 * allocation per write: windows live in buffers of 64 KiB, and a window that ends where its
 * buffer's used part ends is extended in place (the bytes written go right after it, and the new
 * window is a view of the same buffer). Bytes already in a buffer are never changed, so every
 * window handed out stays what it was; a window that does not end there (another window was
 * extended from it, or it is not ours) is copied into a fresh buffer. A typed array of more than
 * a few dozen bytes has its memory outside the JavaScript heap, and allocating one costs
 * microseconds: a writer that takes the lock per append would pay that twice per write.
 */

const encoder = new TextEncoder()

/** Buffers made here, with how many of their bytes are in use. */
const used = new WeakMap<ArrayBufferLike, number>()

const BUFFER_BYTES = 64 * 1024

/** The UTF-8 length of `data` (a string) or its length (bytes). */
export const lengthOf = (data: string | Uint8Array): number =>
  typeof data === "string" ? Buffer.byteLength(data) : data.length

const put = (target: Uint8Array, at: number, data: string | Uint8Array): void => {
  if (typeof data === "string") encoder.encodeInto(data, target.subarray(at))
  else target.set(data, at)
}

/**
 * The last `want` bytes of `previous` followed by `data` (`length` bytes; `want` at most
 * `previous.length + length`).
 */
export const extend = (
  previous: Uint8Array | undefined,
  data: string | Uint8Array,
  length: number,
  want: number
): Uint8Array => {
  if (length >= want) {
    const bytes = typeof data === "string" ? encoder.encode(data) : data
    return bytes.subarray(bytes.length - want)
  }
  const kept = want - length
  if (previous !== undefined) {
    const buffer = previous.buffer
    const end = previous.byteOffset + previous.length
    const inUse = used.get(buffer)
    if (inUse === end && end + length <= buffer.byteLength) {
      put(new Uint8Array(buffer, end, length), 0, data)
      used.set(buffer, end + length)
      return new Uint8Array(buffer, end + length - want, want)
    }
  }
  const fresh = new Uint8Array(Math.max(BUFFER_BYTES, 4 * want))
  if (kept > 0) fresh.set(previous!.subarray(previous!.length - kept), 0)
  put(fresh, kept, data)
  used.set(fresh.buffer, want)
  return fresh.subarray(0, want)
}
