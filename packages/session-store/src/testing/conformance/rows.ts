/** Opaque and corrupt rows kept byte for byte through appends and rewrites; legacy and headerless sessions. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, entryRow, headerRow, raw, reopen, stored, test, user } from "./support.js"

const opaque = JSON.stringify({ type: "x-extension", id: "0pa90001", parentId: "c0000001", note: "kept", n: 1.50 })
const opaqueNoId = "{\"type\":\"x-meta\",\"weird\" :  [1,2,3]}"
const corrupt = "{\"type\":\"message\",\"id\":\"broken\", this is not json"
const padded = `  ${entryRow("c0000003", "c0000002", user("padded"))}\t`

const mixed = [
  headerRow("mixed-1"),
  entryRow("c0000001", null, user("q")),
  opaque,
  corrupt,
  entryRow("c0000002", "0pa90001", assistant("a")),
  opaqueNoId,
  padded
]

/** The row cases. */
export const group: Group = {
  name: "opaque and corrupt rows",
  cases: [
    test("opaque, corrupt and padded rows are kept byte for byte, in place, through appends", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "mixed", mixed)
        const sm = yield* s.open(ref)
        yield* sm.appendMessage(user("next"))
        yield* sm.appendMessage(assistant("reply"))
        const rows = yield* raw(s, ref)
        expect(rows.slice(0, mixed.length)).toEqual(mixed)
        expect(rows).toHaveLength(mixed.length + 2)
      })),
    test("opaque, corrupt and padded rows are kept byte for byte, in place, through a rewrite", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "mixed", mixed)
        const sm = yield* s.open(ref)
        const backups = yield* sm.rewrite("backup")
        expect(backups).toHaveLength(1)
        expect(yield* raw(s, ref)).toEqual(mixed)
        yield* sm.setIdentity({ sessionId: "renamed-1", cwd: "/new" })
        yield* sm.rewrite("backup")
        const rows = yield* raw(s, ref)
        expect(JSON.parse(rows[0]!)).toMatchObject({ id: "renamed-1", cwd: "/new" })
        expect(rows.slice(1)).toEqual(mixed.slice(1))
      })),
    test("a corrupt row is reported by its row number and skipped by every read", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "mixed", mixed)
        const sm = yield* reopen(s, ref)
        expect(sm.loadReport().corrupt.map((c) => c.line)).toEqual([4])
        expect(sm.getEntries().map((e) => e.id)).toEqual(["c0000001", "c0000002", "c0000003"])
      })),
    test("an entry under a parent-linked opaque row hangs under the opaque row's parent", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "mixed", mixed)
        const sm = yield* reopen(s, ref)
        expect(sm.getBranch().map((e) => e.id)).toEqual(["c0000001", "c0000002", "c0000003"])
        expect(sm.getChildren("c0000001").map((e) => e.id)).toEqual(["c0000002"])
        expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
      })),
    test("forkFrom carries opaque and padded rows byte for byte", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = yield* s.seed(place, "mixed", mixed)
        const fork = yield* s.forkFrom(ref, "/dst", place)
        const rows = yield* raw(s, s.refOf(fork))
        expect(rows).toContain(opaque)
        expect(rows).toContain(opaqueNoId)
        expect(rows).toContain(padded)
      })),
    test("a legacy session is migrated on a writable open, its original rows kept in a backup", (s) =>
      Effect.gen(function*() {
        const legacy = [
          headerRow("legacy-1", "/old", null),
          JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: user("hi") }),
          JSON.stringify({
            type: "message",
            timestamp: "2025-01-01T00:00:02.000Z",
            message: { role: "hookMessage", customType: "x", content: "h", display: true, timestamp: 2 }
          })
        ]
        const ref = yield* s.seed(yield* s.place, "legacy", legacy)
        const sm = yield* s.open(ref)
        expect(sm.loadReport()).toMatchObject({ migratedFrom: 1, rewritten: true })
        expect(yield* s.backups(ref)).toEqual([legacy])
        const rows = yield* stored(s, ref)
        expect(rows[0]).toMatchObject({ type: "session", version: 3, id: "legacy-1" })
        expect(rows[1]!.id).toMatch(/^[0-9a-f]{8}$/)
        expect(rows[2]).toMatchObject({ parentId: rows[1]!.id, message: { role: "custom" } })
        expect((yield* reopen(s, ref)).loadReport().migratedFrom).toBeUndefined()
      })),
    test("a session whose header is missing is recovered with every entry, its original rows in a backup", (s) =>
      Effect.gen(function*() {
        const rows = [
          "garbage {",
          entryRow("aaaa0001", null, user("kept")),
          entryRow("aaaa0002", "aaaa0001", assistant("kept too"))
        ]
        const ref = yield* s.seed(yield* s.place, "headerless", rows)
        const sm = yield* s.open(ref)
        expect(sm.wasRecoveredFromCorruptHeader()).toBe(true)
        expect(sm.getLeafId()).toBe("aaaa0002")
        expect(yield* s.backups(ref)).toEqual([rows])
        const after = yield* raw(s, ref)
        expect(JSON.parse(after[0]!)).toMatchObject({ type: "session", version: 3 })
        expect(after.slice(1)).toEqual(rows)
        expect((yield* reopen(s, ref)).wasRecoveredFromCorruptHeader()).toBe(false)
      })),
    test("a header found after entries is moved first; the entries and their order are kept", (s) =>
      Effect.gen(function*() {
        const rows = [
          entryRow("bbbb0001", null, user("before header")),
          headerRow("late-id", "/late"),
          entryRow("bbbb0002", "bbbb0001", assistant("a"))
        ]
        const ref = yield* s.seed(yield* s.place, "late", rows)
        const sm = yield* s.open(ref)
        expect(sm.getSessionId()).toBe("late-id")
        expect(sm.getCwd()).toBe("/late")
        const after = yield* stored(s, ref)
        expect(after.map((r) => r.id)).toEqual(["late-id", "bbbb0001", "bbbb0002"])
        expect(yield* s.backups(ref)).toEqual([rows])
      }))
  ]
}
