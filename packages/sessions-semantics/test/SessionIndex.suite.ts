/**
 * The behavioural suite of SessionIndex, run against every store backend (the store's testing `Harness`).
 * Layers are provided per test (one `layer()` per file is the @effect/vitest 0.30 rule).
 */
import type { Harness } from "@branchlog/store-jsonl/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as SessionIndex from "../src/SessionIndex.js"

const T0 = Date.UTC(2025, 0, 1)

interface Ctx {
  readonly env: Harness.Env
  readonly file: string
  readonly recoveries: Array<SessionIndex.SessionIndexRecovery>
  readonly index: SessionIndex.SessionIndexShape
}

/** Runs `body` with a fresh environment and an index over `<dir>/sessions.json`. */
const withIndex = <A, E>(
  harness: Harness.Harness,
  body: (ctx: Ctx) => Effect.Effect<A, E>,
  prepare?: (env: Harness.Env, file: string) => void,
  live = false
) =>
  Effect.gen(function*() {
    const env = harness.make()
    const file = `${env.dir}/sessions.json`
    prepare?.(env, file)
    const recoveries: Array<SessionIndex.SessionIndexRecovery> = []
    if (!live) yield* TestClock.setTime(T0)
    const index = yield* SessionIndex.make(file, { onRecovery: (r) => recoveries.push(r) }).pipe(
      Effect.provide(env.layer)
    )
    return yield* body({ env, file, recoveries, index })
  })

const json = (ctx: Ctx, file = ctx.file): Record<string, Record<string, unknown>> =>
  JSON.parse(ctx.env.ext.read(file)?.toString("utf8") ?? "null")

const TG_BOB = "agent:main:telegram:direct:bob"

/** Two upserts: the index holds a and b, its backup holds a. */
const seedTwo = (ctx: Ctx) =>
  Effect.gen(function*() {
    yield* ctx.index.upsert("agent:main:telegram:direct:a", { sessionId: "sa" })
    yield* ctx.index.upsert("agent:main:telegram:direct:b", { sessionId: "sb" })
  })

