/**
 * The UTF-8 check of `fsck` (`internal/repair/utf8.ts`) against Node's own validator and decoder:
 * for any bytes, `firstInvalid` is -1 exactly when `buffer.isUtf8` accepts them, the bytes before
 * it are valid, and the sequence at it is what a fatal `TextDecoder` refuses; a line split into
 * pieces anywhere (a multi-byte character cut between two reads) gives the same answer.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isUtf8 } from "node:buffer"
import { firstInvalid, invalidAt } from "../src/internal/repair/utf8.js"

/** Bytes that are mostly UTF-8: characters of every length, with now and then a stray byte or an edge of a range. */
const mostlyUtf8 = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: "binary", maxLength: 6 }).map((s) => [...Buffer.from(s)]) },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }) },
    // the edges of the ranges: overlong forms, surrogates, the last code points
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        [0xc0, 0x80],
        [0xc2, 0x80],
        [0xe0, 0x80, 0x80],
        [0xe0, 0xa0, 0x80],
        [0xed, 0x9f, 0xbf],
        [0xed, 0xa0, 0x80],
        [0xf0, 0x8f, 0xbf, 0xbf],
        [0xf0, 0x90, 0x80, 0x80],
        [0xf4, 0x8f, 0xbf, 0xbf],
        [0xf4, 0x90, 0x80, 0x80]
      )
    }
  ),
  { maxLength: 40 }
).map((parts) => Uint8Array.from(parts.flat()))

const fatal = new TextDecoder("utf-8", { fatal: true })
const decodes = (bytes: Uint8Array) => {
  try {
    fatal.decode(bytes)
    return true
  } catch {
    return false
  }
}

describe("the UTF-8 check of fsck", () => {
  it("agrees with buffer.isUtf8 and a fatal TextDecoder on any bytes", () => {
    fc.assert(
      fc.property(mostlyUtf8, (bytes) => {
        const at = firstInvalid(bytes)
        expect(at === -1).toBe(isUtf8(bytes))
        if (at !== -1) {
          // what comes before is valid; the bytes from `at` on are not
          expect(isUtf8(bytes.subarray(0, at))).toBe(true)
          expect(decodes(bytes.subarray(at))).toBe(false)
        }
      }),
      { numRuns: 3000 }
    )
  })

  it("gives the same answer for a line in pieces, cut anywhere", () => {
    fc.assert(
      fc.property(mostlyUtf8, fc.array(fc.nat(), { maxLength: 4 }), (bytes, cutsAt) => {
        const cuts = [...new Set(cutsAt.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
        const pieces: Array<Uint8Array> = []
        let from = 0
        for (const c of [...cuts, bytes.length]) {
          pieces.push(bytes.subarray(from, c))
          from = c
        }
        expect(invalidAt(pieces)).toBe(firstInvalid(bytes))
      }),
      { numRuns: 3000 }
    )
  })

  it("names the first byte of each kind of invalid sequence", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<number>, number]> = [
      [[0x61, 0xff], 1], // never in UTF-8
      [[0xc0, 0x80], 0], // overlong
      [[0xe0, 0x80, 0x80], 0], // overlong, three bytes
      [[0x61, 0xed, 0xa0, 0x80], 1], // a surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
      [[0x61, 0x62, 0xe2, 0x9c], 2], // cut at the end
      [[0xe2, 0x9c, 0x93, 0xf0, 0x9f, 0x98, 0x80], -1] // ✓ 😀
    ]
    for (const [bytes, at] of cases) expect(firstInvalid(Uint8Array.from(bytes)), JSON.stringify(bytes)).toBe(at)
  })
})
