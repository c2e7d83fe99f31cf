/** Branches, the leaf's persistence, labels and names, and reads after a reopen equal to those before. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { assistant, converse, raw, reopen, stored, test, user, view, written } from "./support.js"

/** The branching cases. */
export const group: Group = {
  name: "branches, leaf, labels, names",
  cases: [
    test("branch() is persisted: a reopen continues at the branched-to entry", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.branch(ids[1]!)
        expect(sm.getLeafId()).toBe(ids[1])
        const again = yield* reopen(s, ref)
        expect(again.getLeafId()).toBe(ids[1])
        expect(again.getEntries()).toHaveLength(4)
        const next = yield* again.appendMessage(user("fork"))
        expect(again.getEntry(next)!.parentId).toBe(ids[1])
      })),
    test("branch() to an unknown id fails with EntryNotFoundError and stores nothing", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const before = yield* raw(s, ref)
        const error = yield* Effect.flip(sm.branch("nope0000"))
        expect(error).toMatchObject({ _tag: "EntryNotFoundError", id: "nope0000" })
        expect(sm.getLeafId()).toBe(ids[1])
        expect(yield* raw(s, ref)).toEqual(before)
      })),
    test("branch() to the current leaf stores nothing", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const before = yield* raw(s, ref)
        yield* sm.branch(ids[1]!)
        expect(yield* raw(s, ref)).toEqual(before)
      })),
    test("resetLeaf() is persisted: a reopen has no leaf and its next append is a new root", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        yield* sm.resetLeaf()
        expect(sm.getLeafId()).toBeNull()
        const again = yield* reopen(s, ref)
        expect(again.getLeafId()).toBeNull()
        expect(again.buildSessionContext().messages).toEqual([])
        const root = yield* again.appendMessage(user("new root"))
        expect(again.getEntry(root)!.parentId).toBeNull()
        expect((yield* reopen(s, ref)).getLeafId()).toBe(root)
        expect((yield* reopen(s, ref)).getTree()).toHaveLength(2)
      })),
    test("the last of several branch() calls is the leaf after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 3)
        yield* sm.branch(ids[1]!)
        yield* sm.branch(ids[3]!)
        yield* sm.resetLeaf()
        yield* sm.branch(ids[2]!)
        expect((yield* reopen(s, ref)).getLeafId()).toBe(ids[2])
      })),
    test("leaf moves are not entries: getEntries after a reopen holds only the appended entries", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.branch(ids[0]!)
        yield* sm.resetLeaf()
        yield* sm.branch(ids[3]!)
        const again = yield* reopen(s, ref)
        expect(again.getEntries().map((e) => e.id)).toEqual(ids)
      })),
    test("a branch before the first reply is stored with it and survives a reopen", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const sm = yield* s.create(place, "/p")
        const u1 = yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(user("2"))
        yield* sm.branch(u1)
        expect(yield* s.rows(s.refOf(sm))).toBeUndefined()
        const a = yield* sm.appendMessage(assistant("reply to 1"))
        expect(sm.getEntry(a)!.parentId).toBe(u1)
        const again = yield* reopen(s, s.refOf(sm))
        expect(again.getLeafId()).toBe(a)
        expect(again.getChildren(u1).map((e) => e.id)).toHaveLength(2)
      })),
    test("branchWithSummary(id) appends a summary under the target; the position survives a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        const id = yield* sm.branchWithSummary(ids[1]!, "what the abandoned branch did", { files: ["a.ts"] }, true)
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "branch_summary",
          id,
          parentId: ids[1],
          fromId: ids[1],
          summary: "what the abandoned branch did",
          details: { files: ["a.ts"] },
          fromHook: true
        })
        const again = yield* reopen(s, ref)
        expect(again.getLeafId()).toBe(id)
        expect(again.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant", "branchSummary"])
      })),
    test("branchWithSummary(null) appends a root summary from \"root\"; an unknown id is refused unwritten", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.branchWithSummary(null, "from the start")
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({ id, parentId: null, fromId: "root" })
        expect((yield* reopen(s, ref)).buildSessionContext().messages.map((m) => m.role)).toEqual(["branchSummary"])
        const before = yield* raw(s, ref)
        expect((yield* Effect.flip(sm.branchWithSummary("missing0", "x")))._tag).toBe("EntryNotFoundError")
        expect(yield* raw(s, ref)).toEqual(before)
      })),
    test("two branches from one entry are siblings in file order after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const first = yield* converse(sm, 1, "first")
        yield* sm.branch(ids[1]!)
        const second = yield* converse(sm, 1, "second")
        const again = yield* reopen(s, ref)
        expect(again.getChildren(ids[1]!).map((e) => e.id)).toEqual([first[0], second[0]])
        expect(again.getLeafId()).toBe(second[1])
        expect(again.getBranch().map((e) => e.id)).toEqual([...ids, ...second])
        expect(again.getBranch(first[1]).map((e) => e.id)).toEqual([...ids, ...first])
      })),
    test("getTree, getBranch, getEntries and the context after a reopen equal those before", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.appendLabelChange(ids[0]!, "start")
        yield* sm.branch(ids[1]!)
        yield* converse(sm, 2, "alt")
        yield* sm.appendThinkingLevelChange("high")
        yield* sm.appendSessionInfo("tree")
        yield* sm.appendCompaction("summary", ids[1]!, 99)
        yield* sm.branchWithSummary(ids[3]!, "back")
        yield* sm.appendMessage(user("after all that"))
        const before = view(sm)
        expect(view(yield* reopen(s, ref))).toEqual(before)
        expect(view(yield* s.open(ref))).toEqual(before)
      })),
    test("labels: set, overwrite and clear each persist; tree nodes carry the label after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        yield* sm.appendLabelChange(ids[0]!, "first")
        yield* sm.appendLabelChange(ids[0]!, "second")
        yield* sm.appendLabelChange(ids[1]!, "answer")
        let again = yield* reopen(s, ref)
        expect(again.getLabel(ids[0]!)).toBe("second")
        expect(again.getTree()[0]!.label).toBe("second")
        expect(again.getTree()[0]!.children[0]!.label).toBe("answer")
        yield* sm.appendLabelChange(ids[0]!, undefined)
        const row = (yield* stored(s, ref)).at(-1)!
        expect(Object.keys(row)).toEqual(["type", "id", "parentId", "timestamp", "targetId"])
        again = yield* reopen(s, ref)
        expect(again.getLabel(ids[0]!)).toBeUndefined()
        expect(again.getLabel(ids[1]!)).toBe("answer")
      })),
    test("a label on an unknown entry fails with EntryNotFoundError and stores nothing", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const before = yield* raw(s, ref)
        expect(yield* Effect.flip(sm.appendLabelChange("deadbeef", "x"))).toMatchObject({
          _tag: "EntryNotFoundError",
          id: "deadbeef"
        })
        expect(yield* raw(s, ref)).toEqual(before)
      })),
    test("names: the latest wins, a blank name clears it, both after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        yield* sm.appendSessionInfo("one")
        yield* sm.appendSessionInfo("two")
        expect((yield* reopen(s, ref)).getSessionName()).toBe("two")
        yield* sm.appendSessionInfo("   ")
        expect(sm.getSessionName()).toBeUndefined()
        expect((yield* reopen(s, ref)).getSessionName()).toBeUndefined()
      }))
  ]
}
