/**
 * What the bounded open (`SessionManager.resume`) costs and how far it can be trusted, on every
 * backend: sessions other tools wrote (the fixtures the suite is given, and its own samples) as
 * they are and copied, random writes of every kind by the resumed manager and by others, a large
 * session, a path far shorter than the session, a duplicate id and a torn last row. A resume must
 * always answer as a full open (a synchronous read that needs the rest throws
 * `SessionNotLoadedError` until `loadFull()`, never answers otherwise); a store with a bounded
 * open (`loadActive`) must read only the
 * active path once its summary is written, and fall back to a full read where it cannot be sure;
 * a store without one always opens fully.
 */
import { SessionState } from "@branchlog/session-core"
import { Synthetic } from "@branchlog/session-core/testing"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SessionCopy from "../../SessionCopy.js"
import { SessionNotLoadedError } from "../../SessionError.js"
import * as SessionManager from "../../SessionManager.js"
import * as SessionRef from "../../SessionRef.js"
import { TranscriptStore } from "../../TranscriptStore.js"
import * as ResumeChecks from "../ResumeChecks.js"
import type { Place, Ref, Subject } from "./Backend.js"
import type { Fixture, Group } from "./support.js"
import { entryRow, headerRow, seededTurns, test, user } from "./support.js"

/** Whether the store has a bounded open: without one, every resume is a full open (never bounded). */
const hasBoundedOpen = Effect.map(TranscriptStore, (store) => store.loadActive !== undefined)

/**
 * Stores `rows` as another tool left them in `place` under `name`: through the store itself, the
 * last row without its end when `terminated` is `false` (a torn tail), no migration, no recovery.
 */
const storeAsIs = <R>(s: Subject<R>, place: Place, name: string, rows: ReadonlyArray<string>, terminated: boolean) =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const ref = yield* store.resolve(yield* SessionRef.from(s.absent(place, name)))
    yield* store.exclusive(ref, (held) => held.create(rows, { unterminated: !terminated }))
    return SessionRef.format(ref)
  })

/** A fixture's rows (split on `\n`) and whether its last row is whole. */
const rowsOf = (fixture: Fixture) => {
  const rows = new TextDecoder().decode(fixture.bytes).split("\n")
  const terminated = rows[rows.length - 1] === ""
  if (terminated) rows.pop()
  return { rows, terminated }
}

const textOf = (rows: ReadonlyArray<string>, terminated: boolean): Uint8Array =>
  new TextEncoder().encode(rows.join("\n") + (terminated ? "\n" : ""))

/** The suite's own sessions as other tools write them: synthetic ones, a legacy header, a torn tail, a damaged row. */
const samples: ReadonlyArray<Fixture> = [
  ...[1, 2, 3].map((seed) => {
    const [header, ...entries] = Synthetic.session({ entries: 60 * seed, seed, branchRate: 0.1 })
    // an id of its own: copies land in one place
    const rows = [{ ...header, id: `sample-synthetic-${seed}` }, ...entries]
    return { name: `sample-synthetic-${seed}`, bytes: new TextEncoder().encode(Synthetic.toText(rows)) }
  }),
  { name: "sample-turns", bytes: textOf(seededTurns("sample-turns"), true) },
  {
    name: "sample-legacy",
    bytes: textOf([headerRow("sample-legacy", "/work/project", null), ...seededTurns().slice(1)], true)
  },
  { name: "sample-torn", bytes: textOf([...seededTurns("sample-torn"), "{\"type\":\"message\",\"id\":\"tt"], false) },
  {
    name: "sample-damaged",
    bytes: textOf([...seededTurns("sample-damaged").slice(0, 3), "{not json", ...seededTurns().slice(3)], true)
  }
]

/** Three rounds of resumes of `ref`: each answers as a full open, the first reads everything; whether the last was bounded. */
const rounds = (ref: Ref, what: string) =>
  Effect.gen(function*() {
    let bounded = false
    for (let round = 0; round < 3; round++) {
      const answered = yield* ResumeChecks.both(ref)
      expect(answered.got, `${what} round ${round}`).toEqual(answered.want)
      // the first resume reads the whole session (and writes the summary)
      if (round === 0) expect(answered.bounded, `${what} round 0`).toBe(false)
      bounded = answered.bounded
    }
    return bounded
  })

