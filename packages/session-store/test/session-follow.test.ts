/**
 * SessionFollow over a store without `watch` (MemoryStore: polled): the rows another writer
 * appends arrive in order, none twice, a replace shows only what is new, and a
 * `TranscriptObserver` in context hears of each followed entry.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as MemoryStore from "../src/MemoryStore.js"
import * as SessionFollow from "../src/SessionFollow.js"
import * as SessionManager from "../src/SessionManager.js"
import * as SessionRef from "../src/SessionRef.js"
import { TranscriptObserver } from "../src/TranscriptObserver.js"

describe("SessionFollow (polled)", () => {
  it.live("another writer's entries arrive in order, none twice; the observer hears each", () => {
    const state = MemoryStore.makeState()
    const heard: Array<string> = []
    const observer = Layer.succeed(TranscriptObserver, {
      onAppend: (event) => Effect.sync(() => void heard.push(event.entry.id))
    })
    return Effect.gen(function*() {
      const writer = yield* SessionManager.create("/w", "/place", { eagerFlush: true }).pipe(
        Effect.provide(MemoryStore.layer(state))
      )
      const ref = writer.getSessionRef()!
      const first = yield* writer.appendCustomEntry("x", { n: 0 })
      const follower = yield* Effect.fork(
        Stream.runCollect(Stream.take(SessionFollow.follow(SessionRef.format(ref), { pollMs: 20 }), 6)).pipe(
          Effect.provide(Layer.merge(MemoryStore.layer(state), observer))
        )
      )
      yield* Effect.sleep("100 millis")
      const ids: Array<string> = []
      for (let i = 1; i <= 6; i++) {
        ids.push(yield* writer.appendCustomEntry("x", { n: i }))
        if (i % 2 === 0) yield* Effect.sleep("30 millis")
      }
      const got = Chunk.toArray(yield* Fiber.join(follower).pipe(Effect.timeout("30 seconds")))
      const gotIds = got.map((row) => row._tag === "Entry" ? row.entry.id : row._tag)
      expect(gotIds).toEqual(ids)
      expect(gotIds).not.toContain(first)
      expect(heard).toEqual(ids)
    })
  })

  it.live("after another writer replaces the session, only the entries not shown yet follow", () => {
    const state = MemoryStore.makeState()
    return Effect.gen(function*() {
      const writer = yield* SessionManager.create("/w", "/place", { eagerFlush: true }).pipe(
        Effect.provide(MemoryStore.layer(state))
      )
      const ref = writer.getSessionRef()!
      const a = yield* writer.appendCustomEntry("x", { n: 1 })
      const follower = yield* Effect.fork(
        Stream.runCollect(Stream.take(SessionFollow.follow(ref, { pollMs: 20 }), 2)).pipe(
          Effect.provide(MemoryStore.layer(state))
        )
      )
      yield* Effect.sleep("100 millis")
      const b = yield* writer.appendCustomEntry("x", { n: 2 })
      yield* Effect.sleep("100 millis")
      // another tool rewrites the session: the same rows plus a new one, under a new generation
      const stored = state.sessions.get(SessionRef.format(ref))!
      const c = JSON.stringify({
        type: "custom",
        customType: "x",
        id: "c0000001",
        parentId: b,
        timestamp: "2026-05-01T09:00:00.000Z",
        data: {}
      })
      stored.rows = [...stored.rows, c]
      stored.generation += 1
      const got = Chunk.toArray(yield* Fiber.join(follower).pipe(Effect.timeout("30 seconds")))
      expect(got.map((row) => row._tag === "Entry" ? row.entry.id : row._tag)).toEqual([b, "c0000001"])
      expect(got.map((row) => row._tag === "Entry" ? row.entry.id : "")).not.toContain(a)
    })
  })
})
