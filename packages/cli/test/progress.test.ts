/** The progress bar: drawn only on a terminal, at most every REDRAW_MS and always at the last step. */
import { describe, expect, it } from "vitest"
import { progressBar, REDRAW_MS } from "../src/internal/progress.js"

const stream = (isTTY: boolean) => {
  const writes: Array<string> = []
  return { writes, isTTY, write: (text: string) => writes.push(text) }
}

describe("progressBar", () => {
  it("draws 10,000 steps in a few writes, the last one always", () => {
    const out = stream(true)
    let clock = 0
    const bar = progressBar("reading", out, () => clock)
    for (let i = 1; i <= 10_000; i++) {
      clock += 0.01 // 100 ms in all
      bar.update(i, 10_000)
    }
    bar.end()
    expect(out.writes.length).toBeLessThanOrEqual(4 + 1)
    expect(out.writes.at(-2)).toBe(`\rreading [${"#".repeat(30)}] 10000/10000`)
    expect(out.writes.at(-1)).toBe("\r\u001b[K")
  })

  it("draws again once REDRAW_MS passed, and nothing off a terminal", () => {
    const out = stream(true)
    let clock = 1000
    const bar = progressBar("x", out, () => clock)
    bar.update(1, 10)
    bar.update(2, 10)
    clock += REDRAW_MS
    bar.update(3, 10)
    expect(out.writes.map((w) => w.split("] ")[1])).toEqual(["1/10", "3/10"])
    const off = stream(false)
    const quiet = progressBar("x", off, () => clock)
    quiet.update(10, 10)
    quiet.end()
    expect(off.writes).toEqual([])
  })
})
