/**
 * The store conformance suite against the SQLite store (`sqlite`): databases in a temporary
 * folder, given the reference fixtures. `pnpm conformance` counts this file's results.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import { afterAll, expect, test } from "vitest"
import { sqlite } from "./support/backend.js"

const backend = sqlite()
const all = fixtures()
Conformance.suite(backend, { fixtures: all })
afterAll(() => Effect.runPromise(backend.close))

// outside the backend's block (not counted by `pnpm conformance`): the fixtures were found
test("the reference fixtures the suite stores are found (at least 10)", () => {
  expect(all.length).toBeGreaterThanOrEqual(10)
})
