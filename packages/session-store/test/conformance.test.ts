/**
 * The store conformance suite against the JSONL backend (real temporary folders), the JSONL backend
 * over one in-memory volume (`memory`), and the in-memory row backend `MemoryStore` (`rows`: no
 * filesystem at all). `pnpm conformance` counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { expect, test } from "vitest"

Conformance.suite(Conformance.jsonl())
Conformance.suite(Conformance.memory())
Conformance.suite(Conformance.rows())

// outside the backends' blocks (not counted by `pnpm conformance`): the suite keeps its size
test("the suite holds at least 64 cases, each named once", () => {
  const names = Conformance.groups().flatMap((group) => group.cases.map((c) => `${group.name} > ${c.name}`))
  expect(Conformance.caseCount()).toBeGreaterThanOrEqual(64)
  expect(new Set(names).size).toBe(names.length)
})
