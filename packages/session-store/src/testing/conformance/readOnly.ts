/** Read-only opens never write: no migration, no recovery, no append, no backup. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, entryRow, headerRow, raw, seededTurns, test, user, written } from "./support.js"

/** The read-only cases. */
export const group: Group = {
  name: "read-only opens",
  cases: [
    test("a read-only open reads everything and reports itself read-only", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s, 2)
        const ro = yield* s.open(ref, { readOnly: true })
        expect(ro.isReadOnly()).toBe(true)
        expect(ro.getEntries()).toEqual(sm.getEntries())
        expect(ro.getLeafId()).toBe(sm.getLeafId())
      })),
    test("every write of a read-only manager fails with ReadOnlySessionError and stores nothing", (s) =>
      Effect.gen(function*() {
        const ref = yield* s.seed(yield* s.place, "turns", seededTurns())
        const ro = yield* s.open(ref, { readOnly: true })
        const writes = [
          ro.appendMessage(user("x")),
          ro.appendThinkingLevelChange("high"),
          ro.appendSessionInfo("name"),
          ro.appendLabelChange("e0000001", "l"),
          ro.appendCustomEntry("c"),
          ro.branch("e0000002"),
          ro.resetLeaf(),
          ro.branchWithSummary("e0000002", "s")
        ]
        for (const write of writes) {
          expect(((yield* Effect.flip(write)) as { readonly _tag: string })._tag).toBe("ReadOnlySessionError")
        }
        expect(yield* raw(s, ref)).toEqual(seededTurns())
        expect(yield* s.backups(ref)).toEqual([])
      })),
    test("a read-only open of a legacy session migrates in memory only", (s) =>
      Effect.gen(function*() {
        const legacy = [
          headerRow("legacy-ro", "/old", null),
          JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: user("hi") })
        ]
        const ref = yield* s.seed(yield* s.place, "legacy", legacy)
        const ro = yield* s.open(ref, { readOnly: true })
        expect(ro.getHeader()!.version).toBe(3)
        expect(ro.getEntries()).toHaveLength(1)
        expect(ro.loadReport()).toMatchObject({ migratedFrom: 1, rewritten: false, backups: [] })
        expect(yield* raw(s, ref)).toEqual(legacy)
        expect(yield* s.backups(ref)).toEqual([])
      })),
    test("a read-only open of a headerless session recovers in memory only", (s) =>
      Effect.gen(function*() {
        const rows = ["not json", entryRow("aaaa0001", null, user("kept"))]
        const ref = yield* s.seed(yield* s.place, "headerless", rows)
        const ro = yield* s.open(ref, { readOnly: true })
        expect(ro.wasRecoveredFromCorruptHeader()).toBe(true)
        expect(ro.getEntries().map((e) => e.id)).toEqual(["aaaa0001"])
        expect(yield* raw(s, ref)).toEqual(rows)
        expect(yield* s.backups(ref)).toEqual([])
      })),
    test("a read-only open of an absent reference stores nothing and lists nothing", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = s.absent(place, "absent")
        const ro = yield* s.open(ref, { readOnly: true })
        expect(ro.getEntries()).toHaveLength(0)
        expect(yield* s.rows(ref)).toBeUndefined()
        expect(yield* s.list(place, "/work/project")).toHaveLength(0)
      })),
    test("a read-only manager sees another writer's rows on refresh and still stores nothing", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const ro = yield* s.independent(s.open(ref, { readOnly: true }))
        const added = yield* sm.appendMessage(assistant("more"))
        const before = yield* raw(s, ref)
        yield* s.independent(ro.refresh())
        expect(ro.getEntry(added)).toBeDefined()
        expect(ro.getEntries().map((e) => e.id)).toEqual([...ids, added])
        expect(yield* raw(s, ref)).toEqual(before)
      }))
  ]
}
