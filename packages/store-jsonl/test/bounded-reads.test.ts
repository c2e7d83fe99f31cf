/**
 * The synchronous reads of a bounded manager (`SessionManager.resume`) never load the rest of the
 * session: what the loaded path answers exactly (the leaf's context, its entries, labels, name,
 * header, a whole branch) answers; what needs the rest throws `SessionNotLoadedError` (naming the
 * session and the read) until `yield* manager.loadFull()`, after which every read answers as a
 * full open. The writes that need the rest load it first, as effects.
 */
import { Messages } from "@branchlog/session-core/testing"
import { SessionNotLoadedError } from "@branchlog/session-store/SessionError"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { afterAll } from "vitest"
import type * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"

const { answers } = ResumeChecks

afterAll(cleanupTempRoots)

type Requirements = SessionStore.Services

const { assistant, user } = Messages

/** What `read` threw (`undefined`: it answered). */
const thrown = (read: () => unknown): unknown => {
  try {
    read()
    return undefined
  } catch (error) {
    return error
  }
}

/** 10 turns with a thinking level, a compaction keeping the last 4 entries, 2 more turns: resumed bounded. */
const compacted = (dir: string) =>
  Effect.gen(function*() {
    const created = yield* SessionManager.create("/work", dir, { eagerFlush: true })
    const file = created.getSessionFile()!
    yield* created.appendThinkingLevelChange("high")
    for (let i = 0; i < 10; i++) {
      yield* created.appendMessage(user(`u${i}`))
      yield* created.appendMessage(assistant(`a${i}`))
    }
    const branch = created.getBranch()
    const early = branch[3]!.id
    const kept = branch[branch.length - 4]!.id
    yield* created.appendLabelChange(early, "early")
    yield* created.appendCompaction("the start", kept, 10)
    for (let i = 0; i < 2; i++) {
      yield* created.appendMessage(user(`v${i}`))
      yield* created.appendMessage(assistant(`b${i}`))
    }
    yield* SessionManager.resume(file) // builds the index
    const sm = yield* SessionManager.resume(file)
    const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
    return { file, sm, full, early, kept }
  })

