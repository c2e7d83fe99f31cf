/** `prepareForRun` (spec §12): identity, reset with a backup, rewrite with a backup, refusal. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as PrepareForRun from "../../PrepareForRun.js"
import type { Group } from "./support.js"
import { assistant, entryRow, headerRow, raw, seededTurns, stored, test, user } from "./support.js"

const noReply = [headerRow("old-id"), entryRow("dddd0001", null, user("lost turn"))]

/** The prepareForRun cases. */
export const group: Group = {
  name: "prepareForRun",
  cases: [
    test("a session that did not exist takes the run's identity and stores nothing", (s) =>
      Effect.gen(function*() {
        const ref = s.absent(yield* s.place, "fresh")
        const sm = yield* s.open(ref)
        const input = { sessionFile: ref, hadSessionFile: false, sessionId: "run-1", cwd: "/run" }
        expect(yield* PrepareForRun.prepareForRun(sm, input)).toBe("identity")
        expect(sm.getSessionId()).toBe("run-1")
        expect(sm.getCwd()).toBe("/run")
        expect(yield* s.rows(ref)).toBeUndefined()
        yield* sm.appendMessage(user("q"))
        yield* sm.appendMessage(assistant("a"))
        expect((yield* stored(s, ref))[0]).toMatchObject({ id: "run-1", cwd: "/run" })
      })),
    test("a session without a reply is reset with a backup of its rows; the run's header is stored with its reply", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "no-reply", noReply)
        const sm = yield* s.open(ref)
        const input = { sessionFile: ref, hadSessionFile: true, sessionId: "run-2", cwd: "/run" }
        expect(yield* PrepareForRun.prepareForRun(sm, input)).toBe("reset")
        expect(yield* raw(s, ref)).toEqual([])
        expect(yield* s.backups(ref)).toEqual([noReply])
        expect(sm.getEntries()).toHaveLength(0)
        yield* sm.appendMessage(user("q"))
        yield* sm.appendMessage(assistant("a"))
        const rows = yield* stored(s, ref)
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
        expect(rows[0]).toMatchObject({ id: "run-2", cwd: "/run" })
      })),
    test("a session with a reply and the same identity is left byte for byte", (s) =>
      Effect.gen(function*() {
        const rows = seededTurns("run-3", "/run")
        const ref = yield* s.seed(yield* s.place, "same", rows)
        const sm = yield* s.open(ref)
        const input = { sessionFile: ref, hadSessionFile: true, sessionId: "run-3", cwd: "/run" }
        expect(yield* PrepareForRun.prepareForRun(sm, input)).toBe("unchanged")
        expect(yield* raw(s, ref)).toEqual(rows)
        expect(yield* s.backups(ref)).toEqual([])
      })),
    test("a session with a reply and a new identity is rewritten with its entries, after a backup", (s) =>
      Effect.gen(function*() {
        const rows = seededTurns("old-4", "/old")
        const ref = yield* s.seed(yield* s.place, "changed", rows)
        const sm = yield* s.open(ref)
        const input = { sessionFile: ref, hadSessionFile: true, sessionId: "run-4", cwd: "/run" }
        expect(yield* PrepareForRun.prepareForRun(sm, input)).toBe("rewritten")
        const after = yield* raw(s, ref)
        expect(JSON.parse(after[0]!)).toMatchObject({ id: "run-4", cwd: "/run" })
        expect(after.slice(1)).toEqual(rows.slice(1))
        expect(yield* s.backups(ref)).toEqual([rows])
        expect(sm.getLeafId()).toBe("e0000004")
      })),
    test("a headerless session without a reply is recovered and rewritten with the run's identity", (s) =>
      Effect.gen(function*() {
        const rows = ["garbage", entryRow("dddd0001", null, user("q"))]
        const ref = yield* s.seed(yield* s.place, "headerless", rows)
        const sm = yield* s.open(ref)
        const input = { sessionFile: ref, hadSessionFile: true, sessionId: "run-5", cwd: "/run" }
        expect(yield* PrepareForRun.prepareForRun(sm, input)).toBe("rewritten")
        const after = yield* stored(s, ref)
        expect(after[0]).toMatchObject({ type: "session", id: "run-5", cwd: "/run" })
        expect(after.map((r) => r.id ?? r.corrupt)).toEqual(["run-5", "garbage", "dddd0001"])
      })),
    test("a reset is refused when another writer stored a reply meanwhile; its rows stay", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "raced", noReply)
        const sm = yield* s.open(ref)
        const reply = yield* s.independent(
          Effect.flatMap(s.open(ref), (other) => other.appendMessage(assistant("won")))
        )
        const input = { sessionFile: ref, hadSessionFile: true, sessionId: "run-6", cwd: "/run" }
        const error = yield* Effect.flip(PrepareForRun.prepareForRun(sm, input))
        expect(error._tag).toBe("InvalidSessionFileError")
        expect((yield* stored(s, ref)).map((r) => r.id)).toEqual(["old-id", "dddd0001", reply])
      }))
  ]
}