/** Registers the suite for one harness. */
export const sessionIndexSuite = (harness: Harness.Harness): void => {
  describe(`SessionIndex (${harness.name})`, () => {
    it.effect("upsert creates a record with derived fields; get finds it by any spelling of the key", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          const created = yield* ctx.index.upsert("  AGENT:Main:Telegram:Direct:Bob ", { sessionId: "s1" })
          expect(created).toEqual({
            sessionId: "s1",
            sessionFile: `${ctx.env.dir}/s1.jsonl`,
            agentId: "main",
            kind: "direct",
            chatType: "direct",
            createdAt: T0,
            updatedAt: T0
          })
          expect(yield* ctx.index.get(TG_BOB)).toEqual(Option.some(created))
          expect(yield* ctx.index.get("agent:MAIN:telegram:direct:BOB")).toEqual(Option.some(created))
          expect(yield* ctx.index.get("agent:main:telegram:direct:alice")).toEqual(Option.none())
          expect(Object.keys(json(ctx))).toEqual([TG_BOB])
          expect(yield* ctx.index.recoveries).toEqual([])
        })))

    it.effect("upsert merges a patch: null deletes, createdAt is kept, updatedAt moves", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* ctx.index.upsert(TG_BOB, { sessionId: "s1", label: "first", displayName: "Bob" })
          yield* TestClock.adjust("5 seconds")
          const second = yield* ctx.index.upsert(TG_BOB, {
            label: null,
            sessionFile: "/elsewhere/s1.jsonl",
            displayName: undefined,
            kind: "cron",
            createdAt: 1
          })
          expect(second).toEqual({
            sessionId: "s1",
            sessionFile: "/elsewhere/s1.jsonl",
            agentId: "main",
            kind: "direct",
            chatType: "direct",
            displayName: "Bob",
            createdAt: T0,
            updatedAt: T0 + 5000
          })
          expect(json(ctx)[TG_BOB]).not.toHaveProperty("label")
        })))

    it.effect("records: kind, chat type and parent come from the key and the record", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          const thread = yield* ctx.index.upsert("agent:ops:discord:channel:123:thread:9", { sessionId: "t" })
          expect(thread).toMatchObject({ agentId: "ops", kind: "group", chatType: "channel" })
          expect(thread.parentKey).toBe("agent:ops:discord:channel:123")
          const child = yield* ctx.index.upsert("agent:main:subagent:x1", {
            sessionId: "c",
            spawnedBy: "agent:main:main"
          })
          expect(child).toMatchObject({
            kind: "spawn-child",
            parentKey: "agent:main:main",
            spawnedBy: "agent:main:main"
          })
          const legacy = yield* ctx.index.upsert("group:abc", { sessionId: "g", chatType: "group" })
          expect(legacy).toMatchObject({ agentId: "main", kind: "group", chatType: "group" })
        })))

    it.effect("unknown fields of stored records survive reads and writes, in place", () =>
      withIndex(
        harness,
        (ctx) =>
          Effect.gen(function*() {
            const got = yield* ctx.index.get("agent:main:main")
            expect(Option.getOrThrow(got)).toMatchObject({
              sessionId: "m1",
              sessionFile: `${ctx.env.dir}/m1.jsonl`,
              kind: "direct",
              createdAt: 1700,
              updatedAt: 1700,
              origin: { provider: "telegram", nested: [1, 2] }
            })
            yield* ctx.index.upsert("agent:main:main", { label: "hello" })
            const stored = json(ctx)
            expect(Object.keys(stored["agent:main:main"]!).slice(0, 4)).toEqual([
              "sessionId",
              "updatedAt",
              "origin",
              "skillsSnapshot"
            ])
            expect(stored["agent:main:main"]).toMatchObject({
              origin: { provider: "telegram", nested: [1, 2] },
              skillsSnapshot: "opaque",
              label: "hello"
            })
            // an entry that is not a valid record is not listed, but kept verbatim
            expect((yield* ctx.index.list()).map((s) => s.key)).toEqual(["agent:main:main"])
            expect(stored["agent:main:broken"]).toEqual({ note: "no session id" })
            expect(stored["weird"]).toBe(42)
          }),
        (env, file) =>
          env.ext.write(
            file,
            JSON.stringify({
              "agent:main:main": {
                sessionId: "m1",
                updatedAt: 1700,
                origin: { provider: "telegram", nested: [1, 2] },
                skillsSnapshot: "opaque"
              },
              "agent:main:broken": { note: "no session id" },
              weird: 42
            })
          )
      ))

    it.effect("remove deletes a key (and its non-normalised spellings); a second remove gives false", () =>
      withIndex(
        harness,
        (ctx) =>
          Effect.gen(function*() {
            expect(Option.isSome(yield* ctx.index.get("agent:main:main"))).toBe(true)
            yield* ctx.index.upsert(TG_BOB, { sessionId: "s1" })
            expect(yield* ctx.index.remove("agent:main:main")).toBe(true)
            expect(yield* ctx.index.remove("agent:main:main")).toBe(false)
            expect(yield* ctx.index.get("agent:main:main")).toEqual(Option.none())
            expect(Object.keys(json(ctx))).toEqual([TG_BOB])
          }),
        (env, file) => env.ext.write(file, JSON.stringify({ "AGENT:Main:MAIN": { sessionId: "m1", updatedAt: 5 } }))
      ))

    it.effect("an upsert through another spelling rewrites the stored key in place", () =>
      withIndex(
        harness,
        (ctx) =>
          Effect.gen(function*() {
            yield* ctx.index.upsert("agent:main:main", { label: "x" })
            expect(Object.keys(json(ctx))).toEqual(["a", "agent:main:main", "z"])
            expect(json(ctx)["agent:main:main"]).toMatchObject({ sessionId: "m1", label: "x", createdAt: 5 })
          }),
        (env, file) =>
          env.ext.write(
            file,
            JSON.stringify({
              a: { sessionId: "a" },
              "Agent:Main:Main": { sessionId: "m1", updatedAt: 5 },
              z: { sessionId: "z" }
            })
          )
      ))

    it.effect("list filters by kind and by channel, most recently updated first", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          const put = (key: string, patch: SessionIndex.SessionPatch) =>
            Effect.zipRight(TestClock.adjust("1 second"), ctx.index.upsert(key, patch))
          yield* put("agent:main:main", { sessionId: "1" })
          yield* put(TG_BOB, { sessionId: "2" })
          yield* put("agent:main:telegram:group:-100123:topic:4", { sessionId: "3" })
          yield* put("agent:main:discord:channel:555", { sessionId: "4" })
          yield* put("agent:main:cron:nightly:run:r1", { sessionId: "5" })
          yield* put("agent:main:subagent:abc", { sessionId: "6", spawnedBy: "agent:main:main" })
          yield* put("agent:main:whatsapp:acct:direct:+15550001", { sessionId: "7" })
          yield* put("agent:main:webchat-thing", { sessionId: "8", channel: "WebChat" })
          const keys = (filter?: SessionIndex.ListFilter) =>
            Effect.map(ctx.index.list(filter), (all) => all.map((s) => s.record.sessionId))
          expect(yield* keys()).toEqual(["8", "7", "6", "5", "4", "3", "2", "1"])
          expect(yield* keys({ kind: "group" })).toEqual(["4", "3"])
          expect(yield* keys({ kind: "direct" })).toEqual(["8", "7", "2", "1"])
          expect(yield* keys({ kind: "cron" })).toEqual(["5"])
          expect(yield* keys({ kind: "spawn-child" })).toEqual(["6"])
          expect(yield* keys({ channel: "telegram" })).toEqual(["3", "2"])
          expect(yield* keys({ channel: " Discord " })).toEqual(["4"])
          expect(yield* keys({ channel: "whatsapp" })).toEqual(["7"])
          expect(yield* keys({ channel: "webchat" })).toEqual(["8"])
          expect(yield* keys({ kind: "group", channel: "telegram" })).toEqual(["3"])
          expect(yield* keys({ kind: "cron", channel: "telegram" })).toEqual([])
          const [first] = yield* ctx.index.list({ channel: "discord" })
          expect(first?.channel).toEqual(Option.some("discord"))
          expect(SessionIndex.channelOf(TG_BOB)).toEqual(Option.some("telegram"))
          expect(SessionIndex.channelOf("global")).toEqual(Option.none())
        })))

    it.effect("every replace first backs up the last good version", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* ctx.index.upsert("agent:main:telegram:direct:a", { sessionId: "sa" })
          expect(ctx.env.ext.read(`${ctx.file}.bak`)).toBeUndefined()
          const first = ctx.env.ext.read(ctx.file)!.toString("utf8")
          yield* ctx.index.upsert("agent:main:telegram:direct:b", { sessionId: "sb" })
          expect(ctx.env.ext.read(`${ctx.file}.bak`)!.toString("utf8")).toBe(first)
          const second = ctx.env.ext.read(ctx.file)!.toString("utf8")
          yield* ctx.index.remove("agent:main:telegram:direct:a")
          expect(ctx.env.ext.read(`${ctx.file}.bak`)!.toString("utf8")).toBe(second)
          // nothing else is left in the folder: no temporary file, no lock file
          expect(ctx.env.ext.list(ctx.env.dir)).toEqual(["sessions.json", "sessions.json.bak"])
        })))

    it.effect("a 0-byte index is recovered from the backup and reported", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* seedTwo(ctx)
          const backup = ctx.env.ext.read(`${ctx.file}.bak`)!
          ctx.env.ext.write(ctx.file, "")
          expect(Option.isSome(yield* ctx.index.get("agent:main:telegram:direct:a"))).toBe(true)
          expect(ctx.recoveries).toHaveLength(1)
          const [report] = ctx.recoveries
          expect(report).toMatchObject({
            _tag: "SessionIndexRecovery",
            path: ctx.file,
            reason: "empty",
            byteLength: 0,
            restoredFrom: "backup",
            backupPath: `${ctx.file}.bak`,
            restoredKeys: 1
          })
          expect(report!.keptAside).toBeUndefined()
          expect(report!.message).toContain("restored 1 session(s)")
          expect(yield* ctx.index.recoveries).toEqual(ctx.recoveries)
          expect(ctx.env.ext.read(ctx.file)).toEqual(backup)
          // reported once: the index is repaired, not re-recovered on every read
          yield* ctx.index.list()
          expect(ctx.recoveries).toHaveLength(1)
          // and it is writable again
          yield* ctx.index.upsert("agent:main:telegram:direct:c", { sessionId: "sc" })
          expect(Object.keys(json(ctx))).toEqual(["agent:main:telegram:direct:a", "agent:main:telegram:direct:c"])
        })))

    it.effect("an index cut off mid-JSON is recovered from the backup, reported, and its bytes kept aside", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* seedTwo(ctx)
          const full = ctx.env.ext.read(ctx.file)!
          const cut = full.subarray(0, Math.floor(full.length / 2))
          ctx.env.ext.write(ctx.file, cut)
          const listed = yield* ctx.index.list()
          expect(listed.map((s) => s.record.sessionId)).toEqual(["sa"])
          const [report] = ctx.recoveries
          expect(report).toMatchObject({ reason: "truncated", byteLength: cut.length, restoredFrom: "backup" })
          expect(report!.keptAside).toMatch(/\/sessions\.json\.corrupt-[^/]+$/)
          expect(ctx.env.ext.read(report!.keptAside!)).toEqual(cut)
        })))

    it.effect("an index that is not JSON is kept aside byte for byte, never overwritten silently", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* seedTwo(ctx)
          const garbage = Buffer.from([0x68, 0x69, 0x00, 0xff, 0xfe, 0x0a, 0x7b, 0x7d])
          ctx.env.ext.write(ctx.file, garbage)
          const exit = yield* Effect.either(ctx.index.upsert("agent:main:telegram:direct:d", { sessionId: "sd" }))
          expect(Either.isRight(exit)).toBe(true)
          expect(ctx.recoveries).toHaveLength(1)
          const [report] = ctx.recoveries
          expect(report).toMatchObject({ reason: "not-json", byteLength: garbage.length, restoredFrom: "backup" })
          const aside = ctx.env.dir + "/" +
            ctx.env.ext.list(ctx.env.dir).find((n) => n.startsWith("sessions.json.corrupt-"))
          expect(aside).toBe(report!.keptAside)
          expect(ctx.env.ext.read(aside)).toEqual(garbage)
          expect(Object.keys(json(ctx))).toEqual(["agent:main:telegram:direct:a", "agent:main:telegram:direct:d"])
          // a second damage keeps a second copy: the first is never overwritten
          ctx.env.ext.write(ctx.file, "[1,2]")
          yield* ctx.index.get("agent:main:telegram:direct:a")
          expect(ctx.recoveries.map((r) => r.reason)).toEqual(["not-json", "not-an-object"])
          expect(ctx.env.ext.read(aside)).toEqual(garbage)
          expect(ctx.env.ext.list(ctx.env.dir).filter((n) => n.startsWith("sessions.json.corrupt-"))).toHaveLength(2)
        })))

    it.effect("a damaged index without a usable backup starts empty, reported, both kept aside", () =>
      withIndex(
        harness,
        (ctx) =>
          Effect.gen(function*() {
            expect(yield* ctx.index.list()).toEqual([])
            expect(ctx.recoveries).toHaveLength(1)
            expect(ctx.recoveries[0]).toMatchObject({ reason: "not-json", restoredFrom: "nothing", restoredKeys: 0 })
            expect(ctx.recoveries[0]!.backupProblem).toMatch(/^truncated/)
            expect(ctx.env.ext.read(ctx.recoveries[0]!.backupKeptAside!)!.toString()).toBe("{\"a\":")
            expect(ctx.env.ext.read(ctx.recoveries[0]!.keptAside!)!.toString()).toBe("not json at all")
            yield* ctx.index.upsert(TG_BOB, { sessionId: "s1" })
            expect(Object.keys(json(ctx))).toEqual([TG_BOB])
          }),
        (env, file) => {
          env.ext.write(file, "not json at all")
          env.ext.write(`${file}.bak`, "{\"a\":")
        }
      ))

    it.effect("bad keys and records fail with typed errors naming the path; nothing is written", () =>
      withIndex(harness, (ctx) =>
        Effect.gen(function*() {
          yield* ctx.index.upsert(TG_BOB, { sessionId: "s1" })
          const before = ctx.env.ext.read(ctx.file)
          const badKey = yield* Effect.flip(ctx.index.upsert("agent:main:telegram:direct:", { sessionId: "x" }))
          expect(badKey).toMatchObject({ _tag: "SessionIndexKeyError", path: ctx.file, part: "peerId" })
          expect(badKey.message).toContain(ctx.file)
          const getBad = yield* Effect.flip(ctx.index.get("   "))
          expect(getBad).toMatchObject({ _tag: "SessionIndexKeyError", part: "key" })
          const noId = yield* Effect.flip(ctx.index.upsert("agent:main:main", { label: "x" }))
          expect(noId).toMatchObject({ _tag: "SessionRecordError", path: ctx.file, key: "agent:main:main" })
          expect(noId.message).toContain("sessionId")
          const badChat = yield* Effect.flip(ctx.index.upsert(TG_BOB, { chatType: "pigeon" as "group" }))
          expect(badChat).toMatchObject({ _tag: "SessionRecordError" })
          expect(ctx.env.ext.read(ctx.file)).toEqual(before)
          expect(ctx.env.ext.read(`${ctx.file}.bak`)).toBeUndefined()
        })))

    it.live("concurrent upserts from many fibers lose nothing", () =>
      withIndex(
        harness,
        (ctx) =>
          Effect.gen(function*() {
            yield* Effect.forEach(
              Array.from({ length: 40 }, (_, i) => i),
              (i) =>
                Effect.zipRight(
                  ctx.index.upsert(`agent:main:telegram:direct:p${i}`, { sessionId: `s${i}` }),
                  ctx.index.upsert("agent:main:main", { sessionId: "shared", [`f${i}`]: i })
                ),
              { concurrency: "unbounded" }
            )
            const stored = json(ctx)
            expect(Object.keys(stored)).toHaveLength(41)
            for (let i = 0; i < 40; i++) expect(stored["agent:main:main"]![`f${i}`]).toBe(i)
          }),
        undefined,
        true
      ))
  })
}
