/**
 * The bounded open (`SessionManager.resume`, through the store's optional `loadActive`): whatever
 * the backend (an index beside a file, queries, or no bounded open at all, which opens fully), a
 * resumed manager answers as a full open does: leaf, name, labels, header and the context at the
 * leaf; appends, labels, names and branching work on it at once; a synchronous read that needs the
 * whole tree throws `SessionNotLoadedError` until `loadFull()`, then answers as a full open; rows
 * other writers appended or replaced are seen; and what it writes is what an opened manager would
 * write.
 */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { SessionNotLoadedError } from "../../SessionError.js"
import * as SessionManager from "../../SessionManager.js"
import type { Ref, Subject } from "./Backend.js"
import type { Group } from "./support.js"
import { assistant, converse, entryRow, reopen, test, user, view, written } from "./support.js"

/** What a resume must answer exactly as a full open. */
const answers = (manager: SessionManager.SessionManager) => ({
  header: manager.getHeader(),
  leaf: manager.getLeafId(),
  name: manager.getSessionName(),
  labels: [...(manager.getBoundedState() ?? manager.getState()).labels].map(([target, label]) => [target, label.label])
    .sort(),
  context: manager.buildSessionContext()
})

const resume = <R>(subject: Subject<R>, ref: Ref, options?: SessionManager.ResumeOptions) =>
  subject.independent(SessionManager.resume(ref, undefined, undefined, options))

/** A session with two compactions, a label, a name and an abandoned branch behind its leaf. */
const shaped = <R>(subject: Subject<R>) =>
  Effect.gen(function*() {
    const { manager, ref, ids } = yield* written(subject, 3)
    yield* manager.appendCompaction("first summary", ids[2]!, 100)
    const more = yield* converse(manager, 2, "u")
    yield* manager.appendLabelChange(ids[1]!, "early")
    yield* manager.appendSessionInfo("shaped")
    yield* manager.branch(more[1]!)
    const side = yield* converse(manager, 1, "side")
    yield* manager.branch(more[3]!)
    yield* manager.appendCompaction("second summary", more[2]!, 200)
    const tail = yield* converse(manager, 2, "v")
    yield* manager.appendLabelChange(tail[0]!, "late")
    return { manager, ref, ids: [...ids, ...more, ...tail], side }
  })

