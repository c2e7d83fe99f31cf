/**
 * Inside `withWriteLock` every write uses the hold already taken, also when the store hands the
 * hold a reference object of its own (the same session, another object): no second hold per write.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as MemoryStore from "../src/MemoryStore.js"
import * as SessionManager from "../src/SessionManager.js"
import { TranscriptStore } from "../src/TranscriptStore.js"

describe("the manager's own hold", () => {
  it.effect("is used for every write inside withWriteLock, whatever reference object the store gives it", () => {
    let holds = 0
    const copying = Layer.effect(
      TranscriptStore,
      Effect.map(MemoryStore.make(), (inner) => ({
        ...inner,
        exclusive: (ref, use, options) => {
          holds += 1
          return inner.exclusive(ref, (held) => use({ ...held, ref: { ...held.ref } }), options)
        }
      }))
    )
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/w", "/place", { eagerFlush: true })
      const before = holds
      yield* sm.withWriteLock(Effect.gen(function*() {
        for (let i = 0; i < 5; i++) yield* sm.appendMessage({ role: "user", content: `m${i}`, timestamp: i })
      }))
      expect(holds - before).toBe(1)
      expect(sm.getEntries().length).toBe(5)
    }).pipe(Effect.provide(copying))
  })
})
