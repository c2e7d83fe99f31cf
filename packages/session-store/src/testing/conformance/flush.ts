/** Create, open, append and flush order: nothing stored before the first assistant message, the header once. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, converse, entryRow, headerRow, raw, reopen, stored, test, user, written } from "./support.js"

/** The flush-order cases. */
export const group: Group = {
  name: "create, open, append, flush",
  cases: [
    test("create stores nothing; user messages wait in memory", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/work/project")
        expect(sm.isPersisted()).toBe(true)
        yield* sm.appendMessage(user("hello"))
        yield* sm.appendThinkingLevelChange("high")
        expect(sm.pendingCount()).toBe(3)
        expect(yield* s.rows(s.refOf(sm))).toBeUndefined()
        expect(yield* s.list(place, "/work/project")).toHaveLength(0)
      })),
    test("the first assistant message stores header and every pending row at once, in order", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/work/project")
        const u = yield* sm.appendMessage(user("hello"))
        const a = yield* sm.appendMessage(assistant("hi"))
        const rows = yield* stored(s, s.refOf(sm))
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
        expect(rows[0]).toEqual(sm.getHeader())
        expect(rows[1]).toMatchObject({ id: u, parentId: null })
        expect(rows[2]).toMatchObject({ id: a, parentId: u })
        expect(sm.pendingCount()).toBe(0)
      })),
    test("after the first flush every append stores exactly its own row", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const before = yield* raw(s, ref)
        const id = yield* sm.appendMessage(user("again"))
        const after = yield* raw(s, ref)
        expect(after.slice(0, before.length)).toEqual(before)
        expect(after).toHaveLength(before.length + 1)
        expect(after.at(-1)).toBe(JSON.stringify(sm.getEntry(id)))
      })),
    test("stored rows are exactly JSON.stringify of the header and each entry", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s, 2)
        yield* sm.appendModelChange("openai", "gpt-5")
        expect(yield* raw(s, ref)).toEqual([sm.getHeader(), ...sm.getEntries()].map((row) => JSON.stringify(row)))
        const keys = Object.keys(JSON.parse((yield* raw(s, ref))[0]!))
        expect(keys).toEqual(["type", "version", "id", "timestamp", "cwd"])
      })),
    test("flush() stores pending rows before any assistant message; the header is never stored twice", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/p")
        yield* sm.appendMessage(user("one"))
        yield* sm.flush()
        expect((yield* stored(s, s.refOf(sm))).map((r) => r.type)).toEqual(["session", "message"])
        yield* sm.appendMessage(user("two"))
        yield* sm.appendMessage(assistant("reply"))
        yield* sm.flush()
        const rows = yield* stored(s, s.refOf(sm))
        expect(rows.filter((r) => r.type === "session")).toHaveLength(1)
        expect(rows).toHaveLength(4)
      })),
    test("eagerFlush stores the header on create and each row as it is appended", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/p", { eagerFlush: true })
        expect((yield* stored(s, s.refOf(sm))).map((r) => r.type)).toEqual(["session"])
        yield* sm.appendMessage(user("now"))
        expect((yield* stored(s, s.refOf(sm))).map((r) => r.type)).toEqual(["session", "message"])
        expect(sm.pendingCount()).toBe(0)
      })),
    test("a header-only session reopened and appended to keeps one header", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "header-only", [headerRow("s-1")])
        const sm = yield* s.open(ref)
        yield* sm.appendMessage(user("again"))
        expect(yield* raw(s, ref)).toHaveLength(1)
        yield* sm.appendMessage(assistant("answer"))
        const rows = yield* stored(s, ref)
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
        expect(rows[1]!.parentId).toBeNull()
      })),
    test("an assistant-less session reopened appends after its rows, with one header", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "user-only", [headerRow("s-2"), entryRow("aaaa0001", null, user("q"))])
        const sm = yield* s.open(ref)
        expect(sm.getLeafId()).toBe("aaaa0001")
        yield* sm.appendMessage(user("again"))
        yield* sm.appendMessage(assistant("answer"))
        const rows = yield* stored(s, ref)
        expect(rows.filter((r) => r.type === "session")).toHaveLength(1)
        expect(rows.map((r) => r.parentId)).toEqual([undefined, null, "aaaa0001", rows[2]!.id])
      })),
    test("opening an absent reference starts a new session there, stored with its first reply", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = s.absent(place, "fresh")
        const sm = yield* s.open(ref)
        expect(s.refOf(sm)).toBe(ref)
        expect(sm.getEntries()).toHaveLength(0)
        expect(sm.getHeader()).not.toBeNull()
        yield* sm.appendMessage(user("q"))
        expect(yield* s.rows(ref)).toBeUndefined()
        yield* sm.appendMessage(assistant("a"))
        expect((yield* stored(s, ref)).map((r) => r.type)).toEqual(["session", "message", "message"])
        expect((yield* stored(s, ref))[0]!.id).toBe(sm.getSessionId())
      })),
    test("a reopened session continues at its last entry with its cwd, id and reference", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/home/me/project")
        const ids = yield* converse(sm, 2)
        const again = yield* reopen(s, s.refOf(sm))
        expect(again.getLeafId()).toBe(ids.at(-1))
        expect(again.getCwd()).toBe("/home/me/project")
        expect(again.getSessionId()).toBe(sm.getSessionId())
        expect(s.refOf(again)).toBe(s.refOf(sm))
        const next = yield* again.appendMessage(user("more"))
        expect(again.getEntry(next)!.parentId).toBe(ids.at(-1))
        expect((yield* stored(s, s.refOf(sm))).at(-1)!.id).toBe(next)
      })),
    test("a seeded session opens with its header, entries and leaf", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "seeded", [
          headerRow("seeded-9", "/seeded"),
          entryRow("b0000001", null, user("q")),
          entryRow("b0000002", "b0000001", assistant("a"))
        ])
        const sm = yield* s.open(ref)
        expect(sm.getSessionId()).toBe("seeded-9")
        expect(sm.getCwd()).toBe("/seeded")
        expect(sm.getEntries().map((e) => e.id)).toEqual(["b0000001", "b0000002"])
        expect(sm.getLeafId()).toBe("b0000002")
        expect(sm.hasAssistantMessage()).toBe(true)
        expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant"])
      })),
    test("appendMessages stores each message as its own row, in order", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const ids = yield* sm.appendMessages([user("a"), assistant("b"), user("c")])
        expect(ids).toHaveLength(3)
        const rows = yield* stored(s, ref)
        expect(rows.slice(-3).map((r) => r.id)).toEqual(ids)
        expect(rows.slice(-3).map((r) => r.parentId)).toEqual([rows.at(-4)!.id, ids[0], ids[1]])
      })),
    test("appends inside withWriteLock are stored in order; a failure inside lets the session go", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const ids = yield* sm.withWriteLock(Effect.forEach([1, 2, 3], (i) => sm.appendMessage(user(`${i}`))))
        expect((yield* stored(s, ref)).slice(-3).map((r) => r.id)).toEqual(ids)
        const failed = yield* Effect.flip(
          sm.withWriteLock(Effect.zipRight(sm.appendMessage(user("4")), Effect.fail("boom")))
        )
        expect(failed).toBe("boom")
        const other = yield* s.independent(Effect.gen(function*() {
          const o = yield* s.open(ref)
          return yield* o.appendMessage(user("other writer"))
        }))
        expect((yield* stored(s, ref)).at(-1)!.id).toBe(other)
      }))
  ]
}
