/** The JavaScript CRC-32 (Node 20.11–20.14 have no `zlib.crc32`) gives zlib's values, chained too. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as zlib from "node:zlib"
import { crc32, crc32Js } from "../src/internal/crc32.js"

describe("crc32", () => {
  it("the JavaScript one equals zlib's on bytes, strings and chained pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: "grapheme" }), (bytes, text) => {
        expect(crc32Js(bytes)).toBe(zlib.crc32(bytes))
        expect(crc32Js(text)).toBe(zlib.crc32(text))
        const half = bytes.length >> 1
        expect(crc32Js(bytes.subarray(half), crc32Js(bytes.subarray(0, half)))).toBe(zlib.crc32(bytes))
      })
    )
    expect(crc32Js("123456789")).toBe(0xcbf43926)
  })

  it("is zlib's where the running Node has it", () => {
    expect(crc32).toBe(zlib.crc32)
  })
})
