/**
 * The one-step append outside any hold (`TranscriptStore.unsafeAppendLocked`, files: lock file
 * created, file found exactly as the cursor verified it, one write, lock file removed, all in one
 * synchronous step) and its fall-backs to the hold taken as an effect: the lock held by another
 * fiber or another process, re-entrancy, a foreign append or rewrite since the cursor, a torn tail.
 * Real files and a real child process; which path ran is seen through a `TranscriptLock` in
 * context that counts its calls.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { TranscriptLock } from "../src/TranscriptLock.js"
import * as Children from "./support/children.js"
import { counting } from "./support/lockCounts.js"
import { entryLine, linesOf, rowsOf, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const messagesOf = (file: string) =>
  rowsOf(fs.readFileSync(file, "utf8")).filter((row) => row.type === "message").map((row) => row.message.content)

describe("appends outside withWriteLock: one synchronous step, else the hold as an effect", () => {
  it.effect("uncontended: one step, the lock file gone after it, the rows where a reader finds them", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const before = { ...counts }
      const id2 = yield* sm.appendMessage(user("2"))
      const id3 = yield* sm.appendMessage(user("3"))
      expect(counts.fast - before.fast).toBe(2)
      expect(counts.slow - before.slow).toBe(0)
      const file = sm.getSessionFile()!
      expect(fs.existsSync(file + ".lock")).toBe(false)
      expect(messagesOf(file)).toEqual(["1", "2", "3"])
      const other = yield* SessionManager.open(file)
      expect(other.getLeafId()).toBe(id3)
      expect(other.getEntries().find((e) => e.id === id3)?.parentId).toBe(id2)
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  it.effect("another fiber holding the lock: no step at once; the append waits its turn and lands after", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      const other = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      const inside = yield* Deferred.make<void>()
      const letGo = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(other.withWriteLock(Effect.gen(function*() {
        yield* other.appendMessage(user("held"))
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(letGo)
      })))
      yield* Deferred.await(inside)
      const before = { ...counts }
      const append = yield* Effect.fork(sm.appendMessage(user("2")))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      // still waiting (the one-step path would have written at once, beside the holder)
      expect(Option.isNone(yield* Fiber.poll(append))).toBe(true)
      expect(counts.tries - before.tries).toBe(1)
      expect(counts.fast - before.fast).toBe(0)
      yield* Deferred.succeed(letGo, undefined)
      yield* Fiber.join(holder)
      const id2 = yield* Fiber.join(append)
      expect(messagesOf(file)).toEqual(["1", "held", "2"])
      // the foreign row was folded in without moving this manager's leaf
      expect(sm.getEntries().map((e) => e.type === "message" ? (e.message as { content: string }).content : ""))
        .toEqual(
          ["1", "held", "2"]
        )
      expect(sm.getLeafId()).toBe(id2)
      expect(fs.existsSync(file + ".lock")).toBe(false)
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  it.effect("the fiber already holding the lock (re-entrant): the hold is re-entered, not taken anew", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      const lock = yield* TranscriptLock
      const before = { ...counts }
      yield* lock.withLock(file, sm.appendMessage(user("2")))
      expect(counts.fast - before.fast).toBe(0)
      // the outer withLock and the append's re-entrant one
      expect(counts.slow - before.slow).toBe(2)
      expect(messagesOf(file)).toEqual(["1", "2"])
      expect(fs.existsSync(file + ".lock")).toBe(false)
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  // live: the lock's retries and its timeout run on the real clock
  it.live("another process holding the lock file: no write beside it; the append waits (here: times out)", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), {
        eagerFlush: true,
        lock: { timeoutMs: 400, retryMs: 20 }
      })
      yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      const lockPath = fs.realpathSync(file) + ".lock"
      // a live process of this host holds the lock file (a payload like any holder's, its own pid)
      const script = `const fs = require("node:fs");
        const payload = { pid: process.pid, hostname: ${JSON.stringify(os.hostname())},
          createdAt: new Date().toISOString(), maxHoldMs: 600000, token: "child-token" };
        fs.writeFileSync(${JSON.stringify(lockPath)}, JSON.stringify(payload), { flag: "wx", mode: 0o600 });
        console.log("held"); setTimeout(() => {}, 60000)`
      const child = Children.start(["-e", script], false)
      try {
        yield* Effect.promise(async () => {
          for (let i = 0; i < 400 && !child.output.includes("held") && child.process.exitCode === null; i++) {
            await new Promise((r) => setTimeout(r, 50))
          }
        })
        expect(child.output).toBe("held\n")
        const sizeBefore = fs.statSync(file).size
        const before = { ...counts }
        const exit = yield* Effect.exit(sm.appendMessage(user("2")))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(JSON.stringify(exit)).toContain("LockTimeoutError")
        expect(counts.tries - before.tries).toBe(1)
        expect(counts.fast - before.fast).toBe(0)
        expect(counts.slow - before.slow).toBe(1)
        expect(fs.statSync(file).size).toBe(sizeBefore)
        // the holder's lock file is left as it is
        expect(JSON.parse(fs.readFileSync(lockPath, "utf8")).token).toBe("child-token")
      } finally {
        child.process.kill("SIGKILL")
        yield* Effect.promise(() => child.exited)
        fs.rmSync(lockPath, { force: true })
      }
      // once it is gone, the one-step path is back
      const again = { ...counts }
      yield* sm.appendMessage(user("3"))
      expect(counts.fast - again.fast).toBe(1)
      expect(messagesOf(file)).toEqual(["1", "3"])
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  }, 30_000)

  it.effect("a foreign append between two appends: no step at once; the foreign row is folded, the leaf kept", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      const id1 = yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      // another writer (no lock of ours involved) appends a row on another branch point
      fs.appendFileSync(file, entryLine("f0000001", id1, user("foreign")) + "\n")
      const before = { ...counts }
      const id2 = yield* sm.appendMessage(user("2"))
      expect(counts.tries - before.tries).toBe(1)
      expect(counts.fast - before.fast).toBe(1)
      // the check under the one-step lock found the file grown: the hold was taken as an effect
      expect(counts.slow - before.slow).toBe(1)
      expect(messagesOf(file)).toEqual(["1", "foreign", "2"])
      expect(sm.getEntries().map((e) => e.id)).toContain("f0000001")
      expect(sm.getEntries().find((e) => e.id === id2)?.parentId).toBe(id1)
      expect(fs.existsSync(file + ".lock")).toBe(false)
      // and the one after is back on the one-step path
      const next = { ...counts }
      yield* sm.appendMessage(user("3"))
      expect(counts.slow - next.slow).toBe(0)
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  it.effect("a rewrite in place keeping the size (another mtime): re-read, not appended to blindly", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      yield* sm.appendMessage(user("a"))
      const file = sm.getSessionFile()!
      const text = fs.readFileSync(file, "utf8")
      // same length, other content, mtime moved on
      fs.writeFileSync(file, text.replace("\"a\"", "\"b\""))
      fs.utimesSync(file, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000))
      const before = { ...counts }
      yield* sm.appendMessage(user("c"))
      expect(counts.slow - before.slow).toBe(1)
      expect(messagesOf(file)).toEqual(["b", "c"])
      expect(sm.getEntries().map((e) => e.type === "message" ? (e.message as { content: string }).content : ""))
        .toEqual(
          ["b", "c"]
        )
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  it.effect("a torn tail (added since, or found at open): the new row starts on a line of its own", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      fs.appendFileSync(file, "{\"type\":\"message\",\"torn")
      const before = { ...counts }
      yield* sm.appendMessage(user("2"))
      expect(counts.slow - before.slow).toBe(1)
      const lines = linesOf(fs.readFileSync(file, "utf8"))
      expect(lines[lines.length - 2]).toBe("{\"type\":\"message\",\"torn")
      expect(JSON.parse(lines[lines.length - 1]!).message.content).toBe("2")

      // opened with a torn tail: the cursor's tail does not end with a newline, so no step at once
      const torn = path.join(tempDir(), "torn.jsonl")
      fs.copyFileSync(file, torn)
      fs.appendFileSync(torn, "{\"torn\":")
      const opened = yield* SessionManager.open(torn, undefined, undefined, { eagerFlush: true })
      const again = { ...counts }
      yield* opened.appendMessage(user("3"))
      expect(counts.fast - again.fast).toBe(0)
      expect(counts.slow - again.slow).toBe(1)
      const tornLines = linesOf(fs.readFileSync(torn, "utf8"))
      expect(tornLines[tornLines.length - 2]).toBe("{\"torn\":")
      expect(JSON.parse(tornLines[tornLines.length - 1]!).message.content).toBe("3")
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })

  it.effect("durability fsync takes the hold as an effect", () => {
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true, durability: "fsync" })
      yield* sm.appendMessage(user("1"))
      const before = { ...counts }
      yield* sm.appendMessage(user("2"))
      expect(counts.tries - before.tries).toBe(0)
      expect(counts.slow - before.slow).toBe(1)
      expect(messagesOf(sm.getSessionFile()!)).toEqual(["1", "2"])
    }).pipe(wrap, Effect.provide(SessionStore.layerNode))
  })
})