/** The bounded-open cases. */
export const group: Group = {
  name: "bounded open",
  cases: [
    test(
      "every fixture stored as written and copied: the bounded open equals the full open, first and after",
      (s, context) =>
        Effect.gen(function*() {
          const bounds = yield* hasBoundedOpen
          const all = [...samples, ...context.fixtures]
          const [asIs, copies] = [yield* s.place, yield* s.place]
          let boundedAsIs = 0
          let boundedCopies = 0
          for (const fixture of all) {
            const { rows, terminated } = rowsOf(fixture)
            const ref = yield* storeAsIs(s, asIs, fixture.name, rows, terminated)
            // a copy: migrated, its header recovered, as `SessionCopy` stores a session elsewhere
            const copied = yield* SessionCopy.copy(ref, { _tag: "Location", location: copies })
            if (yield* rounds(ref, fixture.name)) boundedAsIs++
            if (yield* rounds(SessionRef.format(copied.to), `${fixture.name} (copied)`)) boundedCopies++
          }
          if (bounds) {
            expect(boundedAsIs).toBeGreaterThan(all.length / 2)
            expect(boundedCopies).toBeGreaterThan(all.length / 2)
          } else expect([boundedAsIs, boundedCopies]).toEqual([0, 0])
        }),
      { timeout: 300_000 }
    ),
    test(
      "random appends, branches, labels, names and compactions, by the resumed manager and by others: every read as the full open's, or refused",
      (s) =>
        Effect.gen(function*() {
          const bounds = yield* hasBoundedOpen
          const walk = yield* ResumeChecks.randomWalk({
            location: yield* s.place,
            seeds: 5,
            steps: 60,
            // the raw rows another tool appends (no lock, no summary)
            rawAppend: (ref, _id, row) => s.foreignAppend(ref, [row])
          })
          const [first] = walk.mismatches
          if (first) expect(first.got, `seed ${first.seed} step ${first.step} (${first.of})`).toEqual(first.want)
          expect(walk.mismatches).toEqual([])
          // most steps are answered bounded (the summary caught up, not rebuilt)
          if (bounds) expect(walk.bounded).toBeGreaterThan(walk.steps / 2)
          else expect(walk.bounded).toBe(0)
          // bounded managers answered many synchronous reads from the path, and refused others
          if (bounds) expect([walk.answered > 0, walk.refused > 0]).toEqual([true, true])
          else expect([walk.answered, walk.refused]).toEqual([0, 0])
        }),
      { timeout: 300_000 }
    ),
    test(
      "a large session (20,000 entries: an id filter past its smallest size) resumes bounded, as the full open",
      (s) =>
        Effect.gen(function*() {
          const bounds = yield* hasBoundedOpen
          const rows = Synthetic.session({ entries: 20_000, seed: 3 }).map((row) => JSON.stringify(row))
          const ref = yield* s.seed(yield* s.place, "large", rows)
          const first = yield* ResumeChecks.both(ref)
          expect(first.got).toEqual(first.want)
          for (let i = 0; i < 2; i++) {
            const { bounded, got, want } = yield* ResumeChecks.both(ref)
            expect(got).toEqual(want)
            expect(bounded).toBe(bounds)
          }
        }),
      { timeout: 300_000 }
    ),
    test(
      "reads only the rows of the active path: many rows off the path and before the compaction are not read",
      (s) =>
        Effect.gen(function*() {
          const bounds = yield* hasBoundedOpen
          const sm = yield* s.create(yield* s.place, "/work", { eagerFlush: true })
          yield* sm.appendMessage(user("root"))
          const ref = s.refOf(sm)
          const fork = sm.getLeafId()!
          // a long branch left behind
          for (let i = 0; i < 600; i++) yield* sm.appendMessage(user(`abandoned ${i} ${"x".repeat(400)}`))
          yield* sm.branch(fork)
          // a long branch, compacted near its end
          for (let i = 0; i < 600; i++) yield* sm.appendMessage(user(`kept ${i} ${"y".repeat(400)}`))
          const kept = sm.getBranch()[sm.getBranch().length - 5]!.id
          yield* sm.appendCompaction("the summary", kept, 100)
          for (let i = 0; i < 10; i++) yield* sm.appendMessage(user(`after ${i}`))
          const first = yield* ResumeChecks.both(ref)
          expect(first.got).toEqual(first.want)
          expect(first.bounded).toBe(false)
          const { bounded, got, manager, want } = yield* ResumeChecks.both(ref)
          expect(got).toEqual(want)
          expect(bounded).toBe(bounds)
          if (bounds) {
            const state = manager.getBoundedState()!
            // the kept entry, the 4 after it, the compaction, 10 appends
            expect(state.entries.length).toBe(16)
            // exactly the texts of the header and the path's rows were read
            const texts = (yield* s.rows(ref))!
            const lines = [1, ...state.entries.map((e) => SessionState.positionOf(state, e.id)!.line)]
            const expected = lines.reduce((n, line) => n + texts[line - 1]!.length, 0)
            expect(manager.loadReport().bytesRead).toBe(expected)
            expect(expected * 100).toBeLessThan(texts.reduce((n, t) => n + t.length, 0))
            // appends, labels and branches on the path work at once, and the next resume catches them up
            const writer = yield* SessionManager.resume(ref)
            expect(writer.isBounded()).toBe(true)
            yield* writer.appendMessage(user("more"))
            yield* writer.appendLabelChange(state.entries[2]!.id, "here")
            // (behind the compaction, a branch would load the rest first: the context there needs it)
            yield* writer.branch(state.entries[6]!.id)
            yield* writer.appendMessage(user("branched"))
            expect(writer.isBounded()).toBe(true)
            const again = yield* ResumeChecks.both(ref)
            expect(again.got).toEqual(again.want)
            expect(again.bounded).toBe(true)
            expect(again.manager.loadReport().bytesRead).toBeLessThan(expected * 2)
          }
          // a synchronous read that needs the whole tree throws, loading nothing; `loadFull` loads the rest
          const resumed = (yield* ResumeChecks.both(ref)).manager
          const whole = yield* SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false })
          expect(resumed.isBounded()).toBe(bounds)
          if (bounds) {
            expect(() => resumed.getTree()).toThrow(SessionNotLoadedError)
            expect(() => resumed.getEntries()).toThrow(SessionNotLoadedError)
            // the branch from the root reaches behind the compaction; an entry there may exist
            expect(() => resumed.getBranch()).toThrow(SessionNotLoadedError)
            expect(() => resumed.getEntry(fork)).toThrow(SessionNotLoadedError)
            expect(resumed.isBounded()).toBe(true)
            // what the path holds answers: the leaf's context, its entries, its thinking level
            expect(resumed.buildSessionContext()).toEqual(whole.buildSessionContext())
            expect(resumed.getEntry(kept)).toEqual(whole.getEntry(kept))
            expect(resumed.hasThinkingLevelChange()).toBe(whole.hasThinkingLevelChange())
            expect(resumed.isBounded()).toBe(true)
          }
          yield* resumed.loadFull()
          expect(resumed.isBounded()).toBe(false)
          expect(JSON.parse(JSON.stringify(resumed.getTree()))).toEqual(JSON.parse(JSON.stringify(whole.getTree())))
          expect(resumed.getEntries().length).toBe(whole.getEntries().length)
          expect(resumed.getBranch()).toEqual(whole.getBranch())
          expect(resumed.getEntry(fork)).toEqual(whole.getEntry(fork))
        }),
      { timeout: 300_000 }
    ),
    test("a duplicate id another tool appended: every resume reads the whole session, as the full open", (s) =>
      Effect.gen(function*() {
        const { bounded, manager, ref } = yield* ResumeChecks.compacted(yield* s.place)
        expect(bounded).toBe(yield* hasBoundedOpen)
        const dup = manager.getBranch()[35]!
        yield* s.foreignAppend(ref, [JSON.stringify({ ...dup, parentId: manager.getLeafId() })])
        for (let i = 0; i < 2; i++) {
          const answered = yield* ResumeChecks.both(ref)
          expect(answered.got).toEqual(answered.want)
          expect(answered.bounded).toBe(false)
        }
      })),
    test("a torn last row: every resume reads the whole session, as the full open", (s) =>
      Effect.gen(function*() {
        const rows = [headerRow("torn-1"), entryRow("e0000001", null, user("x")), "{\"type\":\"message\",\"id\":\"tt"]
        const ref = yield* storeAsIs(s, yield* s.place, "torn", rows, false)
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(ref)
          expect(got).toEqual(want)
          expect(bounded).toBe(false)
        }
      }))
  ]
}
