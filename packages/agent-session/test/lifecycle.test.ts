/**
 * Lifecycle and transcript events of AgentSession through sessions-semantics' `SessionEvents`:
 * each event, its order, that it comes only once its write is on disk, and that a failed write
 * publishes nothing.
 */
import { SessionManager } from "@branchlog/session-store"
import { SessionEvents, StoreBridge } from "@branchlog/sessions-semantics"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

/** Every event as a line; a lifecycle event also checks that what it reports is on disk. */
const recorder = () => {
  const events = SessionEvents.unsafeMake()
  const seen: Array<string> = []
  const lifecycle: Array<SessionEvents.LifecycleEvent> = []
  const onDisk: Array<boolean> = []
  events.on((e) => {
    if (e._tag === "Transcript") {
      seen.push(`T:${e.update.entryId}`)
      onDisk.push(fs.readFileSync(e.update.sessionFile, "utf8").includes(`"id":"${e.update.entryId}"`))
      return
    }
    const event = e.event
    lifecycle.push(event)
    seen.push(`L:${event.reason}`)
    const file = event.sessionFile
    const text = file !== undefined && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
    onDisk.push(
      text.includes(`"id":"${event.sessionId}"`) &&
        (event.entryId === undefined || text.includes(`"id":"${event.entryId}"`))
    )
  })
  const layer = Layer.merge(Layer.provideMerge(StoreBridge.layer, SessionEvents.layerFrom(events)), storeLayer)
  return { events, seen, lifecycle, onDisk, layer }
}

const entryIdsOf = (file: string) => rowsOf(file).filter((r) => r.type !== "session").map((r) => r.id as string)

describe("AgentSession lifecycle events", () => {
  it.live("a new session: create once durable, turn-start after the user message, turn-end with the outcome; a transcript event per entry", () => {
    const rec = recorder()
    return Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create(dir, dir)
      const { session } = yield* scripted(sm, { extra: { session: { sessionKey: "agent:ops:main", agentId: "ops" } } })
      expect(rec.seen).toEqual([])
      const result = yield* session.prompt("hello")
      const file = sm.getSessionFile()!
      const [thinking, user, assistant] = entryIdsOf(file)
      expect(rec.seen).toEqual([
        `T:${thinking}`,
        `T:${user}`,
        "L:create",
        "L:turn-start",
        `T:${assistant}`,
        "L:turn-end"
      ])
      expect(rec.onDisk.every((x) => x)).toBe(true)
      expect(rec.lifecycle.map((e) => [e.sessionKey, e.agentId, e.sessionFile, e.sessionId])).toEqual(
        Array(3).fill(["agent:ops:main", "ops", file, sm.getSessionId()])
      )
      expect(rec.lifecycle[1]).toMatchObject({ entryId: result.entryIds[0] })
      expect(rec.lifecycle[2]).toMatchObject({ reason: "turn-end", outcome: "stop", entryId: result.entryIds[0] })
    }).pipe(Effect.provide(rec.layer))
  })

  it.live("an error outcome, resume on reopen, compact and fork after their writes", () => {
    const rec = recorder()
    return Effect.gen(function*() {
      const dir = tempDir()
      const first = yield* SessionManager.create(dir, dir)
      const a = yield* scripted(first, {
        script: [{ text: "ok" }, { text: "half", error: "bad request", status: 400 }]
      })
      yield* a.session.prompt("one")
      const failed = yield* a.session.prompt("two")
      expect(failed.stopReason).toBe("error")
      expect(rec.lifecycle.at(-1)).toMatchObject({
        reason: "turn-end",
        outcome: "error",
        errorMessage: "scripted: bad request (HTTP 400)"
      })
      const file = first.getSessionFile()!
      rec.seen.length = 0
      rec.lifecycle.length = 0

      const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const b = yield* scripted(reopened, { compaction: { enabled: false, thresholdRatio: 0.99, keepRecentTokens: 5 } })
      expect(rec.seen).toEqual(["L:resume"])
      yield* b.session.prompt("three")
      const compacted = yield* b.session.compact()
      expect(rec.seen.slice(-2)).toEqual([`T:${compacted.entryId}`, "L:compact"])
      expect(rec.lifecycle.at(-1)).toMatchObject({ reason: "compact", entryId: compacted.entryId, sessionFile: file })

      const userOf = (text: string) =>
        reopened.getEntries().find((e) =>
          e.type === "message" && e.message.role === "user" && (e.message as { content?: unknown }).content === text
        )!
      // a fork whose new session holds an assistant reply is written at once: `fork` follows
      yield* b.session.fork(userOf("two").id)
      const forkedFile = reopened.getSessionFile()!
      expect(forkedFile).not.toBe(file)
      expect(rec.lifecycle.at(-1)).toMatchObject({ reason: "fork", sessionFile: forkedFile })
      // a fork at the first message is a new session with nothing to write yet: `fork` waits for
      // its first write
      yield* b.session.fork(userOf("one").id)
      const empty = reopened.getSessionFile()!
      expect(rec.lifecycle.at(-1)!.reason).toBe("fork")
      expect(rec.lifecycle.at(-1)!.sessionFile).toBe(forkedFile)
      yield* b.session.prompt("again")
      expect(rec.lifecycle.slice(-3).map((e) => [e.reason, e.sessionFile])).toEqual([
        ["fork", empty],
        ["turn-start", empty],
        ["turn-end", empty]
      ])
      expect(rec.onDisk.every((x) => x)).toBe(true)
    }).pipe(Effect.provide(rec.layer))
  })

  it.live("a write that fails publishes nothing", () => {
    const rec = recorder()
    return Effect.gen(function*() {
      const root = tempDir()
      const dir = path.join(root, "sessions")
      fs.mkdirSync(dir)
      const sm = yield* SessionManager.create(root, dir)
      const { session } = yield* scripted(sm)
      yield* session.prompt("one")
      const before = rec.seen.length
      // the folder of the session becomes a file: every write to the session fails
      fs.rmSync(dir, { recursive: true })
      fs.writeFileSync(dir, "not a folder")
      const failure = yield* Effect.flip(session.prompt("two"))
      expect(failure._tag).not.toBe("AgentBusyError")
      expect(rec.seen.length).toBe(before)
      expect(session.isRunning()).toBe(false)
    }).pipe(Effect.provide(rec.layer))
  })
})
