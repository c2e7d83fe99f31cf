/** Listing (`SessionCatalog`), most-recent and `continueRecent`, and removal. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Group } from "./support.js"
import { assistant, converse, headerRow, raw, seededTurns, test, user } from "./support.js"

/** A pause so that a later write is also later by the store's clock (file mtimes). */
const later = Effect.sleep("30 millis")

/** The catalog cases. */
export const group: Group = {
  name: "listing, most recent, removal",
  cases: [
    test("list gives each stored session's id, cwd, name, message count and first message", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/home/u/proj")
        yield* sm.appendMessage(user("first question"))
        yield* sm.appendMessage(assistant("first answer"))
        yield* sm.appendSessionInfo("  Named  ")
        const listed = yield* s.list(place, "/home/u/proj")
        expect(listed).toHaveLength(1)
        expect(listed[0]!.ref).toBe(s.refOf(sm))
        expect(listed[0]!.info).toMatchObject({
          id: sm.getSessionId(),
          cwd: "/home/u/proj",
          name: "Named",
          messageCount: 2,
          firstMessage: "first question",
          allMessagesText: "first question first answer"
        })
        expect(listed[0]!.info.created.getTime()).toBe(Date.parse(sm.getHeader()!.timestamp ?? ""))
      })),
    test("list is newest first by the last message's time and shows a fork's parent", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const older = yield* s.create(place, "/p")
        yield* older.appendMessage({ ...user("old"), timestamp: 1_000 })
        yield* older.appendMessage({ ...assistant("old"), timestamp: 2_000 })
        const newer = yield* s.create(place, "/p")
        yield* newer.appendMessage({ ...user("new"), timestamp: 5_000 })
        yield* newer.appendMessage({ ...assistant("new"), timestamp: 6_000 })
        const fork = yield* s.forkFrom(s.refOf(older), "/p", place)
        const listed = yield* s.list(place, "/p")
        expect(listed).toHaveLength(3)
        expect(listed[0]!.ref).toBe(s.refOf(newer))
        expect(listed.map((l) => l.ref).sort()).toEqual([s.refOf(newer), s.refOf(older), s.refOf(fork)].sort())
        expect(listed.find((l) => l.ref === s.refOf(fork))!.info.parentSessionPath).toBe(s.refOf(older))
        expect(listed.find((l) => l.ref === s.refOf(newer))!.info.modified.getTime()).toBe(6_000)
      })),
    test("list leaves out sessions not yet stored and stored rows that are no session", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const pending = yield* s.create(place, "/work/project")
        yield* pending.appendMessage(user("waiting"))
        yield* s.seed(place, "not-a-session", ["{\"type\":\"message\"}"])
        const good = yield* s.seed(place, "good", seededTurns())
        const listed = yield* s.list(place, "/work/project")
        expect(listed.map((l) => l.ref)).toEqual([good])
        expect(listed[0]!.info).toMatchObject({ id: "seeded-1", messageCount: 4, firstMessage: "first question" })
      })),
    test("a session without messages is listed with no messages; backups are never listed", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "bare", [headerRow("bare-1")])
        const sm = yield* s.open(ref)
        yield* sm.rewrite("backup")
        expect(yield* s.backups(ref)).toHaveLength(1)
        const listed = yield* s.list(place, "/work/project")
        expect(listed).toHaveLength(1)
        expect(listed[0]!.info).toMatchObject({ id: "bare-1", messageCount: 0, firstMessage: "(no messages)" })
      })),
    test("most recent is the session written last; an empty place has none", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        expect(yield* s.mostRecent(place)).toEqual(Option.none())
        const a = yield* s.create(place, "/p")
        yield* converse(a, 1)
        yield* later
        const b = yield* s.create(place, "/p")
        yield* converse(b, 1)
        expect(yield* s.mostRecent(place)).toEqual(Option.some(s.refOf(b)))
        yield* later
        yield* a.appendMessage(user("again"))
        expect(yield* s.mostRecent(place)).toEqual(Option.some(s.refOf(a)))
      })),
    test("most recent passes over stored rows that are no session", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const good = yield* s.seed(place, "good", seededTurns())
        yield* later
        yield* s.seed(place, "bad", ["{\"type\":\"message\",\"id\":\"x\"}"])
        expect(yield* s.mostRecent(place)).toEqual(Option.some(good))
      })),
    test("continueRecent opens the most recent session with its entries and leaf", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const a = yield* s.create(place, "/p")
        yield* converse(a, 1)
        yield* later
        const b = yield* s.create(place, "/p")
        const ids = yield* converse(b, 2)
        yield* b.branch(ids[1]!)
        const sm = yield* s.continueRecent(place, "/p")
        expect(s.refOf(sm)).toBe(s.refOf(b))
        expect(sm.getEntries().map((e) => e.id)).toEqual(ids)
        expect(sm.getLeafId()).toBe(ids[1])
      })),
    test("continueRecent in an empty place creates a new session and stores nothing yet", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.continueRecent(place, "/p")
        expect(sm.getEntries()).toHaveLength(0)
        expect(sm.getCwd()).toBe("/p")
        expect(yield* s.rows(s.refOf(sm))).toBeUndefined()
        expect(yield* s.list(place, "/p")).toHaveLength(0)
      })),
    test("a removed session is no longer listed, most recent or opened; others stay", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const keep = yield* s.create(place, "/p")
        yield* converse(keep, 1)
        const keepRows = yield* raw(s, s.refOf(keep))
        yield* later
        const gone = yield* s.create(place, "/p")
        yield* converse(gone, 1)
        yield* s.remove(s.refOf(gone))
        expect(yield* s.rows(s.refOf(gone))).toBeUndefined()
        expect((yield* s.list(place, "/p")).map((l) => l.ref)).toEqual([s.refOf(keep)])
        expect(yield* s.mostRecent(place)).toEqual(Option.some(s.refOf(keep)))
        expect((yield* s.independent(s.open(s.refOf(gone)))).getEntries()).toHaveLength(0)
        expect(yield* raw(s, s.refOf(keep))).toEqual(keepRows)
      }))
  ]
}
