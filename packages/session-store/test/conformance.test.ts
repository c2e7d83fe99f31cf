/**
 * The store conformance suite against the JSONL backend (real temporary folders) and the memory
 * stand-in (one in-memory volume). `pnpm conformance` counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { expect, test } from "vitest"

Conformance.suite(Conformance.jsonl())
Conformance.suite(Conformance.memory())

// outside the backends' blocks (not counted by `pnpm conformance`): the suite keeps its size
test("the suite holds at least 64 cases, each named once", () => {
  const names = Conformance.groups().flatMap((group) => group.cases.map((c) => `${group.name} > ${c.name}`))
  expect(Conformance.caseCount()).toBeGreaterThanOrEqual(64)
  expect(new Set(names).size).toBe(names.length)
})
