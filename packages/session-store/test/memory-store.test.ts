import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import * as MemoryStore from "../src/MemoryStore.js"
import * as SessionManager from "../src/SessionManager.js"
import * as SessionRef from "../src/SessionRef.js"
import { assistant, entryRow as entryLine, headerRow as headerLine, user } from "../src/testing/conformance/support.js"
import { TranscriptStore } from "../src/TranscriptStore.js"

/** A fresh memory store over a state the test can read. */
const setup = () => {
  const state = MemoryStore.makeState()
  const rowsOf = (ref: SessionRef.SessionRef | undefined) => state.sessions.get(SessionRef.format(ref!))?.rows ?? []
  return { state, rowsOf, layer: MemoryStore.layer(state) }
}

describe("SessionManager over the MemoryStore (rows in plain state, no filesystem)", () => {
  it.effect("keeps the flush order: nothing before the first assistant message, then header and entries", () => {
    const { layer, rowsOf } = setup()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", "loc")
      const ref = sm.getSessionRef()!
      expect(ref).toMatchObject({ _tag: "Memory", location: "loc", id: sm.getSessionId() })
      expect(sm.getSessionFile()).toBeUndefined()
      const u = yield* sm.appendMessage(user("hello"))
      expect(rowsOf(ref)).toEqual([])
      const a = yield* sm.appendMessage(assistant("hi"))
      const rows = rowsOf(ref).map((text) => JSON.parse(text))
      expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
      expect(rows.map((r) => r.id)).toEqual([sm.getSessionId(), u, a])
      const reopened = yield* SessionManager.open(ref)
      expect(reopened.getEntries().map((e) => e.id)).toEqual([u, a])
      expect(reopened.getLeafId()).toBe(a)
      // the string form opens it too
      const byString = yield* SessionManager.open(SessionRef.format(ref))
      expect(byString.getLeafId()).toBe(a)
    }).pipe(Effect.provide(layer))
  })

  it.effect("foreign appends are folded without moving the leaf; two writers end as sibling branches", () => {
    const { layer, rowsOf } = setup()
    return Effect.gen(function*() {
      const one = yield* SessionManager.create("/p", "loc", { eagerFlush: true })
      const u = yield* one.appendMessage(user("1"))
      const ref = one.getSessionRef()!
      const two = yield* SessionManager.open(ref)
      const mine = yield* one.appendMessage(assistant("from one"))
      const theirs = yield* two.appendMessage(assistant("from two"))
      expect(two.getEntry(mine)).toBeDefined()
      expect(two.getEntry(theirs)!.parentId).toBe(u)
      expect(two.getLeafId()).toBe(theirs)
      yield* one.refresh()
      expect(one.getLeafId()).toBe(mine)
      expect(one.getChildren(u).map((e) => e.id)).toEqual([mine, theirs])
      expect(rowsOf(ref)).toHaveLength(4)
    }).pipe(Effect.provide(layer))
  })

  it.effect("opaque, corrupt and blank rows round-trip byte for byte; a leaf control persists the position", () => {
    const { layer, rowsOf, state } = setup()
    return Effect.gen(function*() {
      const ref = SessionRef.memory("loc", "s1")
      const rows = [
        headerLine("s1", "/p"),
        "  " + entryLine("a0000001", null, user("u")) + "\r",
        "{\"type\":\"x-ext\",\"z\":1,\"a\":[2]}",
        "",
        "not json {",
        entryLine("a0000002", "a0000001", assistant("a"))
      ]
      state.sessions.set(SessionRef.format(ref), {
        ref,
        location: "loc",
        generation: 1,
        rows: [...rows],
        modifiedMs: 0
      })
      const sm = yield* SessionManager.open(ref)
      expect(sm.loadReport().corrupt.map((c) => c.line)).toEqual([5])
      yield* sm.branch("a0000001")
      const reopened = yield* SessionManager.open(ref)
      expect(reopened.getLeafId()).toBe("a0000001")
      expect(rowsOf(ref).slice(0, rows.length)).toEqual(rows)
      // a rewrite keeps a backup of the old rows
      const backups = yield* reopened.rewrite("backup")
      expect(backups).toHaveLength(1)
      expect(state.backups.get(backups[0]!)!.slice(0, rows.length)).toEqual(rows)
    }).pipe(Effect.provide(layer))
  })

  it.effect("lists sessions with their summary fields, finds the most recent, removes", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const store = yield* TranscriptStore
      const a = yield* SessionManager.create("/p", "loc", { eagerFlush: true })
      yield* a.appendMessage(user("first question"))
      const b = yield* SessionManager.create("/p", "other", { eagerFlush: true })
      yield* b.appendSessionInfo("named")
      const listed = yield* store.list({ location: "loc" })
      expect(listed.map((s) => s.id)).toEqual([a.getSessionId()])
      expect(listed[0]!.firstMessage).toBe("first question")
      expect((yield* store.list({})).length).toBe(2)
      const recent = yield* store.mostRecent("loc")
      expect(Option.map(recent, SessionRef.format)).toEqual(Option.some(SessionRef.format(a.getSessionRef()!)))
      const continued = yield* SessionManager.continueRecent("/p", "loc")
      expect(continued.getSessionId()).toBe(a.getSessionId())
      yield* store.remove(a.getSessionRef()!)
      expect(yield* store.list({ location: "loc" })).toEqual([])
      const missing = yield* Effect.flip(store.remove(a.getSessionRef()!))
      expect(missing._tag).toBe("SessionNotFoundError")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a read-only open writes nothing; an SQL reference fails clearly", () => {
    const { layer, rowsOf } = setup()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.create("/p", "loc", { eagerFlush: true })
      yield* sm.appendMessage(user("1"))
      const ro = yield* SessionManager.open(sm.getSessionRef()!, undefined, undefined, { readOnly: true })
      const refused = yield* Effect.flip(ro.appendMessage(user("2")))
      expect(refused._tag).toBe("ReadOnlySessionError")
      expect(rowsOf(sm.getSessionRef())).toHaveLength(2)
      const sql = yield* Effect.flip(SessionManager.open("sqlite:/tmp/x.db#abc"))
      expect(sql._tag).toBe("UnsupportedSessionRefError")
      expect(sql.message).toContain("sqlite:/tmp/x.db#abc")
    }).pipe(Effect.provide(layer))
  })
})

// the one memory row store is written as a backend author outside the package would write one:
// on the package's public modules only (each one an entry of package.json's exports)
describe("MemoryStore's imports", () => {
  it("are the package's public modules, session-core and effect only", () => {
    const src = path.join(import.meta.dirname, "..", "src")
    const exported = Object.keys(
      (JSON.parse(fs.readFileSync(path.join(src, "..", "package.json"), "utf8")) as {
        readonly exports: Record<string, unknown>
      }).exports
    )
    const imports = [
      ...fs.readFileSync(path.join(src, "MemoryStore.ts"), "utf8").matchAll(/\bfrom "([^"]+)"/g)
    ].map((m) => m[1]!)
    expect(imports.length).toBeGreaterThan(5)
    for (const module of imports) {
      if (module.startsWith("./")) expect(exported, module).toContain(module.replace(/\.js$/, ""))
      else expect(module, module).toMatch(/^(@branchlog\/session-core|effect\/\w+)$/)
    }
  })
})
