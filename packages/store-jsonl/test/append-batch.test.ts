/**
 * `appendMessages`: a batch is ONE commit. Its entries are built as that many `appendMessage` calls
 * would build them (the same ids, parents, order and bytes) and handed to the store in one write
 * (with the rows still pending before the session's first flush), or kept pending together; a
 * failure keeps nothing of the batch (`written: 0`, the state and the leaf as before), so a retry
 * of the whole batch duplicates nothing.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as IdSource from "@branchlog/session-store/IdSource"
import type * as SessionError from "@branchlog/session-store/SessionError"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { TranscriptObserver } from "@branchlog/session-store/TranscriptObserver"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as TestContext from "effect/TestContext"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { assistant, rowsOf, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const file = "/s/batch.jsonl"
const contents = (volume: MemoryFileSystem.MemoryVolume) =>
  rowsOf(volume.readText(file)).filter((row) => row.type === "message").map((row) => row.message.content)

const toolResult = (text: string): AgentMessage.AgentMessage => ({
  role: "toolResult",
  toolCallId: "call-1",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 1_777_000_000_000
})

/** What a reader sees of a manager (compared between the batched and the single-append runs). */
const view = (sm: SessionManager.SessionManager) => ({
  header: sm.getHeader(),
  entries: sm.getEntries(),
  leaf: sm.getLeafId(),
  tree: sm.getTree(),
  hasAssistant: sm.hasAssistantMessage(),
  context: sm.buildSessionContext()
})

/** Counts the writes of bytes to `path`'s file on `volume` (every other file's writes pass untouched). */
const countWrites = (volume: MemoryFileSystem.MemoryVolume, target: string) => {
  const writes: Array<string> = []
  const write = volume.write.bind(volume)
  volume.write = (inode, bytes) => {
    if (volume.inode(target) === inode) writes.push(new TextDecoder().decode(bytes))
    write(inode, bytes)
  }
  return writes
}