/** The resume cases. */
export const group: Group = {
  name: "resume",
  cases: [
    test("resume answers as a full open: header, leaf, name, labels and the context after two compactions", (s) =>
      Effect.gen(function*() {
        const { ref } = yield* shaped(s)
        const full = yield* reopen(s, ref, { readOnly: true })
        for (const readOnly of [true, false]) {
          expect(answers(yield* resume(s, ref, { readOnly })), `readOnly: ${readOnly}`).toEqual(answers(full))
        }
      })),
    test("resume: getTree / getEntries / getBranch / getState throw until loadFull, then answer as a full open", (s) =>
      Effect.gen(function*() {
        const { ref } = yield* shaped(s)
        const full = yield* reopen(s, ref, { readOnly: true })
        const resumed = yield* resume(s, ref)
        if (resumed.isBounded()) {
          const reads = {
            getTree: () => resumed.getTree(),
            getEntries: () => resumed.getEntries(),
            getBranch: () => resumed.getBranch(),
            getState: () => resumed.getState(),
            getChildren: () => resumed.getChildren(null)
          }
          for (const [method, read] of Object.entries(reads)) {
            expect(read, method).toThrow(SessionNotLoadedError)
            try {
              read()
            } catch (error) {
              expect((error as SessionNotLoadedError).method).toBe(method)
              expect((error as SessionNotLoadedError).message).toContain("yield* manager.loadFull()")
            }
          }
          // nothing was loaded; the leaf's context answers all the same
          expect(resumed.isBounded()).toBe(true)
          expect(resumed.buildSessionContext()).toEqual(full.buildSessionContext())
        }
        yield* resumed.loadFull()
        expect(resumed.isBounded()).toBe(false)
        expect(view(resumed)).toEqual(view(full))
      })),
    test("appends, a label and a name on a resumed manager are stored as an opened one stores them", (s) =>
      Effect.gen(function*() {
        const { manager, ref } = yield* shaped(s)
        const resumed = yield* resume(s, ref)
        expect(resumed.getLeafId()).toBe(manager.getLeafId())
        const a = yield* resumed.appendMessage(user("after resume"))
        const b = yield* resumed.appendMessage(assistant("answered"))
        yield* resumed.appendLabelChange(a, "resumed")
        yield* resumed.appendSessionInfo("renamed")
        expect(resumed.getEntry(a)?.parentId).toBe(manager.getLeafId())
        const full = yield* reopen(s, ref, { readOnly: true })
        expect(full.getLeafId()).toBe(resumed.getLeafId())
        expect(full.getEntry(b)?.parentId).toBe(a)
        expect(full.getLabel(a)).toBe("resumed")
        expect(full.getSessionName()).toBe("renamed")
        expect(answers(yield* resume(s, ref))).toEqual(answers(full))
      })),
    test("branching on a resumed manager, on its path and off it (behind a compaction), matches a full open", (s) =>
      Effect.gen(function*() {
        const { ref, ids, side } = yield* shaped(s)
        for (const target of [ids[ids.length - 2]!, side[1]!, ids[1]!]) {
          const resumed = yield* resume(s, ref)
          const opened = yield* reopen(s, ref)
          yield* resumed.branch(target)
          yield* opened.branch(target)
          expect(answers(resumed), target).toEqual(answers(opened))
        }
        const resumed = yield* resume(s, ref)
        yield* resumed.branch(side[1]!)
        const there = yield* resumed.appendMessage(user("on the side branch"))
        const full = yield* reopen(s, ref, { readOnly: true })
        expect(full.getEntry(there)?.parentId).toBe(side[1])
        expect(answers(yield* resume(s, ref))).toEqual(answers(full))
      })),
    test("after another writer's appends (its label and name too), a resume answers as a full open", (s) =>
      Effect.gen(function*() {
        const { ref, manager } = yield* shaped(s)
        yield* resume(s, ref)
        const leaf = manager.getLeafId()!
        yield* s.foreignAppend(ref, [
          entryRow("f0000001", leaf, user("from another tool")),
          JSON.stringify({
            type: "label",
            id: "f0000002",
            parentId: "f0000001",
            timestamp: "2026-05-02T09:00:00.000Z",
            targetId: "f0000001",
            label: "foreign"
          }),
          JSON.stringify({
            type: "session_info",
            id: "f0000003",
            parentId: "f0000002",
            timestamp: "2026-05-02T09:00:01.000Z",
            name: "foreign name"
          })
        ])
        const full = yield* reopen(s, ref, { readOnly: true })
        const resumed = yield* resume(s, ref)
        expect(answers(resumed)).toEqual(answers(full))
        expect(resumed.getLabel("f0000001")).toBe("foreign")
        expect(resumed.getSessionName()).toBe("foreign name")
      })),
    test("a resumed manager sees another writer's later appends at its next write, its own leaf kept", (s) =>
      Effect.gen(function*() {
        const { manager, ref } = yield* shaped(s)
        const leaf = manager.getLeafId()
        const resumed = yield* resume(s, ref)
        const other = yield* reopen(s, ref)
        const theirs = yield* other.appendMessage(user("the other writer"))
        const mine = yield* resumed.appendMessage(user("mine"))
        expect(resumed.getEntry(mine)?.parentId).toBe(leaf)
        expect(resumed.getEntry(theirs)).toBeDefined()
        const full = yield* reopen(s, ref, { readOnly: true })
        expect(full.getEntry(mine)?.parentId).toBe(leaf)
        expect(full.getEntry(theirs)?.parentId).toBe(leaf)
        expect(full.getLeafId()).toBe(mine)
      })),
    test("after another writer replaced every row, a resume answers as a full open of the new rows", (s) =>
      Effect.gen(function*() {
        const { ref } = yield* shaped(s)
        yield* resume(s, ref)
        const header = JSON.stringify({
          type: "session",
          version: 3,
          id: "replaced-1",
          timestamp: "2026-05-01T09:00:00.000Z",
          cwd: "/work/project"
        })
        yield* s.foreignReplace(ref, [
          header,
          entryRow("r0000001", null, user("rewritten")),
          entryRow("r0000002", "r0000001", assistant("anew"))
        ])
        const full = yield* reopen(s, ref, { readOnly: true })
        const resumed = yield* resume(s, ref)
        expect(resumed.getLeafId()).toBe("r0000002")
        expect(answers(resumed)).toEqual(answers(full))
      })),
    test("resume of a session with no compaction, and of one whose last compaction keeps nothing", (s) =>
      Effect.gen(function*() {
        const plain = yield* written(s, 2)
        expect(answers(yield* resume(s, plain.ref))).toEqual(answers(yield* reopen(s, plain.ref, { readOnly: true })))
        const { manager, ref } = yield* written(s, 2)
        yield* manager.appendCompaction("all of it", null, 10)
        yield* converse(manager, 1, "w")
        expect(answers(yield* resume(s, ref))).toEqual(answers(yield* reopen(s, ref, { readOnly: true })))
      })),
    test("resume of a reference where nothing is stored starts a new session there, as open does", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const ref = s.absent(place, "fresh")
        const resumed = yield* resume(s, ref)
        expect(resumed.getEntries()).toEqual([])
        expect(resumed.getLeafId()).toBeNull()
        expect(yield* s.rows(ref)).toBeUndefined()
      }))
  ]
}
