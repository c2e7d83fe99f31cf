/** Other writers: appends folded without moving the leaf, replacements re-read, racing writers as sibling branches. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, converse, entryRow, raw, reopen, stored, test, user, written } from "./support.js"

/** The writer cases. */
export const group: Group = {
  name: "other writers",
  cases: [
    test("another manager's appends are folded into this one's next append; this manager's leaf does not move", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const foreign = yield* s.independent(Effect.gen(function*() {
          const other = yield* s.open(ref)
          return yield* converse(other, 1, "other")
        }))
        const mine = yield* sm.appendMessage(user("mine"))
        expect(sm.getEntry(mine)!.parentId).toBe(ids[1])
        expect(sm.getEntry(foreign[1]!)).toBeDefined()
        expect(sm.getChildren(ids[1]!).map((e) => e.id)).toEqual([foreign[0], mine])
        expect(sm.getLeafId()).toBe(mine)
        expect((yield* stored(s, ref)).slice(-3).map((r) => r.id)).toEqual([...foreign, mine])
      })),
    test("refresh() folds another writer's rows without storing anything or moving the leaf", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        yield* s.foreignAppend(ref, [entryRow("f0000001", ids[1]!, user("from another tool"))])
        const before = yield* raw(s, ref)
        yield* sm.refresh()
        expect(sm.getEntry("f0000001")).toMatchObject({ parentId: ids[1] })
        expect(sm.getLeafId()).toBe(ids[1])
        expect(yield* raw(s, ref)).toEqual(before)
      })),
    test("raw rows another tool appended are kept and the next append goes after them", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const rows = [entryRow("f0000001", ids[1]!, user("a")), entryRow("f0000002", "f0000001", assistant("b"))]
        yield* s.foreignAppend(ref, rows)
        const mine = yield* sm.appendMessage(user("mine"))
        const after = yield* raw(s, ref)
        expect(after.slice(-3, -1)).toEqual(rows)
        expect(JSON.parse(after.at(-1)!).id).toBe(mine)
        expect(sm.getEntry(mine)!.parentId).toBe(ids[1])
        const again = yield* reopen(s, ref)
        expect(again.getEntries()).toHaveLength(5)
        expect(again.getLeafId()).toBe(mine)
      })),
    test("a foreign replacement of every row is re-read before the next append", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const rows = yield* raw(s, ref)
        const label = JSON.stringify({
          type: "label",
          id: "eeee0001",
          parentId: ids[0],
          timestamp: "2026-05-01T10:00:00.000Z",
          targetId: ids[0],
          label: "inserted"
        })
        yield* s.foreignReplace(ref, [rows[0]!, rows[1]!, label, rows[2]!])
        const mine = yield* sm.appendMessage(user("after the rewrite"))
        expect(sm.getLabel(ids[0]!)).toBe("inserted")
        expect(sm.getEntry(mine)!.parentId).toBe(ids[1])
        expect((yield* stored(s, ref)).map((r) => r.id)).toEqual([sm.getSessionId(), ids[0], "eeee0001", ids[1], mine])
      })),
    test("a foreign replacement that drops rows is re-read: the dropped entries are gone, nothing is written back", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        const rows = yield* raw(s, ref)
        yield* s.foreignReplace(ref, rows.slice(0, 3))
        yield* sm.refresh()
        expect(sm.getEntry(ids[3]!)).toBeUndefined()
        expect(sm.getEntries().map((e) => e.id)).toEqual(ids.slice(0, 2))
        const mine = yield* sm.appendMessage(user("after"))
        expect((yield* stored(s, ref)).map((r) => r.id)).toEqual([sm.getSessionId(), ids[0], ids[1], mine])
      })),
    test("a session removed under a live manager is stored back whole with the next append", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        yield* s.remove(ref)
        const id = yield* sm.appendMessage(user("2"))
        const rows = yield* stored(s, ref)
        expect(rows.map((r) => r.id)).toEqual([sm.getSessionId(), ...ids, id])
      })),
    test("two writers racing from one leaf end as sibling branches with no row lost", (s) =>
      Effect.gen(function*() {
        const { ref, ids } = yield* written(s)
        // both open before either writes: each sees the same leaf
        const first = yield* s.independent(s.open(ref))
        const second = yield* s.independent(s.open(ref))
        const writer = (sm: typeof first, name: string) =>
          Effect.gen(function*() {
            const mine: Array<string> = []
            for (let i = 0; i < 15; i++) {
              mine.push(yield* sm.appendMessage(i % 2 === 0 ? user(`${name}${i}`) : assistant(`${name}${i}`)))
              yield* Effect.yieldNow()
            }
            return mine
          })
        const [a, b] = yield* Effect.all([writer(first, "a"), writer(second, "b")], { concurrency: 2 })
        const rows = yield* stored(s, ref)
        const stor = rows.slice(1).map((r) => r.id as string)
        expect(stor).toHaveLength(2 + 30)
        expect(new Set(stor).size).toBe(stor.length)
        const again = yield* reopen(s, ref)
        expect(again.getChildren(ids[1]!).map((e) => e.id).sort()).toEqual([a![0], b![0]].sort())
        expect(again.getBranch(a!.at(-1)).map((e) => e.id)).toEqual([...ids, ...a!])
        expect(again.getBranch(b!.at(-1)).map((e) => e.id)).toEqual([...ids, ...b!])
      })),
    test("turns held in withWriteLock by two racing writers are each stored contiguously", (s) =>
      Effect.gen(function*() {
        const { ref } = yield* written(s)
        const writer = (name: string) =>
          s.independent(Effect.gen(function*() {
            const sm = yield* s.open(ref)
            const turns: Array<Array<string>> = []
            for (let t = 0; t < 4; t++) {
              turns.push(
                yield* sm.withWriteLock(Effect.gen(function*() {
                  const turn: Array<string> = []
                  for (let i = 0; i < 3; i++) {
                    turn.push(yield* sm.appendMessage(user(`${name}${t}.${i}`)))
                    yield* Effect.yieldNow()
                  }
                  return turn
                }))
              )
            }
            return turns
          }))
        const [a, b] = yield* Effect.all([writer("a"), writer("b")], { concurrency: 2 })
        const stor = (yield* stored(s, ref)).map((r) => r.id as string)
        expect(stor).toHaveLength(3 + 24)
        for (const turn of [...a!, ...b!]) {
          const at = stor.indexOf(turn[0]!)
          expect(stor.slice(at, at + 3)).toEqual(turn)
        }
      })),
    test("a writer that branched keeps its leaf when another writer appends meanwhile", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.branch(ids[1]!)
        const other = yield* s.independent(Effect.gen(function*() {
          const o = yield* s.open(ref)
          yield* o.branch(ids[3]!)
          return yield* o.appendMessage(user("on the old leaf"))
        }))
        const mine = yield* sm.appendMessage(user("on my branch"))
        expect(sm.getEntry(mine)!.parentId).toBe(ids[1])
        expect(sm.getEntry(other)!.parentId).toBe(ids[3])
        const again = yield* reopen(s, ref)
        expect(again.getLeafId()).toBe(mine)
        expect(again.getChildren(ids[1]!).map((e) => e.id)).toEqual([ids[2], mine])
        expect(again.getChildren(ids[3]!).map((e) => e.id)).toEqual([other])
      }))
  ]
}
