/** `oneLine` (the one-line previews of tree, show, ls): collapsing only the start of a long text gives what collapsing all of it gives. */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { oneLine } from "../src/internal/summary.js"

/** The definition: every white space run collapsed, trimmed, cut to `width`. */
const reference = (text: string, width: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

const piece = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(" ", "  ", "\n", "\t \n", "\u00a0", "\u2028", "\u3000", "\ufeff", " ".repeat(300), "\n".repeat(90)),
  fc.string({ unit: "grapheme", maxLength: 6 })
)

describe("oneLine", () => {
  it("equals collapsing the whole text, for any text and width", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), fc.integer({ min: 1, max: 200 }), (pieces, width) => {
        const text = pieces.join("")
        expect(oneLine(text, width)).toBe(reference(text, width))
      }),
      { numRuns: 2000 }
    )
  })

  it("long texts: leading white space, a cut inside a run, nothing but white space", () => {
    for (const width of [1, 16, 60, 72]) {
      for (
        const text of [
          " ".repeat(width + 100) + "x".repeat(500),
          "a".repeat(width + 47) + " ".repeat(500) + "b",
          " \n".repeat(1000),
          "a b ".repeat(1000)
        ]
      ) expect(oneLine(text, width)).toBe(reference(text, width))
    }
  })
})
