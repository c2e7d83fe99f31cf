/**
 * CRC-32 (ISO-HDLC, zlib's): `node:zlib`'s `crc32` where the running Node has it (20.15 and later,
 * 22.2 and later), else a table-driven one in JavaScript that gives the same values. `node:zlib`
 * is imported as a namespace: a named import of a missing `crc32` fails the whole module graph at
 * link time on Node 20.11–20.14.
 */
import * as zlib from "node:zlib"

type Crc32 = (data: string | Uint8Array, value?: number) => number

let table: Uint32Array | undefined

const makeTable = (): Uint32Array => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
}

const encoder = new TextEncoder()

/** The JavaScript CRC-32 (exported for the tests that compare it with zlib's). */
export const crc32Js: Crc32 = (data, value = 0) => {
  const t = table ??= makeTable()
  const bytes = typeof data === "string" ? encoder.encode(data) : data
  let crc = (value ^ 0xffffffff) >>> 0
  for (let i = 0; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

const native = (zlib as { readonly crc32?: Crc32 }).crc32

/** The CRC-32 of `data` (a string is its UTF-8 bytes), continuing from `value`. */
export const crc32: Crc32 = typeof native === "function" ? native : crc32Js