describe("SessionManager.appendMessages", () => {
  it.effect("appends every message in order and returns their ids", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      const ids = yield* sm.appendMessages([user("one"), user("two"), user("three")])
      expect(ids).toHaveLength(3)
      expect(sm.getBranch().map((entry) => entry.id)).toEqual(ids)
      expect(contents(volume)).toEqual(["one", "two", "three"])
      expect(yield* sm.appendMessages([])).toEqual([])
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  describe("gives what as many appendMessage calls give (ids, parents, order, bytes, state)", () => {
    const role = fc.constantFrom("user", "assistant", "toolResult")
    const scenario = fc.record({
      eager: fc.boolean(),
      held: fc.boolean(),
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      before: fc.array(role, { maxLength: 3 }),
      batches: fc.array(fc.array(role, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 })
    })
    type Scenario = typeof scenario extends fc.Arbitrary<infer A> ? A : never
    const messagesOf = (roles: ReadonlyArray<string>, prefix: string) =>
      roles.map((r, i) =>
        r === "user"
          ? user(`${prefix}${i} q`)
          : r === "assistant"
          ? assistant(`${prefix}${i} a`)
          : toolResult(`${prefix}${i} r`)
      )

    type Run = <A>(effect: Effect.Effect<A, unknown, SessionManager.StoreRequirement>) => Promise<A>

    /** Plays the scenario in `dir` (batched or one message at a time), with repeatable ids, session id and time. */
    const play = (
      run: Run,
      dir: string,
      s: Scenario,
      before: ReadonlyArray<AgentMessage.AgentMessage>,
      batches: ReadonlyArray<ReadonlyArray<AgentMessage.AgentMessage>>,
      batched: boolean
    ) =>
      run(
        Effect.gen(function*() {
          const sm = yield* SessionManager.create("/work/project", dir, { eagerFlush: s.eager })
          for (const message of before) yield* sm.appendMessage(message)
          const all = Effect.forEach(
            batches,
            (batch): Effect.Effect<ReadonlyArray<string>, unknown> =>
              batched ? sm.appendMessages(batch) : Effect.forEach(batch, (m) => sm.appendMessage(m))
          )
          const ids = (yield* (s.held ? sm.withWriteLock(all) : all)).flat()
          const pending = view(sm)
          yield* sm.flush()
          return { sm, ids, pending }
        }).pipe(
          Effect.provide(IdSource.deterministic(s.seed)),
          Effect.withRandom(Random.make(s.seed)),
          Effect.provide(TestContext.TestContext)
        )
      )

    /** Plays `s` both ways in two places and compares everything a reader sees, and the stored bytes. */
    const compare = async (
      run: Run,
      dirs: readonly [string, string],
      read: (path: string) => string | undefined,
      s: Scenario
    ) => {
      // the same message objects both ways (the builders stamp each message with a fresh time)
      const before = messagesOf(s.before, "b")
      const batches = s.batches.map((roles, i) => messagesOf(roles, `m${i}.`))
      const batched = await play(run, dirs[0], s, before, batches, true)
      const single = await play(run, dirs[1], s, before, batches, false)
      expect(batched.ids).toEqual(single.ids)
      expect(batched.pending).toEqual(single.pending)
      expect(view(batched.sm)).toEqual(view(single.sm))
      const fileA = batched.sm.getSessionFile()!
      const fileB = single.sm.getSessionFile()!
      expect(path.basename(fileA)).toBe(path.basename(fileB))
      expect(read(fileA)).toBeDefined()
      expect(read(fileA)).toBe(read(fileB))
      const reopened = await run(SessionManager.open(fileA, undefined, undefined, { cache: false }))
      expect(reopened.getEntries()).toEqual(batched.sm.getEntries())
    }

    it("on real files (node)", async () => {
      const run = <A>(effect: Effect.Effect<A, unknown, SessionManager.StoreRequirement>) =>
        Effect.runPromise(Effect.provide(effect, SessionStore.layerNode))
      await fc.assert(
        fc.asyncProperty(
          scenario,
          (s) =>
            compare(run, [tempDir(), tempDir()], (p) => fs.existsSync(p) ? fs.readFileSync(p, "utf8") : undefined, s)
        ),
        { numRuns: 40 }
      )
    }, 60_000)

    it("on the memory file system", async () => {
      await fc.assert(
        fc.asyncProperty(scenario, (s) => {
          const volume = MemoryFileSystem.make()
          const run = <A>(effect: Effect.Effect<A, unknown, SessionManager.StoreRequirement>) =>
            Effect.runPromise(Effect.provide(effect, SessionStore.layerMemory(volume)))
          return compare(run, ["/a", "/b"], (p) => volume.readText(p), s)
        }),
        { numRuns: 100 }
      )
    }, 60_000)
  })

  it.effect("hands a batch to the file in one write, also inside withWriteLock and after a foreign write", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      yield* sm.appendMessage(user("first"))
      const writes = countWrites(volume, file)
      const ids = yield* sm.appendMessages([user("a"), assistant("b"), toolResult("c")])
      expect(writes).toHaveLength(1)
      expect(rowsOf(writes[0]).map((row) => row.id)).toEqual(ids)
      const held = yield* sm.withWriteLock(Effect.gen(function*() {
        yield* sm.appendMessage(user("d"))
        return yield* sm.appendMessages([assistant("e"), user("f")])
      }))
      expect(writes).toHaveLength(3)
      expect(rowsOf(writes[2]).map((row) => row.id)).toEqual(held)
      // another writer appends; the batch catches up first, then hangs under this manager's leaf
      const other = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true, cache: false })
      const foreign = yield* other.appendMessage(user("other"))
      const leaf = sm.getLeafId()
      const after = yield* sm.appendMessages([user("g"), assistant("h")])
      expect(writes).toHaveLength(5)
      expect(rowsOf(writes[4]).map((row) => row.id)).toEqual(after)
      expect(sm.getEntry(foreign)).toBeDefined()
      expect(sm.getEntry(after[0]!)!.parentId).toBe(leaf)
      expect(sm.getEntry(after[1]!)!.parentId).toBe(after[0])
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("before the first assistant message a batch waits; the one with an assistant message is one write with the header", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work/project", "/s")
      const path = sm.getSessionFile()!
      const waiting = yield* sm.appendMessages([user("q1"), toolResult("r1")])
      expect(volume.readText(path)).toBeUndefined()
      expect(sm.getEntries().map((entry) => entry.id)).toEqual(waiting)
      expect(sm.hasAssistantMessage()).toBe(false)
      const single = yield* sm.appendMessage(user("q2"))
      expect(volume.readText(path)).toBeUndefined()
      const seen: Array<string> = []
      const observer = {
        onAppend: ({ entry }: { entry: { id: string } }) => Effect.sync(() => void seen.push(entry.id))
      }
      const answered = yield* sm.appendMessages([user("q3"), assistant("a1"), user("q4")]).pipe(
        Effect.provideService(TranscriptObserver, observer)
      )
      const rows = rowsOf(volume.readText(path))
      expect(rows.map((row) => row.type)).toEqual(["session", ...Array(6).fill("message")])
      expect(rows.slice(1).map((row) => row.id)).toEqual([...waiting, single, ...answered])
      expect(rows.slice(1).map((row) => row.parentId)).toEqual([
        null,
        waiting[0],
        waiting[1],
        single,
        ...answered.slice(0, 2)
      ])
      // the observer hears of every entry the write stored, in order, once
      expect(seen).toEqual([...waiting, single, ...answered])
      expect(sm.hasAssistantMessage()).toBe(true)
      const writes = countWrites(volume, path)
      yield* sm.appendMessages([user("q5"), user("q6")])
      expect(writes).toHaveLength(1)
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("stopped by a full disk, keeps nothing of the batch (written 0, state and file as before); a retry of the whole batch duplicates nothing", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      yield* sm.appendMessages([user("m0")])
      const one = volume.readFile(file)!.length - volume.readText(file)!.indexOf("\n") - 1
      // room for two more lines of the same size (and not a third)
      volume.setSizeLimit(file, volume.readFile(file)!.length + 2 * one + Math.floor(one / 2))
      const bytes = volume.readText(file)
      const before = view(sm)
      const seen: Array<string> = []
      const observer = {
        onAppend: ({ entry }: { entry: { id: string } }) => Effect.sync(() => void seen.push(entry.id))
      }
      const batch = [user("m1"), user("m2"), user("m3"), user("m4"), user("m5")]
      for (const attempt of [sm.appendMessages(batch), sm.withWriteLock(sm.appendMessages(batch))]) {
        const error = (yield* Effect.flip(
          attempt.pipe(Effect.provideService(TranscriptObserver, observer))
        )) as SessionError.AppendBatchError
        expect(error._tag).toBe("AppendBatchError")
        expect(error).toMatchObject({ path: file, written: 0, pending: 0, total: 5 })
        expect(error.error).toMatchObject({ _tag: "FileSystemError", code: "ENOSPC" })
        expect(error.message).toContain("none of the batch's 5 entries was written")
        expect(volume.readText(file)).toBe(bytes)
        expect(view(sm)).toEqual(before)
        expect(seen).toEqual([])
      }
      // inside a hold whose last write was this manager's (the held descriptor's path)
      const error = yield* Effect.flip(sm.withWriteLock(Effect.gen(function*() {
        yield* sm.appendMessage(user("fits"))
        const state = view(sm)
        const text = volume.readText(file)
        const failed = yield* Effect.flip(sm.appendMessages(batch))
        expect(view(sm)).toEqual(state)
        expect(volume.readText(file)).toBe(text)
        return yield* failed
      })))
      expect(error).toMatchObject({ written: 0, pending: 0, total: 5 })
      volume.setSizeLimit(file, undefined)
      const ids = yield* sm.appendMessages(batch)
      expect(contents(volume)).toEqual(["m0", "fits", "m1", "m2", "m3", "m4", "m5"])
      const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      expect(reopened.getBranch().map((entry) => entry.id).slice(-5)).toEqual(ids)
      expect(reopened.getEntries()).toEqual(sm.getEntries())
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("a failed first flush keeps what was pending before the batch pending, and nothing of the batch", () => {
    const volume = MemoryFileSystem.make()
    volume.writeFile(file, "")
    volume.setSizeLimit(file, 10)
    return Effect.gen(function*() {
      // not eager: header and user messages wait for the first assistant message, whose write fails
      const sm = yield* SessionManager.open(file)
      const first = yield* sm.appendMessage(user("a"))
      const before = view(sm)
      const error = yield* Effect.flip(sm.appendMessages([user("b"), assistant("c")]))
      expect(error).toMatchObject({ written: 0, pending: 0, total: 2 })
      expect(error.message).toContain("none of the batch's 2 entries was written")
      expect(volume.readText(file)).toBe("")
      expect(view(sm)).toEqual(before)
      expect(sm.getLeafId()).toBe(first)
      volume.setSizeLimit(file, undefined)
      const ids = yield* sm.appendMessages([user("b"), assistant("c")])
      expect(rowsOf(volume.readText(file)).map((row) => row.id).slice(1)).toEqual([first, ...ids])
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("a read-only session refuses the batch whole", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      yield* sm.appendMessage(user("x"))
      const ro = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      const error = yield* Effect.flip(ro.appendMessages([user("y"), assistant("z")]))
      expect(error).toMatchObject({ written: 0, pending: 0, total: 2 })
      expect(error.error).toMatchObject({ _tag: "ReadOnlySessionError", operation: "appendMessages" })
      expect(ro.getEntries()).toHaveLength(1)
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("a resumed session's batch is one write, and the session resumes to the same branch", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      yield* sm.appendMessages([user("q"), assistant("a")])
      const resumed = yield* SessionManager.resume(file, undefined, undefined, { eagerFlush: true })
      const writes = countWrites(volume, file)
      const ids = yield* resumed.appendMessages([user("q2"), assistant("a2"), user("q3")])
      expect(writes).toHaveLength(1)
      const again = yield* SessionManager.resume(file, undefined, undefined, {})
      expect(again.getBranch().map((entry) => entry.id).slice(-3)).toEqual(ids)
      const full = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      expect(again.getBranch()).toEqual(full.getBranch())
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })
})
