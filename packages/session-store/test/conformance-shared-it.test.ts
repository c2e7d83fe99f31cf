/**
 * Registering the conformance suite leaves `@effect/vitest`'s shared `it` as it was: the test files
 * of a package share one worker (`isolate: false`), so a file that runs after a conformance file
 * must still get the test services (`TestClock`) from its own `it.effect`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { Conformance } from "../src/testing.js"

// registered and skipped: only the registration matters here, and it comes first, as a
// conformance file that ran earlier in the worker would
describe.skip("a conformance block registered before the test below", () => {
  Conformance.suite(Conformance.memory())
})

describe("@effect/vitest's it after a conformance block", () => {
  it.effect("still provides the TestClock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_234_567)
      expect(yield* Clock.currentTimeMillis).toBe(1_234_567)
    }))
})
