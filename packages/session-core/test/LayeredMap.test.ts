import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { LayeredMap } from "../src/internal/layeredMap.js"

type Op =
  | { readonly op: "set"; readonly target: number; readonly key: string; readonly value: number }
  | { readonly op: "delete"; readonly target: number; readonly key: string }
  | { readonly op: "fork"; readonly target: number }

const key = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h")
const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant("set" as const), target: fc.nat(7), key, value: fc.integer() }),
    fc.record({ op: fc.constant("delete" as const), target: fc.nat(7), key }),
    fc.record({ op: fc.constant("fork" as const), target: fc.nat(7) })
  ),
  { maxLength: 200 }
)

/** Runs the same operations on layered maps and on plain maps (the model), forks copying the model. */
const run = (steps: ReadonlyArray<Op>) => {
  const maps: Array<LayeredMap<string, number>> = [new LayeredMap()]
  const models: Array<Map<string, number>> = [new Map()]
  for (const step of steps) {
    const i = step.target % maps.length
    const map = maps[i]!
    const model = models[i]!
    switch (step.op) {
      case "set":
        expect(map.add(step.key, step.value)).toBe(!model.has(step.key))
        model.set(step.key, step.value)
        break
      case "delete":
        expect(map.delete(step.key)).toBe(model.delete(step.key))
        break
      case "fork":
        maps.push(map.fork())
        models.push(new Map(model))
        break
    }
  }
  return { maps, models }
}

describe("LayeredMap", () => {
  it("answers like a plain Map for every fork, whatever is written on either side after it", () => {
    fc.assert(
      fc.property(ops, (steps) => {
        const { maps, models } = run(steps)
        for (const [i, map] of maps.entries()) {
          const model = models[i]!
          expect(map.size).toBe(model.size)
          expect(new Map(map)).toEqual(model)
          for (const k of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
            expect(map.get(k)).toBe(model.get(k))
            expect(map.has(k)).toBe(model.has(k))
          }
        }
      }),
      { numRuns: 500 }
    )
  })

  it("iterates in first-insertion order, as a Map does, across layers", () => {
    const map = new LayeredMap<string, number>()
    map.set("x", 1).set("y", 2)
    const copy = map.fork()
    map.set("z", 3).set("x", 10)
    copy.set("w", 4)
    expect([...map.keys()]).toEqual(["x", "y", "z"])
    expect([...map.values()]).toEqual([10, 2, 3])
    expect([...copy.entries()]).toEqual([["x", 1], ["y", 2], ["w", 4]])
    const seen: Array<string> = []
    copy.forEach((_, k) => seen.push(k))
    expect(seen).toEqual(["x", "y", "w"])
  })

  it("keeps few layers when forked after every small batch (merging as a log-structured index)", () => {
    const map = new LayeredMap<number, number>()
    for (let i = 0; i < 100_000; i++) map.set(i, i)
    let copy = map.fork()
    let depthMax = 0
    for (let batch = 0; batch < 200; batch++) {
      for (let i = 0; i < 1000; i++) copy.set(100_000 + batch * 1000 + i, i)
      copy = copy.fork()
      depthMax = Math.max(depthMax, copy.depth)
    }
    expect(copy.size).toBe(300_000)
    expect(copy.get(5)).toBe(5)
    expect(copy.get(299_999)).toBe(999)
    expect(depthMax).toBeLessThanOrEqual(Math.ceil(Math.log2(300)) + 1)
  })

  it("never changes a map it was forked from, nor one forked from it", () => {
    const base = new LayeredMap<string, number>()
    base.set("a", 1)
    const left = base.fork()
    const right = base.fork()
    left.set("a", 2)
    right.delete("a")
    base.set("b", 3)
    expect([...base]).toEqual([["a", 1], ["b", 3]])
    expect([...left]).toEqual([["a", 2]])
    expect([...right]).toEqual([])
    expect(right.size).toBe(0)
  })
})
