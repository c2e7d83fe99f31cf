/**
 * The store conformance suite against the JSONL backend over real temporary folders (`jsonl`) and
 * over one in-memory volume (`jsonl-memfs`), each given the reference fixtures. `pnpm conformance`
 * counts this file's results per backend.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import { expect, test } from "vitest"
import { jsonl, jsonlMemfs } from "../src/testing.js"

const all = fixtures()
Conformance.suite(jsonl(), { fixtures: all })
Conformance.suite(jsonlMemfs(), { fixtures: all })

// outside the backends' blocks (not counted by `pnpm conformance`)
test("the reference fixtures the suite stores are found (at least 10)", () => {
  expect(all.length).toBeGreaterThanOrEqual(10)
})
