/** Forks (`forkFrom`, header `parentSession`), branched sessions and new sessions. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, raw, reopen, stored, test, user, view, written } from "./support.js"

/** The fork cases. */
export const group: Group = {
  name: "forks",
  cases: [
    test("forkFrom stores a new session at once: fresh header with parentSession, every source row in order", (s) =>
      Effect.gen(function*() {
        const { manager: src, ref: source, ids } = yield* written(s, 2)
        const target = yield* s.place
        const fork = yield* s.forkFrom(source, "/elsewhere", target)
        const rows = yield* stored(s, s.refOf(fork))
        expect(rows[0]).toMatchObject({ type: "session", version: 3, cwd: "/elsewhere", parentSession: source })
        expect(rows[0]!.id).not.toBe(src.getSessionId())
        expect(rows.slice(1).map((r) => r.id)).toEqual(ids)
        expect((yield* raw(s, s.refOf(fork))).slice(1)).toEqual((yield* raw(s, source)).slice(1))
        expect(fork.getHeader()!.parentSession).toBe(source)
        expect(fork.getCwd()).toBe("/elsewhere")
      })),
    test("forkFrom leaves the source unchanged and keeps its leaf position", (s) =>
      Effect.gen(function*() {
        const { manager: src, ref: source, ids } = yield* written(s, 2)
        yield* src.branch(ids[1]!)
        const before = yield* raw(s, source)
        const fork = yield* s.forkFrom(source, "/dst", yield* s.place)
        expect(yield* raw(s, source)).toEqual(before)
        expect(fork.getLeafId()).toBe(ids[1])
        expect((yield* reopen(s, s.refOf(fork))).getLeafId()).toBe(ids[1])
        expect(fork.getEntries()).toEqual(src.getEntries())
      })),
    test("forkFrom with no target cwd keeps the source's cwd", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const src = yield* s.create(place, "/src/project")
        yield* src.appendMessage(user("q"))
        yield* src.appendMessage(assistant("a"))
        const fork = yield* s.forkFrom(s.refOf(src), undefined, place)
        expect(fork.getCwd()).toBe("/src/project")
        expect((yield* stored(s, s.refOf(fork)))[0]).toMatchObject({ cwd: "/src/project", parentSession: s.refOf(src) })
      })),
    test("forkFrom of an absent source or of rows that are no session fails with InvalidSessionFileError, storing nothing", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const target = yield* s.place
        const missing = yield* Effect.flip(s.forkFrom(s.absent(place, "missing"), "/dst", target))
        expect(missing._tag).toBe("InvalidSessionFileError")
        const invalid = yield* s.seed(place, "invalid", ["{\"type\":\"message\"}", "not json"])
        const before = yield* raw(s, invalid)
        expect((yield* Effect.flip(s.forkFrom(invalid, "/dst", target)))._tag).toBe("InvalidSessionFileError")
        expect(yield* raw(s, invalid)).toEqual(before)
        expect(yield* s.list(target, "/dst")).toHaveLength(0)
      })),
    test("a fork is a session of its own: appends go to it, the source does not see them", (s) =>
      Effect.gen(function*() {
        const { ref: source, ids } = yield* written(s)
        const fork = yield* s.forkFrom(source, "/dst", yield* s.place)
        const before = yield* raw(s, source)
        const id = yield* fork.appendMessage(user("only in the fork"))
        expect(fork.getEntry(id)!.parentId).toBe(ids[1])
        expect(yield* raw(s, source)).toEqual(before)
        expect(view(yield* reopen(s, s.refOf(fork)))).toEqual(view(fork))
      })),
    test("createBranchedSession stores the path (labels re-created) as a new session whose parentSession is the old one", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref: old, ids } = yield* written(s, 2)
        yield* sm.appendLabelChange(ids[0]!, "start")
        yield* sm.branch(ids[1]!)
        const other = yield* sm.appendMessage(user("other branch"))
        const oldRows = yield* raw(s, old)
        yield* sm.createBranchedSession(ids[3]!)
        const ref = s.refOf(sm)
        expect(ref).not.toBe(old)
        const rows = yield* stored(s, ref)
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message", "message", "message", "label"])
        expect(rows[0]).toMatchObject({ parentSession: old })
        expect(rows.slice(1, 5).map((r) => r.id)).toEqual(ids)
        expect(rows[5]).toMatchObject({ targetId: ids[0], label: "start", parentId: ids[3] })
        expect(sm.getEntry(other)).toBeUndefined()
        expect(yield* raw(s, old)).toEqual(oldRows)
        expect(view(yield* reopen(s, ref))).toEqual(view(sm))
      })),
    test("createBranchedSession of a path without an assistant message waits for the first reply", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ids } = yield* written(s)
        yield* sm.createBranchedSession(ids[0]!)
        const ref = s.refOf(sm)
        expect(yield* s.rows(ref)).toBeUndefined()
        yield* sm.appendMessage(assistant("now"))
        expect((yield* stored(s, ref)).map((r) => r.type)).toEqual(["session", "message", "message"])
        expect((yield* Effect.flip(sm.createBranchedSession("zzzzzzzz")))._tag).toBe("EntryNotFoundError")
      })),
    test("newSession starts an empty session (id and parentSession honoured), stored with its first reply", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref: first } = yield* written(s)
        yield* sm.newSession({ id: "my-session", parentSession: first })
        const ref = s.refOf(sm)
        expect(ref).not.toBe(first)
        expect(sm.getSessionId()).toBe("my-session")
        expect(sm.getEntries()).toHaveLength(0)
        expect(sm.getLeafId()).toBeNull()
        yield* sm.appendMessage(user("2"))
        expect(yield* s.rows(ref)).toBeUndefined()
        yield* sm.appendMessage(assistant("2"))
        expect((yield* stored(s, ref))[0]).toMatchObject({ id: "my-session", parentSession: first })
        expect(yield* stored(s, first)).toHaveLength(3)
        expect((yield* reopen(s, ref)).getSessionId()).toBe("my-session")
      }))
  ]
}
