/** The command's logger: a notice goes to the Console's `error` with its level; an object is shown by `util.inspect`. */
import { describe, expect, it } from "@effect/vitest"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import { inspect } from "node:util"
import { stderrLogger } from "../src/internal/logger.js"

/** Runs `effect` with only the command's logger, and returns what it wrote through `console.error`. */
const errorsOf = <A>(effect: Effect.Effect<A>) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    const console = yield* Effect.console
    yield* effect.pipe(
      Effect.locally(FiberRef.currentLoggers, HashSet.make(stderrLogger)),
      Effect.withConsole({
        ...console,
        error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void written.push(args.join(" "))),
        unsafe: {
          ...console.unsafe,
          error: (...args: ReadonlyArray<unknown>) => void written.push(args.join(" "))
        }
      } as Console.Console)
    )
    return written
  })

describe("stderrLogger", () => {
  it.effect("writes a string as it is and an object as util.inspect shows it, with the level", () =>
    Effect.gen(function*() {
      const value = { path: "/s/x.jsonl", nested: { depth: [1, 2, 3] } }
      const written = yield* errorsOf(Effect.logWarning("lock taken over:", value))
      expect(written).toEqual([`branchlog: warn: lock taken over: ${inspect(value, { depth: 4 })}`])
    }))
})
