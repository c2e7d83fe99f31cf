import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SessionEvents from "../src/SessionEvents.js"

const { normalizeTranscript } = SessionEvents

describe("transcript update normalising", () => {
  it("trims strings and drops blanks", () => {
    expect(normalizeTranscript({ sessionFile: "  /s/a.jsonl ", entryId: " e1 ", sessionKey: "  ", agentId: "" }))
      .toEqual(Option.some({ sessionFile: "/s/a.jsonl", entryId: "e1" }))
  })

  it("drops updates without a session file or an entry id", () => {
    expect(normalizeTranscript({ entryId: "e1" })).toEqual(Option.none())
    // a session of another store: its reference stands in for the file
    expect(normalizeTranscript({ sessionRef: " sqlite:/db#s1 ", entryId: "e1" })).toEqual(
      Option.some({ sessionFile: "sqlite:/db#s1", sessionRef: "sqlite:/db#s1", entryId: "e1" })
    )
    expect(normalizeTranscript({ sessionFile: "   ", entryId: "e1" })).toEqual(Option.none())
    expect(normalizeTranscript({ sessionFile: "/s/a.jsonl" })).toEqual(Option.none())
    expect(normalizeTranscript({ sessionFile: "/s/a.jsonl", entryId: null })).toEqual(Option.none())
  })

  it.each([
    [1, 1],
    [42, 42],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    [0, undefined],
    [-3, undefined],
    [1.5, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [Number.MAX_SAFE_INTEGER + 1, undefined],
    ["3" as unknown as number, undefined],
    [null, undefined]
  ])("messageSeq %s gives %s", (messageSeq, expected) => {
    const update = Option.getOrThrow(normalizeTranscript({ sessionFile: "f", entryId: "e", messageSeq }))
    expect(update.messageSeq).toBe(expected)
  })

  it("sets a target only when agent id, session id and key all resolve, the agent id from the key if need be", () => {
    const withKey = normalizeTranscript({
      sessionFile: "f",
      entryId: "e",
      sessionKey: " agent:Ops:main ",
      sessionId: "s1"
    })
    expect(withKey).toEqual(
      Option.some({
        sessionFile: "f",
        entryId: "e",
        sessionKey: "agent:Ops:main",
        agentId: "ops",
        sessionId: "s1",
        target: { agentId: "ops", sessionId: "s1", sessionKey: "agent:Ops:main" }
      })
    )
    const legacyKey = normalizeTranscript({ sessionFile: "f", entryId: "e", sessionKey: "cron:x", sessionId: "s1" })
    expect(Option.map(legacyKey, (u) => u.target)).toEqual(Option.some(undefined))
    const noSession = normalizeTranscript({ sessionFile: "f", entryId: "e", sessionKey: "agent:ops:main" })
    expect(noSession).toEqual(Option.some({ sessionFile: "f", entryId: "e", sessionKey: "agent:ops:main" }))
    const explicit = normalizeTranscript({
      sessionFile: "f",
      entryId: "e",
      agentId: "a",
      sessionId: "s",
      sessionKey: "k",
      target: { agentId: " b ", sessionId: "t", sessionKey: "agent:b:main" },
      message: { role: "user" }
    })
    expect(explicit).toEqual(
      Option.some({
        sessionFile: "f",
        entryId: "e",
        sessionKey: "k",
        agentId: "a",
        sessionId: "s",
        target: { agentId: "b", sessionId: "t", sessionKey: "agent:b:main" },
        message: { role: "user" }
      })
    )
  })

  it("gives values that the TranscriptUpdate schema accepts", () => {
    const update = normalizeTranscript({
      sessionFile: "f",
      entryId: "e",
      messageSeq: 3,
      sessionKey: "agent:a:main",
      sessionId: "s"
    })
    expect(Schema.is(SessionEvents.TranscriptUpdate)(Option.getOrThrow(update))).toBe(true)
  })
})

describe("the plain listener API", () => {
  it("calls listeners in order, per session in publish order", () => {
    const events = SessionEvents.unsafeMake()
    const seen: Array<string> = []
    events.onTranscript((u) => seen.push(`a:${u.sessionKey}:${u.entryId}`))
    events.onTranscript((u) => seen.push(`b:${u.sessionKey}:${u.entryId}`))
    for (const [key, entryId] of [["s1", "1"], ["s2", "1"], ["s1", "2"], ["s1", "3"], ["s2", "2"]] as const) {
      events.emitTranscript({ sessionFile: `/${key}.jsonl`, sessionKey: key, entryId })
    }
    expect(seen.filter((s) => s.startsWith("a:s1"))).toEqual(["a:s1:1", "a:s1:2", "a:s1:3"])
    expect(seen.filter((s) => s.startsWith("a:s2"))).toEqual(["a:s2:1", "a:s2:2"])
    expect(seen.slice(0, 4)).toEqual(["a:s1:1", "b:s1:1", "a:s2:1", "b:s2:1"])
  })

  it("isolates a throwing listener: the others and the publisher go on", () => {
    const events = SessionEvents.unsafeMake()
    const seen: Array<string> = []
    events.onLifecycle(() => {
      throw new Error("boom")
    })
    events.onLifecycle(() => Promise.reject(new Error("async boom")))
    events.onLifecycle((e) => seen.push(`${e.reason}:${e.sessionKey}`))
    expect(() => events.emitLifecycle({ sessionKey: "agent:main:main", reason: "create" })).not.toThrow()
    events.emitLifecycle({ sessionKey: "agent:main:main", reason: "close" })
    expect(seen).toEqual(["create:agent:main:main", "close:agent:main:main"])
  })

  it("unsubscribes, idempotently, also from inside a delivery", () => {
    const events = SessionEvents.unsafeMake()
    const seen: Array<string> = []
    const offA = events.onTranscript((u) => seen.push(`a${u.entryId}`))
    let offB = (): void => {}
    offB = events.onTranscript((u) => {
      seen.push(`b${u.entryId}`)
      offC()
    })
    const offC = events.onTranscript((u) => seen.push(`c${u.entryId}`))
    events.emitTranscript({ sessionFile: "f", entryId: "1" })
    offA()
    offA()
    events.emitTranscript({ sessionFile: "f", entryId: "2" })
    offB()
    events.emitTranscript({ sessionFile: "f", entryId: "3" })
    expect(seen).toEqual(["a1", "b1", "b2"])
  })

  it("does not deliver dropped updates", () => {
    const events = SessionEvents.unsafeMake()
    const seen: Array<unknown> = []
    events.on((e) => seen.push(e))
    expect(events.emitTranscript({ sessionFile: " ", entryId: "1" })).toEqual(Option.none())
    expect(seen).toEqual([])
  })

  it("gives every kind of event to `on`, tagged, in order", () => {
    const events = SessionEvents.unsafeMake()
    const seen: Array<string> = []
    events.on((e) => seen.push(e._tag === "Lifecycle" ? e.event.reason : e.update.entryId))
    for (const reason of SessionEvents.LifecycleReason.literals) {
      events.emitLifecycle({ sessionKey: "agent:main:subagent:x", reason, parentSessionKey: "agent:main:main" })
      events.emitTranscript({ sessionFile: "f", entryId: `after-${reason}` })
    }
    expect(seen).toEqual(SessionEvents.LifecycleReason.literals.flatMap((r) => [r, `after-${r}`]))
  })
})

describe("the SessionEvents service", () => {
  it.scoped("a Stream subscription receives events in order", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const stream = yield* events.subscribeTranscript
      for (let i = 1; i <= 5; i++) {
        yield* SessionEvents.publishTranscript({
          sessionFile: "/a.jsonl",
          sessionKey: "agent:main:main",
          entryId: `e${i}`,
          messageSeq: i
        })
      }
      const got = yield* Stream.runCollect(Stream.take(stream, 5))
      expect(Chunk.toReadonlyArray(got).map((u) => [u.entryId, u.messageSeq])).toEqual([
        ["e1", 1],
        ["e2", 2],
        ["e3", 3],
        ["e4", 4],
        ["e5", 5]
      ])
    }).pipe(Effect.provide(SessionEvents.layer)))

  it.scoped("streams and listeners see the same order under concurrent publishers", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const heard: Array<string> = []
      events.onTranscript((u) => heard.push(`${u.sessionKey}/${u.entryId}`))
      const all = yield* events.subscribe
      const sessions = ["agent:main:direct:1", "agent:main:direct:2", "agent:ops:main"]
      yield* Effect.forEach(
        sessions,
        (key) =>
          Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) =>
            Effect.zipRight(
              Effect.yieldNow(),
              events.publishTranscript({ sessionFile: `${key}.jsonl`, sessionKey: key, entryId: String(i) })
            ), { discard: true }),
        { concurrency: "unbounded", discard: true }
      )
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(all, 150))).map((e) =>
        e._tag === "Transcript" ? `${e.update.sessionKey}/${e.update.entryId}` : "lifecycle"
      )
      expect(streamed).toEqual(heard)
      for (const key of sessions) {
        const ids = heard.filter((h) => h.startsWith(`${key}/`)).map((h) => Number(h.slice(key.length + 1)))
        expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i))
      }
    }).pipe(Effect.provide(SessionEvents.layer)))

  it.scoped("a throwing listener does not fail the publishing effect", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const lifecycle = yield* events.subscribeLifecycle
      events.onLifecycle(() => {
        throw new Error("listener bug")
      })
      yield* SessionEvents.publishLifecycle({ sessionKey: "agent:main:main", reason: "reset" })
      yield* SessionEvents.publishLifecycle({ sessionKey: "agent:main:main", reason: "compact", label: "l" })
      const got = yield* Stream.runCollect(Stream.take(lifecycle, 2))
      expect(Chunk.toReadonlyArray(got).map((e) => e.reason)).toEqual(["reset", "compact"])
    }).pipe(Effect.provide(SessionEvents.layer)))

  it.effect("closing the service's scope ends subscriber streams", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const events = yield* Scope.extend(SessionEvents.make, scope)
      const stream = yield* Scope.extend(events.subscribeTranscript, scope)
      const received = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(Stream.runCollect(Stream.tap(stream, () => Deferred.succeed(received, void 0))))
      yield* events.publishTranscript({ sessionFile: "f", entryId: "1" })
      yield* Deferred.await(received)
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.map(exit, (got) => Chunk.toReadonlyArray(got).map((u) => u.entryId))).toEqual(Exit.succeed(["1"]))
      // publishing after shutdown is harmless
      expect(events.emitTranscript({ sessionFile: "f", entryId: "2" })).toEqual(
        Option.some({ sessionFile: "f", entryId: "2" })
      )
    }))

  it.effect("publishTranscriptIfProvided is a no-op without the service", () =>
    Effect.gen(function*() {
      const result = yield* SessionEvents.publishTranscriptIfProvided({ sessionFile: "f", entryId: "1" })
      expect(result).toEqual(Option.none())
    }))

  it.effect("layerFrom shares an instance between plain listeners and Effect publishers", () =>
    Effect.gen(function*() {
      const shared = SessionEvents.unsafeMake()
      const seen: Array<string> = []
      shared.onTranscript((u) => seen.push(u.entryId))
      yield* SessionEvents.publishTranscript({ sessionFile: "f", entryId: "x" }).pipe(
        Effect.provide(SessionEvents.layerFrom(shared))
      )
      expect(seen).toEqual(["x"])
    }))
})