for (const harness of harnesses) {
  describe(`bounded reads (${harness.name})`, () => {
    it.live("what needs the rest throws SessionNotLoadedError, loading nothing; loadFull, then as a full open", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const { early, file, full, kept, sm } = yield* compacted(dir)
        expect(sm.isBounded()).toBe(true)
        const reads: Record<string, () => unknown> = {
          getTree: () => sm.getTree(),
          getEntries: () => sm.getEntries(),
          getState: () => sm.getState(),
          getChildren: () => sm.getChildren(kept),
          getBranch: () => sm.getBranch(),
          getEntry: () => sm.getEntry(early),
          buildSessionContext: () => sm.buildSessionContext(early),
          hasThinkingLevelChange: () => sm.hasThinkingLevelChange(early)
        }
        for (const [method, read] of Object.entries(reads)) {
          const error = thrown(read)
          expect(error, method).toBeInstanceOf(SessionNotLoadedError)
          const refused = error as SessionNotLoadedError
          expect(refused._tag).toBe("SessionNotLoadedError")
          expect(refused.method).toBe(method)
          expect(refused.path).toBe(file)
          expect(refused.message).toContain(`${method}: the session ${file}`)
          expect(refused.message).toContain("`yield* manager.loadFull()` first")
        }
        expect(sm.isBounded()).toBe(true)
        // what the loaded path answers exactly
        const path = sm.getBoundedState()!.entries
        const afterCompaction = path[path.length - 2]!.id
        expect(sm.buildSessionContext()).toEqual(full.buildSessionContext())
        expect(sm.buildSessionContext(afterCompaction)).toEqual(full.buildSessionContext(afterCompaction))
        // the kept entry's own context takes every row from the root (no compaction on its path)
        expect(() => sm.buildSessionContext(kept)).toThrow(SessionNotLoadedError)
        expect(sm.hasThinkingLevelChange()).toBe(true)
        expect(sm.hasThinkingLevelChange(kept)).toBe(true)
        expect(sm.getLeafEntry()).toEqual(full.getLeafEntry())
        expect(sm.getEntry(kept)).toEqual(full.getEntry(kept))
        expect(sm.getLabel(early)).toBe("early")
        expect(sm.getSessionName()).toBe(full.getSessionName())
        expect(sm.getHeader()).toEqual(full.getHeader())
        // an id the session certainly does not hold
        expect(sm.getEntry("00000000-none")).toBeUndefined()
        expect(sm.getBranch("00000000-none")).toEqual([])
        expect(sm.getChildren("00000000-none")).toEqual([])
        expect(sm.hasThinkingLevelChange("00000000-none")).toBe(false)
        expect(sm.isBounded()).toBe(true)
        yield* sm.loadFull()
        expect(sm.isBounded()).toBe(false)
        expect(JSON.stringify(sm.getTree())).toBe(JSON.stringify(full.getTree()))
        expect(sm.getEntries()).toEqual(full.getEntries())
        expect(sm.getState().entries).toEqual(full.getState().entries)
        expect(sm.getChildren(kept)).toEqual(full.getChildren(kept))
        expect(sm.getBranch()).toEqual(full.getBranch())
        expect(sm.getEntry(early)).toEqual(full.getEntry(early))
        expect(sm.buildSessionContext(early)).toEqual(full.buildSessionContext(early))
        expect(sm.hasThinkingLevelChange(early)).toBe(full.hasThinkingLevelChange(early))
        expect(answers(sm)).toEqual(answers(full))
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("a session without a compaction: the whole branch answers bounded; the tree still throws", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const created = yield* SessionManager.create("/work", dir, { eagerFlush: true })
        const file = created.getSessionFile()!
        const root = yield* created.appendMessage(user("root"))
        yield* created.appendMessage(assistant("side"))
        yield* created.branch(root)
        for (let i = 0; i < 4; i++) yield* created.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))
        yield* SessionManager.resume(file)
        const sm = yield* SessionManager.resume(file)
        const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(sm.isBounded()).toBe(true)
        expect(sm.getBranch()).toEqual(full.getBranch())
        expect(sm.getBranch(root)).toEqual(full.getBranch(root))
        expect(sm.buildSessionContext(root)).toEqual(full.buildSessionContext(root))
        // the side branch off the root is not loaded
        expect(() => sm.getChildren(root)).toThrow(SessionNotLoadedError)
        expect(() => sm.getTree()).toThrow(SessionNotLoadedError)
        expect(sm.isBounded()).toBe(true)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("the leaf's context always answers: a branch behind the compaction loads the rest first", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const { file, kept, sm } = yield* compacted(dir)
        const path = sm.getBoundedState()!.entries
        const afterCompaction = path[path.length - 2]!.id
        // on the path after the compaction: stays bounded
        yield* sm.branch(afterCompaction)
        expect(sm.isBounded()).toBe(true)
        const there = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(sm.buildSessionContext()).toEqual(there.buildSessionContext(afterCompaction))
        // behind the compaction, the context takes every row from the root
        expect(() => sm.buildSessionContext(kept)).toThrow(SessionNotLoadedError)
        const next = path[1]!.id
        expect(() => sm.buildSessionContext(next)).toThrow(SessionNotLoadedError)
        yield* sm.branch(next)
        expect(sm.isBounded()).toBe(false)
        expect(sm.buildSessionContext()).toEqual(there.buildSessionContext(next))
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("a new root appended bounded (after resetLeaf): its whole branch and context answer, nothing loaded", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const { file, sm } = yield* compacted(dir)
        yield* sm.resetLeaf()
        expect(sm.buildSessionContext()).toEqual({ messages: [], thinkingLevel: "off", model: null })
        const a = yield* sm.appendMessage(user("a new root"))
        const b = yield* sm.appendMessage(assistant("answered"))
        yield* sm.appendCompaction("the new root", a, 5)
        const c = yield* sm.appendMessage(user("after"))
        expect(sm.isBounded()).toBe(true)
        const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(full.getLeafId()).toBe(c)
        expect(sm.getBranch()).toEqual(full.getBranch())
        expect(sm.getBranch(b)).toEqual(full.getBranch(b))
        expect(sm.buildSessionContext()).toEqual(full.buildSessionContext())
        expect(sm.buildSessionContext(b)).toEqual(full.buildSessionContext(b))
        // the settings before the loaded path are not this branch's
        expect(sm.hasThinkingLevelChange()).toBe(false)
        expect(full.hasThinkingLevelChange()).toBe(false)
        expect(sm.isBounded()).toBe(true)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("SessionManager.reading answers bounded where it can, else after loadFull; setIdentity loads first", () => {
      const { dir, layer } = harness.make()
      return Effect.gen(function*() {
        const { early, full, sm } = yield* compacted(dir)
        const context = yield* SessionManager.reading(sm, (m) => m.buildSessionContext())
        expect(context).toEqual(full.buildSessionContext())
        expect(sm.isBounded()).toBe(true)
        const tree = yield* SessionManager.reading(sm, (m) => m.getTree())
        expect(sm.isBounded()).toBe(false)
        expect(JSON.stringify(tree)).toBe(JSON.stringify(full.getTree()))
        expect(yield* SessionManager.reading(sm, (m) => m.getEntry(early))).toEqual(full.getEntry(early))
        // another throw is a defect
        const defect = yield* Effect.exit(SessionManager.reading(sm, () => {
          throw new Error("boom")
        }))
        expect(defect._tag).toBe("Failure")

        const { sm: other } = yield* compacted(dir)
        expect(other.isBounded()).toBe(true)
        expect(yield* other.setIdentity({ sessionId: "renamed", cwd: "/elsewhere" })).toBe(true)
        expect(other.isBounded()).toBe(false)
        expect(other.getHeader()?.id).toBe("renamed")
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })
  })
}
