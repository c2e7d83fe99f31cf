/**
 * The store conformance suite against the JSONL backend over real temporary folders (`jsonl`), the
 * in-memory backend `MemoryStore` (`memory`: rows in plain state, no filesystem at all), and the
 * JSONL backend over one in-memory volume (`jsonl-memfs`), each given the reference fixtures.
 * `pnpm conformance` counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import { expect, test } from "vitest"

const all = fixtures()
Conformance.suite(Conformance.jsonl(), { fixtures: all })
Conformance.suite(Conformance.memory(), { fixtures: all })
Conformance.suite(Conformance.jsonlMemfs(), { fixtures: all })

// outside the backends' blocks (not counted by `pnpm conformance`): the suite keeps its size
test("the suite holds at least 64 cases, each named once", () => {
  const names = Conformance.groups().flatMap((group) => group.cases.map((c) => `${group.name} > ${c.name}`))
  expect(Conformance.caseCount()).toBeGreaterThanOrEqual(64)
  expect(new Set(names).size).toBe(names.length)
})

test("the reference fixtures the suite stores are found (at least 10)", () => {
  expect(all.length).toBeGreaterThanOrEqual(10)
})
