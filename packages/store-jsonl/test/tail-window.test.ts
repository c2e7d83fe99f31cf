/**
 * The snapshot window extended in place (`internal/tailWindow.ts`): every window handed out keeps
 * its bytes whatever is extended after it, a window extended twice (two snapshots after one) gives
 * two right answers, and each answer is the last bytes of everything written, as a plain copy
 * would give.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { extend, lengthOf } from "../src/internal/tailWindow.js"

const bytesOf = (text: string) => new TextEncoder().encode(text)

/** The last `want` bytes of `previous` and `data`, by plain copying. */
const model = (previous: Uint8Array, data: Uint8Array, want: number): Uint8Array => {
  const all = new Uint8Array(previous.length + data.length)
  all.set(previous, 0)
  all.set(data, previous.length)
  return all.slice(all.length - want)
}

describe("tail window", () => {
  it("matches a plain copy, and no window handed out changes afterwards (random writes, branches)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ text: fc.string({ unit: "grapheme", maxLength: 300 }), from: fc.nat(), asBytes: fc.boolean() }),
          {
            minLength: 1,
            maxLength: 200
          }
        ),
        fc.integer({ min: 1, max: 5000 }),
        (writes, tailBytes) => {
          const windows: Array<{ readonly view: Uint8Array; readonly copy: Uint8Array }> = []
          for (const write of writes) {
            // extend the latest window mostly, sometimes an older one (two snapshots after one)
            const base = windows.length === 0 ? undefined : windows[Math.max(0, windows.length - 1 - (write.from % 3))]!
            const data = write.asBytes ? bytesOf(write.text) : write.text
            const length = lengthOf(data)
            const previous = base?.view ?? new Uint8Array(0)
            const want = Math.min(tailBytes, previous.length + length)
            const view = extend(base?.view, data, length, want)
            const expected = model(previous, bytesOf(write.text), want)
            expect(Array.from(view)).toEqual(Array.from(expected))
            windows.push({ view, copy: view.slice() })
          }
          for (const w of windows) expect(Array.from(w.view)).toEqual(Array.from(w.copy))
        }
      ),
      { numRuns: 200 }
    )
  })
})
