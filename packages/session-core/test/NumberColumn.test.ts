import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { NumberColumn } from "../src/internal/column.js"

// pushes of up to 3,000 numbers at once: the columns cross several 4,096-number chunks
const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant("push" as const), target: fc.nat(5), count: fc.nat(3000), value: fc.double() }),
    fc.record({ op: fc.constant("set" as const), target: fc.nat(5), at: fc.nat(), value: fc.double() }),
    fc.record({ op: fc.constant("fork" as const), target: fc.nat(5) })
  ),
  { maxLength: 40 }
)

describe("NumberColumn", () => {
  it("answers as an array under pushes, writes and forks (each fork copy-on-write, no write leaking)", () => {
    fc.assert(
      fc.property(ops, (steps) => {
        const columns = [new NumberColumn()]
        const models: Array<Array<number>> = [[]]
        for (const step of steps) {
          const i = step.target % columns.length
          const column = columns[i]!
          const model = models[i]!
          if (step.op === "push") {
            for (let k = 0; k < step.count; k++) {
              column.push(step.value + k)
              model.push(step.value + k)
            }
          } else if (step.op === "set") {
            if (model.length === 0) continue
            const at = step.at % model.length
            column.set(at, step.value)
            model[at] = step.value
          } else {
            columns.push(column.fork())
            models.push([...model])
          }
        }
        for (const [i, column] of columns.entries()) {
          expect(column.length).toBe(models[i]!.length)
          expect(column.toArray()).toEqual(models[i])
        }
      }),
      { numRuns: 60 }
    )
  })

  it("keeps byte offsets beyond 2 GiB exact", () => {
    const column = new NumberColumn()
    column.push(2 ** 40 + 3)
    expect(column.fork().get(0)).toBe(2 ** 40 + 3)
  })
})
