/**
 * The store bridge: session-store's SessionManager, with `StoreBridge.layer` providing its
 * `TranscriptObserver`, publishes exactly one transcript update per written entry, with increasing
 * `messageSeq` for messages; without the observer nothing is published.
 */
import { Messages } from "@branchlog/session-core/testing"
import { SessionManager } from "@branchlog/session-store"
import * as TestingStore from "@branchlog/store-jsonl/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionEvents from "../src/SessionEvents.js"
import * as StoreBridge from "../src/StoreBridge.js"

const { assistant, user } = Messages

const store = () => {
  const volume = TestingStore.MemoryFileSystem.make()
  volume.mkdir("/sessions")
  return TestingStore.layerMemory(volume)
}

describe("StoreBridge", () => {
  it.scoped("publishes one transcript update per appended entry, messageSeq increasing per file", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const seen: Array<SessionEvents.TranscriptUpdate> = []
      events.onTranscript((u) => seen.push(u))
      const a = yield* SessionManager.create("/work", "/sessions", { eagerFlush: true })
      const b = yield* SessionManager.create("/work", "/sessions", { eagerFlush: true })
      const ids = [
        yield* a.appendMessage(user("hi")),
        yield* a.appendModelChange("anthropic", "claude"),
        yield* b.appendMessage(user("other file")),
        yield* a.appendMessage(assistant("hello")),
        yield* a.appendSessionInfo("named"),
        yield* a.appendMessage(user("again"))
      ]
      expect(seen.map((u) => u.entryId)).toEqual(ids)
      const fileA = a.getSessionFile()!
      const fileB = b.getSessionFile()!
      // every update carries the session's reference (for a JSONL session: its path)
      expect(seen.map((u) => u.sessionRef)).toEqual([fileA, fileA, fileB, fileA, fileA, fileA])
      expect(seen.map((u) => [u.sessionFile, u.sessionId, u.messageSeq])).toEqual([
        [fileA, a.getSessionId(), 1],
        [fileA, a.getSessionId(), undefined],
        [fileB, b.getSessionId(), 1],
        [fileA, a.getSessionId(), 2],
        [fileA, a.getSessionId(), undefined],
        [fileA, a.getSessionId(), 3]
      ])
      expect(seen[3]?.message).toMatchObject({ role: "assistant" })
      expect(seen[1]).not.toHaveProperty("message")
    }).pipe(Effect.provide(Layer.merge(StoreBridge.layerWithEvents, store()))))

  it.scoped("the default order (nothing written before the first assistant reply) publishes when the rows are written", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const stream = yield* events.subscribeTranscript
      const seen: Array<SessionEvents.TranscriptUpdate> = []
      events.onTranscript((u) => seen.push(u))
      const m = yield* SessionManager.create("/work", "/sessions")
      const first = yield* m.appendMessage(user("hi"))
      expect(seen).toEqual([])
      const second = yield* m.appendMessage(assistant("hello"))
      expect(seen.map((u) => [u.entryId, u.messageSeq])).toEqual([[first, 1], [second, 2]])
      const fromStream = yield* Stream.runCollect(Stream.take(stream, 2))
      expect(Chunk.toReadonlyArray(fromStream).map((u) => u.entryId)).toEqual([first, second])
    }).pipe(Effect.provide(Layer.merge(StoreBridge.layerWithEvents, store()))))

  it.scoped("without the observer the store publishes nothing", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const seen: Array<unknown> = []
      events.onTranscript((u) => seen.push(u))
      const m = yield* SessionManager.create("/work", "/sessions", { eagerFlush: true })
      yield* m.appendMessage(user("hi"))
      yield* m.appendMessage(assistant("hello"))
      expect(seen).toEqual([])
    }).pipe(Effect.provide(Layer.merge(SessionEvents.layer, store()))))
})
