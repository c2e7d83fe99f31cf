/**
 * The store conformance suite against the in-memory backend `MemoryStore` (`memory`: rows in plain
 * state, no filesystem at all), given the reference fixtures (the JSONL backends run it in
 * `@branchlog/store-jsonl`, the SQL ones in theirs).
 * `pnpm conformance` counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import { expect, test } from "vitest"

const all = fixtures()
Conformance.suite(Conformance.memory(), { fixtures: all })

// outside the backends' blocks (not counted by `pnpm conformance`): the suite keeps its size
test("the suite holds at least 64 cases, each named once", () => {
  const names = Conformance.groups().flatMap((group) => group.cases.map((c) => `${group.name} > ${c.name}`))
  expect(Conformance.caseCount()).toBeGreaterThanOrEqual(64)
  expect(new Set(names).size).toBe(names.length)
})

test("the reference fixtures the suite stores are found (at least 10)", () => {
  expect(all.length).toBeGreaterThanOrEqual(10)
})
