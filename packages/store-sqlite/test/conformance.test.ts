/**
 * The store conformance suite against the SQLite store (`sqlite`): databases in a temporary
 * folder, given the reference fixtures. `pnpm conformance` counts this file's results.
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import { afterAll } from "vitest"
import { sqlite } from "./support/backend.js"

const backend = sqlite()
Conformance.suite(backend, { fixtures: fixtures() })
afterAll(() => Effect.runPromise(backend.close))
