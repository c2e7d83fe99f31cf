/**
 * `StoreRouter`: one `TranscriptStore` over the JSONL files and a driver (here `MemoryStore`
 * serving `memory:` references): each operation reaches the backend its reference or location
 * names, a driver's store is made only when first used, and a store without `watch` is followed
 * by polling.
 */
import * as MemoryStore from "@branchlog/session-store/MemoryStore"
import * as SessionCopy from "@branchlog/session-store/SessionCopy"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as StoreRouter from "../src/StoreRouter.js"
import { counting } from "./support/lockCounts.js"

const temp = mkdtempSync(path.join(tmpdir(), "branchlog-router-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const memoryDriver = (made: { count: number }): StoreRouter.Driver => ({
  kind: "Memory",
  schemes: ["memory:"],
  addressing: {
    resolveLocation: (location) => location,
    locationOf: (ref) => ref._tag === "Memory" ? ref.location : "",
    refFor: (location, header) => SessionRef.memory(location, header.id),
    positionAfter: StoreRows.positionAfter
  },
  make: Effect.suspend(() => {
    made.count += 1
    return MemoryStore.make()
  })
})

const layerWith = (made: { count: number }) => StoreRouter.layerNode([memoryDriver(made)])

describe("StoreRouter", () => {
  it.live("sends each session to the backend its reference names, and lists each location from its own", () => {
    const made = { count: 0 }
    return Effect.gen(function*() {
      const dir = mkdtempSync(path.join(temp, "files-"))
      const onFile = yield* SessionManager.create("/work", dir)
      yield* onFile.appendMessage({ role: "user", content: "on a file", timestamp: 1 })
      yield* onFile.flush()
      expect(made.count).toBe(0) // nothing named a memory session yet
      const onMemory = yield* SessionManager.create("/work", "memory:/team")
      yield* onMemory.appendMessage({ role: "user", content: "in memory", timestamp: 2 })
      yield* onMemory.flush()
      expect(made.count).toBe(1)
      expect(onMemory.getSessionRef()?._tag).toBe("Memory")
      expect(readdirSync(dir).filter((n) => n.endsWith(".jsonl")).length).toBe(1)

      const store = yield* TranscriptStore
      const files = yield* store.list({ location: dir })
      const memory = yield* store.list({ location: "memory:/team" })
      expect(files.map((s) => s.ref._tag)).toEqual(["File"])
      expect(memory.map((s) => s.firstMessage)).toEqual(["in memory"])
      expect(Option.map(yield* store.mostRecent("memory:/team"), SessionRef.format)).toEqual(
        Option.some(SessionRef.format(onMemory.getSessionRef()!))
      )
      const reopened = yield* SessionManager.open(SessionRef.format(onMemory.getSessionRef()!))
      expect(reopened.getEntries().map((e) => e.type)).toEqual(["message"])

      // a copy between the two backends, and back, keeps every row's text
      const { to } = yield* SessionCopy.copy(onFile.getSessionRef()!, { _tag: "Location", location: "memory:/copies" })
      expect(to._tag).toBe("Memory")
      const back = yield* SessionCopy.copy(to, { _tag: "Location", location: mkdtempSync(path.join(temp, "back-")) })
      const original = (yield* store.load(onFile.getSessionRef()!, { readOnly: true, cwd: "" })).rows()
      const returned = (yield* store.load(back.to, { readOnly: true, cwd: "" })).rows()
      expect(returned.map((r) => r._tag)).toEqual(original.map((r) => r._tag))

      // search goes to the store of the location; a store without search says so
      const hits = yield* store.search!({ text: "file", location: dir })
      expect(hits.map((h) => h.snippet)).toEqual(["on a [file]"])
      const refused = yield* Effect.flip(store.search!({ text: "memory", location: "memory:/team" }))
      expect(refused._tag).toBe("SearchUnsupportedError")
      expect(refused.message).toBe("the memory store cannot search messages (memory:/team)")
      expect(made.count).toBe(1)
    }).pipe(Effect.provide(layerWith(made)))
  })

  it.live("a store without watch is followed by polling", () =>
    Effect.gen(function*() {
      const store = yield* TranscriptStore
      const signals = yield* store.watch!(SessionRef.memory("/x", "s")).pipe(Stream.take(2), Stream.runCollect)
      expect(Chunk.size(signals)).toBe(2)
    }).pipe(Effect.provide(layerWith({ count: 0 }))))

  it.live("a driver's store is made once, and closed with the router's scope", () => {
    const made = { count: 0 }
    let closed = 0
    const driver: StoreRouter.Driver = {
      ...memoryDriver(made),
      make: Effect.zipLeft(
        memoryDriver(made).make,
        Effect.addFinalizer(() => Effect.sync(() => closed++))
      )
    }
    return Effect.gen(function*() {
      yield* Effect.scoped(Effect.gen(function*() {
        const fallback = yield* MemoryStore.make()
        const router = yield* StoreRouter.make(fallback, [driver])
        yield* router.list({ location: "memory:/a" })
        yield* router.list({ location: "memory:/b" })
        yield* router.load(SessionRef.memory("/a", "none"), { cwd: "" })
        expect(made.count).toBe(1)
        expect(closed).toBe(0)
      }))
      expect(closed).toBe(1)
    })
  })

  it("routes a location by its scheme and everything else to the default store", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const fallback = yield* MemoryStore.make()
      const router = yield* StoreRouter.make({ ...fallback, name: "files" }, [memoryDriver({ count: 0 })])
      expect(router.name).toBe("files+memory")
      expect(router.refFor("memory:/loc", { type: "session", version: 3, id: "s1", timestamp: "", cwd: "" })).toEqual(
        SessionRef.memory("memory:/loc", "s1")
      )
      expect(router.resolveLocation("./plain")).toBe("./plain")
    }))))

  it.live("forwards the files' one-step append (the CLI's fast path); a driver's reference answers undefined: take the hold", () => {
    // which path ran, seen through the lock: one-step takes (`fast`) and holds taken as an effect
    const { counts, wrap } = counting()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", mkdtempSync(path.join(temp, "fast-")), { eagerFlush: true })
      yield* sm.appendMessage({ role: "user", content: "1", timestamp: 1 })
      const before = { ...counts }
      yield* sm.appendMessage({ role: "user", content: "2", timestamp: 2 })
      yield* sm.appendMessage({ role: "user", content: "3", timestamp: 3 })
      expect(counts.fast - before.fast).toBe(2)
      expect(counts.slow - before.slow).toBe(0)
      const reread = yield* SessionManager.open(sm.getSessionFile()!, undefined, undefined, { readOnly: true })
      expect(reread.getEntries().length).toBe(3)
      // a driver's reference: no one step at once, the hold is taken
      const store = yield* TranscriptStore
      const fiber = Option.getOrThrow(Fiber.getCurrentFiber())
      const memory = SessionRef.memory("memory:/team", "s")
      expect(store.unsafeAppendLocked!(fiber, memory, undefined as never, () => [])).toBeUndefined()
      // over a store without the path, the router has none either
      const bare = yield* StoreRouter.make(yield* MemoryStore.make(), [])
      expect(bare.unsafeAppendLocked).toBeUndefined()
    }).pipe(Effect.scoped, wrap, Effect.provide(layerWith({ count: 0 })))
  })
})
