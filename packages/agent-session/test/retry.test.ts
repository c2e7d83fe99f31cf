/**
 * Retries of model calls: which errors are retried, `Retry-After`, the budget, the abort during a
 * wait, a stream cut half-way (its partial text is not written), and what the transcript holds.
 */
import { SessionManager } from "@branchlog/session-store"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { ModelError } from "../src/AgentError.js"
import type * as AgentSession from "../src/AgentSession.js"
import * as Retry from "../src/Retry.js"
import type * as ScriptedModel from "../src/ScriptedModel.js"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

const fast: Retry.Settings = { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 5_000, budgetMs: 10_000 }

const run = (script: ReadonlyArray<ScriptedModel.Step>, retry: Retry.Settings = fast) =>
  Effect.gen(function*() {
    const dir = tempDir()
    const sm = yield* SessionManager.create(dir, dir)
    const agent = yield* scripted(sm, { script, extra: { retry } })
    const result = yield* agent.session.prompt("hi")
    const assistants = rowsOf(sm.getSessionFile()!).filter((r) =>
      r.type === "message" && r.message.role === "assistant"
    )
      .map((r) => r.message)
    const retries = agent.events.filter((e): e is Extract<AgentSession.AgentEvent, { _tag: "Retry" }> =>
      e._tag === "Retry"
    )
    return { result, assistants, retries }
  })

describe("Retry.isTransient and parseRetryAfter", () => {
  it("retries 408, 429, 5xx and transient failures; not 4xx or untyped ones", () => {
    const e = (fields: Partial<ConstructorParameters<typeof ModelError>[0]>) =>
      new ModelError({ provider: "p", reason: "r", ...fields })
    expect([408, 429, 500, 502, 503, 599].map((status) => Retry.isTransient(e({ status })))).toEqual(
      Array(6).fill(true)
    )
    expect([400, 401, 404, 422, 600].map((status) => Retry.isTransient(e({ status })))).toEqual(Array(5).fill(false))
    expect(Retry.isTransient(e({}))).toBe(false)
    expect(Retry.isTransient(e({ transient: true }))).toBe(true)
  })

  it("Retry-After in seconds or as an HTTP date", () => {
    expect(Retry.parseRetryAfter("1", 0)).toBe(1000)
    expect(Retry.parseRetryAfter(" 2.5 ", 0)).toBe(2500)
    expect(Retry.parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000)
    expect(Retry.parseRetryAfter("soon", 0)).toBeUndefined()
    expect(Retry.parseRetryAfter(undefined, 0)).toBeUndefined()
  })
})

describe("AgentSession retries", () => {
  it.live("503, then 429 with Retry-After, then the answer: one assistant message, two Retry events, Retry-After honoured", () =>
    Effect.gen(function*() {
      const { assistants, result, retries } = yield* run([
        { text: "partial one ", error: "unavailable", status: 503 },
        { text: "partial two ", error: "slow down", status: 429, retryAfterMs: 300 },
        { text: "the answer" }
      ])
      expect(result.stopReason).toBe("stop")
      expect(assistants).toHaveLength(1)
      expect(assistants[0]).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "the answer" }] })
      expect(retries.map((r) => [r.attempt, r.error.status])).toEqual([[1, 503], [2, 429]])
      expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(300)
      expect(retries[0]!.delayMs).toBeLessThan(300)
    }).pipe(Effect.provide(storeLayer)))

  it.live("a stream cut half-way (transient) is retried from the start; the partial text is never written", () =>
    Effect.gen(function*() {
      const { assistants, retries } = yield* run([
        { text: "this half was streamed then the connection reset", error: "socket hang up", transient: true },
        { text: "complete reply" }
      ])
      expect(retries).toHaveLength(1)
      expect(assistants).toEqual([expect.objectContaining({ content: [{ type: "text", text: "complete reply" }] })])
    }).pipe(Effect.provide(storeLayer)))

  it.live("a non-transient error (400) is not retried", () =>
    Effect.gen(function*() {
      const { assistants, retries } = yield* run([{ error: "bad request", status: 400 }, { text: "never" }])
      expect(retries).toEqual([])
      expect(assistants).toEqual([
        expect.objectContaining({ stopReason: "error", errorMessage: "scripted: bad request (HTTP 400)" })
      ])
    }).pipe(Effect.provide(storeLayer)))

  it.live("after the budget of retries: one error message with the last error and the attempts", () =>
    Effect.gen(function*() {
      const { assistants, result, retries } = yield* run([
        { error: "down 1", status: 500 },
        { error: "down 2", status: 502 },
        { error: "down 3", status: 503 },
        { text: "too late" }
      ], { ...fast, maxRetries: 2 })
      expect(retries).toHaveLength(2)
      expect(result.stopReason).toBe("error")
      expect(assistants).toEqual([
        expect.objectContaining({ stopReason: "error", errorMessage: "scripted: down 3 (HTTP 503) (after 3 attempts)" })
      ])
    }).pipe(Effect.provide(storeLayer)))

  it.live("no retry whose wait would pass the time budget", () =>
    Effect.gen(function*() {
      const budget: Retry.Settings = { maxRetries: 10, baseDelayMs: 100, maxDelayMs: 5_000, budgetMs: 400 }
      const { result, retries } = yield* run([{ error: "down", status: 503 }], budget)
      expect(result.stopReason).toBe("error")
      // waits of about 100, 200, 400 ms (±20% jitter): the third would pass 400 ms in all
      expect(retries.length).toBeGreaterThanOrEqual(1)
      expect(retries.length).toBeLessThanOrEqual(2)
      expect(retries.reduce((n, r) => n + r.delayMs, 0)).toBeLessThanOrEqual(400)
    }).pipe(Effect.provide(storeLayer)))

  it.live("abort() during the wait before a retry ends the turn at once", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create(dir, dir)
      const waiting = yield* Deferred.make<void>()
      const agent = yield* scripted(sm, {
        script: [{ error: "busy", status: 429, retryAfterMs: 600_000 }, { text: "never" }],
        extra: {
          retry: { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 600_000, budgetMs: 600_000 },
          onEvent: (e) => e._tag === "Retry" ? Deferred.succeed(waiting, undefined) : Effect.void
        }
      })
      const fiber = yield* Effect.fork(agent.session.prompt("hi"))
      yield* Deferred.await(waiting)
      yield* agent.session.abort()
      const result = yield* Fiber.join(fiber)
      expect(result.stopReason).toBe("aborted")
      const assistants = rowsOf(sm.getSessionFile()!).filter((r) => r.message?.role === "assistant")
      expect(assistants.map((r) => r.message.stopReason)).toEqual(["aborted"])
    }).pipe(Effect.provide(storeLayer)), 60_000)
})
