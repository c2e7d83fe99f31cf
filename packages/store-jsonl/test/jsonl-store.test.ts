import { Line } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { TranscriptLock } from "../src/TranscriptLock.js"
import { assistant, entryLine, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

describe("JsonlStore, the file backend of TranscriptStore (real files)", () => {
  it.effect("load, changes since a cursor, and appends that check the cursor", () =>
    Effect.gen(function*() {
      const store = yield* TranscriptStore
      const dir = tempDir()
      const file = path.join(dir, "s.jsonl")
      fs.writeFileSync(file, headerLine("s1", "/p") + "\n" + entryLine("a0000001", null, user("u")) + "\n")
      const ref = yield* store.resolve(SessionRef.file(file))
      const loaded = yield* store.load(ref, { cwd: "/p" })
      expect(loaded).toMatchObject({ exists: true, end: { line: 2 }, tailId: "a0000001", hasAssistant: false })
      expect(yield* store.changes(ref, loaded.cursor!)).toEqual({ _tag: "Unchanged" })
      const foreign = entryLine("a0000002", "a0000001", assistant("a"))
      fs.appendFileSync(file, foreign + "\n")
      const change = yield* store.changes(ref, loaded.cursor!)
      expect(change._tag).toBe("Appended")
      if (change._tag !== "Appended") return
      expect(change.rows.map((r) => [r._tag, r.line])).toEqual([["Entry", 3]])
      // a write with the old cursor is refused; with the new one it lands after the foreign row
      const stale = yield* Effect.flip(store.exclusive(ref, (held) => held.append(loaded.cursor!, ["{\"x\":1}"])))
      expect(stale._tag).toBe("StaleCursorError")
      const appended = yield* store.exclusive(ref, (held) => held.append(change.cursor, ["{\"type\":\"x-ext\"}"]))
      expect(appended.positions).toEqual([{ line: 4, offset: change.end.offset }])
      expect(fs.readFileSync(file, "utf8").split("\n")[3]).toBe("{\"type\":\"x-ext\"}")
      // create refuses a session that has rows
      const conflict = yield* Effect.flip(store.exclusive(ref, (held) => held.create([headerLine("s2")])))
      expect(conflict._tag).toBe("SessionFileConflictError")
      // a replace by rename is `Replaced`, a removal `Missing`
      fs.writeFileSync(file + ".tmp", headerLine("s1", "/p") + "\n")
      fs.renameSync(file + ".tmp", file)
      expect((yield* store.changes(ref, appended.cursor))._tag).toBe("Replaced")
      fs.rmSync(file)
      expect((yield* store.changes(ref, appended.cursor))._tag).toBe("Missing")
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("rows() gives every row back byte for byte: BOM, CRLF, blank lines, opaque, corrupt, a torn tail", () =>
    Effect.gen(function*() {
      const store = yield* TranscriptStore
      const dir = tempDir()
      const original = "\uFEFF" + headerLine("s1", "/p") + "\r\n" +
        "\n" +
        entryLine("a0000001", null, user("u")) + "\r\n" +
        "   \n" +
        "{\"type\":\"x-ext\",  \"z\": 1}\n" +
        "not json {\n" +
        entryLine("a0000002", "a0000001", assistant("a")) + "\n" +
        "\n" +
        "{\"type\":\"message\",\"id\":\"torn"
      for (const cache of [true, false]) {
        const file = path.join(dir, `exact-${cache}.jsonl`)
        fs.writeFileSync(file, original)
        const loaded = yield* store.load(SessionRef.file(file), { cwd: "/p", readOnly: true, cache })
        expect(loaded.report.tornTail).toBeDefined()
        const text = loaded.rows().map(Line.serialize).join("\n") + (loaded.report.tornTail === undefined ? "\n" : "")
        expect(text).toBe(original)
        expect(loaded.rows().map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
      }
      // a cache hit (the file only grew, by a blank line and a row) gives them back too
      const whole = original.slice(0, original.lastIndexOf("\n") + 1)
      const file = path.join(dir, "cached.jsonl")
      fs.writeFileSync(file, whole)
      yield* store.load(SessionRef.file(file), { cwd: "/p" })
      const grown = whole + "\n" + entryLine("a0000003", "a0000002", user("v")) + "\n"
      fs.writeFileSync(file, grown)
      const hit = yield* store.load(SessionRef.file(file), { cwd: "/p" })
      expect(hit.report.fromCache).toBe(true)
      expect(hit.rows().map(Line.serialize).join("\n") + "\n").toBe(grown)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("lists with summary fields and references, finds the most recent, removes", () =>
    Effect.gen(function*() {
      const store = yield* TranscriptStore
      const dir = tempDir()
      const a = yield* SessionManager.create("/p", dir, { eagerFlush: true })
      yield* a.appendMessage(user("question"))
      const listed = yield* SessionCatalog.listStore({ location: dir })
      expect(listed.map((s) => [s.id, s.firstMessage, s.ref])).toEqual([
        [a.getSessionId(), "question", SessionRef.file(a.getSessionFile()!)]
      ])
      expect(Option.getOrUndefined(yield* store.mostRecent(dir))).toEqual(SessionRef.file(a.getSessionFile()!))
      yield* store.remove(a.getSessionRef()!)
      expect(fs.existsSync(a.getSessionFile()!)).toBe(false)
      expect((yield* Effect.flip(store.remove(a.getSessionRef()!)))._tag).toBe("SessionNotFoundError")
      expect((yield* Effect.flip(store.load(SessionRef.memory("x", "y"), { cwd: "/" })))._tag).toBe(
        "UnsupportedSessionRefError"
      )
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("the cache belongs to the layer: layerNodeWith({cache: {maxEntries: 0}}) never hits", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const file = sm.getSessionFile()!
      yield* SessionManager.open(file)
      expect((yield* SessionManager.open(file)).loadReport().fromCache).toBe(false)
      // with the default bounds, the second open of one layer build is a cache hit
      const cached = yield* Effect.zipRight(SessionManager.open(file), SessionManager.open(file)).pipe(
        Effect.provide(SessionStore.layerNode)
      )
      expect(cached.loadReport().fromCache).toBe(true)
    }).pipe(Effect.provide(SessionStore.layerNodeWith({ cache: { maxEntries: 0 } }))))

  it.effect("takes the lock through the TranscriptLock of the caller's context (e.g. the CLI's --lock-timeout)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const seen: Array<number | undefined> = []
      const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
      yield* sm.appendMessage(user("1")).pipe(
        Effect.updateService(TranscriptLock, (lock) => ({
          ...lock,
          acquire: (file, options) => {
            seen.push(options?.timeoutMs ?? -1)
            return lock.acquire(file, { ...options, timeoutMs: 1234 })
          },
          withLock: (file, effect, options) => {
            seen.push(options?.timeoutMs ?? -1)
            return lock.withLock(file, effect, { ...options, timeoutMs: 1234 })
          },
          // the uncontended one-step path of an append outside any hold goes through it too
          unsafeTryLock: (fiber, file, options) => {
            seen.push(options?.timeoutMs ?? -1)
            return lock.unsafeTryLock?.(fiber, file, { ...options, timeoutMs: 1234 })
          }
        }))
      )
      expect(seen).toEqual([-1])
      yield* sm.appendMessage(user("2"))
      expect(seen).toHaveLength(1)
    }).pipe(Effect.provide(SessionStore.layerNode)))
})

describe("JsonlStore's agent folder (the store's own option, not the listing query's)", () => {
  it.live("a listing without a location covers <agentDir>/sessions/* of the store's option", () =>
    Effect.gen(function*() {
      const agent = tempDir()
      const other = tempDir()
      const write = (root: string, cwd: string, id: string) => {
        const dir = path.join(root, "sessions", `--${cwd.replaceAll("/", "-")}--`)
        fs.mkdirSync(dir, { recursive: true })
        fs.writeFileSync(path.join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`), headerLine(id, cwd) + "\n")
      }
      write(agent, "/p/one", "s-one")
      write(agent, "/p/two", "s-two")
      write(other, "/p/three", "s-three")
      const listed = (agentDir: string) =>
        Effect.gen(function*() {
          const store = yield* TranscriptStore
          return (yield* store.list({})).map((s) => s.id).sort()
        }).pipe(Effect.provide(SessionStore.layerNodeWith({ agentDir })))
      expect(yield* listed(agent)).toEqual(["s-one", "s-two"])
      expect(yield* listed(other)).toEqual(["s-three"])
    }))
})
