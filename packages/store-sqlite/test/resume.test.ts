/**
 * The bounded open (`SessionManager.resume` through `loadActive`) of the SQLite store gives
 * exactly the full open's leaf, name, labels, header and context: for every fixture copied into a
 * database, after random appends, branches, labels, names and compactions by the resumed manager
 * and by foreign writers (another manager, raw rows through a connection of its own), whatever is
 * done to the stored summary, on a database of the previous schema version; and it reads only the
 * rows of the active path.
 */
import { Line, SessionContext, SessionState, Tree } from "@branchlog/session-core"
import { Messages } from "@branchlog/session-core/testing"
import { Synthetic } from "@branchlog/session-core/testing"
import * as SessionCopy from "@branchlog/session-store/SessionCopy"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRouter from "@branchlog/session-store/StoreRouter"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import { driver } from "../src/Driver.js"
import type { Db } from "../src/internal/database.js"
import * as Schema from "../src/internal/schema.js"
import { withDb } from "./support/backend.js"
import { start, waitFor } from "./support/children.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-resume-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const layer = StoreRouter.layerNode([driver])

const { assistant, user } = Messages

const pick2 = (i: number) => i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`)

/** The stored summary of a session, straight from the database. */
const storedActive = (db: string, id: string) =>
  withDb(db, (d) =>
    d.handle.prepare("SELECT active, active_filter, active_seq FROM sessions WHERE id = ?").get(id) as {
      active: string | null
      active_filter: Buffer | null
      active_seq: number | null
    })

const all = fixtures()

/** What a state answers: leaf, append parent, name, labels, header, the context at the leaf. */
const stateAnswers = (state: SessionState.SessionState, context: unknown) => ({
  leaf: state.leafId,
  appendParent: state.appendParentId,
  name: Tree.getSessionName(state),
  labels: [...state.labels].map(([t, l]) => [t, l.label, l.timestamp]).sort(),
  header: state.header,
  context: JSON.parse(JSON.stringify(context))
})

const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "writer-child.ts")

describe("sqlite bounded open (resume)", () => {
  it.live(
    "every fixture copied into sqlite: the bounded open equals the full open, first and after",
    () =>
      Effect.gen(function*() {
        expect(all.length).toBeGreaterThanOrEqual(10)
        const dir = fs.mkdtempSync(path.join(root, "fixtures-"))
        const db = path.join(dir, "sessions.db")
        let boundedCount = 0
        for (const fixture of all) {
          const file = path.join(dir, `${fixture.name}.jsonl`)
          fs.writeFileSync(file, fixture.bytes)
          const copied = yield* SessionCopy.copy(file, { _tag: "Location", location: `sqlite:${db}` })
          const ref = SessionRef.format(copied.to)
          for (let round = 0; round < 3; round++) {
            const { bounded, got, want } = yield* ResumeChecks.both(ref)
            expect(got, `${fixture.name} round ${round}`).toEqual(want)
            // the first resume reads the whole session (and writes the summary)
            if (round === 0) expect(bounded, `${fixture.name} round 0`).toBe(false)
            if (round === 2 && bounded) boundedCount++
          }
        }
        expect(boundedCount).toBeGreaterThan(all.length / 2)
      }).pipe(Effect.provide(layer)),
    120_000
  )

  it.live(
    "random appends, branches, labels, names and compactions, by the resumed manager and by others",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "random-")), "sessions.db")
        // the raw rows through a connection of its own (as another process or tool writes them)
        const walk = yield* ResumeChecks.randomWalk({
          location: `sqlite:${db}`,
          seeds: 5,
          steps: 60,
          rawAppend: (_ref, id, row) => Effect.sync(() => withDb(db, (d) => d.write(id, [row], { nowMs: Date.now() })))
        })
        const [first] = walk.mismatches
        if (first) expect(first.got, `seed ${first.seed} step ${first.step} (${first.of})`).toEqual(first.want)
        expect(walk.mismatches).toEqual([])
        // most steps are answered bounded (the summary caught up, not rebuilt)
        expect(walk.bounded).toBeGreaterThan(150)
      }).pipe(Effect.provide(layer)),
    300_000
  )

  it.live(
    "a large session (20,000 entries: an id filter past its smallest size) resumes bounded, as the full open",
    () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(root, "large-"))
        const file = path.join(dir, "large.jsonl")
        fs.writeFileSync(file, Synthetic.toText(Synthetic.session({ entries: 20_000, seed: 3 })))
        const copied = yield* SessionCopy.copy(file, { _tag: "Location", location: `sqlite:${path.join(dir, "s.db")}` })
        const ref = SessionRef.format(copied.to)
        const first = yield* ResumeChecks.both(ref)
        expect(first.got).toEqual(first.want)
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(ref)
          expect(got).toEqual(want)
          expect(bounded).toBe(true)
        }
      }).pipe(Effect.provide(layer)),
    300_000
  )

  it.live(
    "resumes racing with another process's appends: each equals the full fold of the rows it covers",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "race-")), "sessions.db")
        const sm = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        const id = sm.getSessionId()
        for (let i = 0; i < 20; i++) yield* sm.appendMessage(pick2(i))
        yield* sm.appendCompaction("s", sm.getBranch()[12]!.id, 10)
        const ref = sm.getSessionRef()!
        const store = yield* TranscriptStore
        yield* store.loadActive!(ref, { cwd: "/" })
        const child = start([writer, db, "w", "append", "400", id])
        const seen: Array<{ readonly n: number; readonly answers: unknown; readonly active: boolean }> = []
        yield* Effect.promise(() => waitFor(child, (o) => o.includes("ready")))
        while (child.process.exitCode === null && seen.length < 400) {
          // a writable resume: it catches up and writes the summary back while the other process appends
          const result = yield* store.loadActive!(ref, { cwd: "/" })
          if (result._tag === "Active") {
            const branch = Tree.getBranch(result.state, result.state.leafId!)
            const context = SessionContext.fromPath(result.state, [...result.before, ...branch])
            seen.push({ n: result.end.line, answers: stateAnswers(result.state, context), active: true })
          } else {
            const state = result.loaded.state
            seen.push({
              n: result.loaded.end.line,
              answers: stateAnswers(state, SessionContext.buildSessionContext(state)),
              active: false
            })
          }
        }
        expect(yield* Effect.promise(() => child.exited)).toBe(0)
        const texts = withDb(db, (d) => d.textsAfter(id, 0))!
        expect(texts.length).toBe(1 + 20 + 1 + 400)
        for (const { answers, n } of seen) {
          const state = StoreRows.fold(StoreRows.parse(texts.slice(0, n))).state
          expect(answers, `after ${n} rows`).toEqual(stateAnswers(state, SessionContext.buildSessionContext(state)))
        }
        expect(seen.filter((s) => s.active).length).toBeGreaterThan(seen.length / 2)
        expect(new Set(seen.map((s) => s.n)).size).toBeGreaterThan(3)
      }).pipe(Effect.provide(layer)),
    300_000
  )

  it.live(
    "reads only the rows of the active path: many rows off the path and before the compaction are not read",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "bounded-")), "sessions.db")
        const sm = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        const ref = SessionRef.format(sm.getSessionRef()!)
        yield* sm.appendMessage(user("root"))
        const fork = sm.getLeafId()!
        // a long branch left behind
        for (let i = 0; i < 1500; i++) yield* sm.appendMessage(user(`abandoned ${i} ${"x".repeat(200)}`))
        yield* sm.branch(fork)
        // a long branch, compacted near its end
        for (let i = 0; i < 1500; i++) yield* sm.appendMessage(user(`kept ${i} ${"y".repeat(200)}`))
        const kept = sm.getBranch()[sm.getBranch().length - 5]!.id
        yield* sm.appendCompaction("the summary", kept, 100)
        for (let i = 0; i < 10; i++) yield* sm.appendMessage(user(`after ${i}`))
        const first = yield* ResumeChecks.both(ref)
        expect(first.got).toEqual(first.want)
        expect(first.bounded).toBe(false)
        const { bounded, got, manager, want } = yield* ResumeChecks.both(ref)
        expect(got).toEqual(want)
        expect(bounded).toBe(true)
        const state = manager.getBoundedState()!
        // the kept entry, the 4 after it, the compaction, 10 appends
        expect(state.entries.length).toBe(16)
        // exactly the texts of the header and the path's rows were read
        const store = yield* TranscriptStore
        const loaded = yield* store.load(sm.getSessionRef()!, { cwd: "/", readOnly: true, cache: false })
        const texts = loaded.rows().map(Line.serialize)
        const lines = [1, ...state.entries.map((e) => SessionState.positionOf(state, e.id)!.line)]
        const expected = lines.reduce((n, line) => n + texts[line - 1]!.length, 0)
        expect(manager.loadReport().bytesRead).toBe(expected)
        expect(expected * 100).toBeLessThan(texts.reduce((n, t) => n + t.length, 0))
        // appends, labels and branches on the path work at once, and the next resume catches them up
        const writer = yield* SessionManager.resume(ref)
        expect(writer.isBounded()).toBe(true)
        yield* writer.appendMessage(user("more"))
        yield* writer.appendLabelChange(state.entries[2]!.id, "here")
        yield* writer.branch(state.entries[3]!.id)
        yield* writer.appendMessage(user("branched"))
        expect(writer.isBounded()).toBe(true)
        const again = yield* ResumeChecks.both(ref)
        expect(again.got).toEqual(again.want)
        expect(again.bounded).toBe(true)
        expect(again.manager.loadReport().bytesRead).toBeLessThan(expected * 2)
        // what needs the whole tree loads the rest, from a synchronous read too
        const whole = yield* SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false })
        expect(again.manager.isBounded()).toBe(true)
        expect(JSON.parse(JSON.stringify(again.manager.getTree()))).toEqual(JSON.parse(JSON.stringify(whole.getTree())))
        expect(again.manager.isBounded()).toBe(false)
        expect(again.manager.getEntries().length).toBe(whole.getEntries().length)
      }).pipe(Effect.provide(layer)),
    300_000
  )

  it.live(
    "a damaged, stale or foreign summary, duplicate ids, a torn last row: still the full open's answers",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "damage-")), "sessions.db")
        const sm = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        const ref = SessionRef.format(sm.getSessionRef()!)
        const id = sm.getSessionId()
        for (let i = 0; i < 20; i++) {
          yield* sm.appendMessage(user(`u${i}`))
          yield* sm.appendMessage(assistant(`a${i}`))
        }
        yield* sm.appendCompaction("s", sm.getBranch()[30]!.id, 10)
        yield* sm.appendMessage(user("last"))
        const other = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        yield* other.appendMessage(user("other session"))
        const otherRef = SessionRef.format(other.getSessionRef()!)
        yield* ResumeChecks.both(ref)
        yield* ResumeChecks.both(otherRef)
        expect((yield* ResumeChecks.both(ref)).bounded).toBe(true)
        const good = storedActive(db, id)!
        const damage: ReadonlyArray<[string, (d: Db) => void]> = [
          ["garbage JSON", (d) => d.handle.prepare("UPDATE sessions SET active = '{nope' WHERE id = ?").run(id)],
          [
            "truncated filter",
            (d) =>
              d.handle.prepare("UPDATE sessions SET active_filter = substr(active_filter, 1, 5) WHERE id = ?").run(id)
          ],
          [
            "another session's summary",
            (d) =>
              d.handle.prepare(
                `UPDATE sessions SET (active, active_filter, active_seq) =
                 (SELECT active, active_filter, active_seq FROM sessions WHERE id = ?) WHERE id = ?`
              ).run(other.getSessionId(), id)
          ],
          ["a path row's sequence number edited (another row there)", (d) => {
            const json = JSON.parse(good.active!) as { segment: Array<{ line: number; offset: number }> }
            json.segment[1]!.line -= 2
            json.segment[1]!.offset -= 2
            d.handle.prepare("UPDATE sessions SET active = ? WHERE id = ?").run(JSON.stringify(json), id)
          }],
          ["a summary ahead of the rows", (d) =>
            d.handle.prepare("UPDATE sessions SET active_seq = active_seq + 5 WHERE id = ?").run(id)]
        ]
        for (const [what, f] of damage) {
          withDb(db, (d) => {
            d.handle.prepare("UPDATE sessions SET active = ?, active_filter = ?, active_seq = ? WHERE id = ?").run(
              good.active,
              good.active_filter,
              good.active_seq,
              id
            )
            f(d)
          })
          const { got, want } = yield* ResumeChecks.both(ref)
          expect(got, what).toEqual(want)
          // written again: the next one is bounded
          const after = yield* ResumeChecks.both(ref)
          expect(after.got, what).toEqual(after.want)
          expect(after.bounded, what).toBe(true)
        }
        // a duplicate id (another tool's row): answered by a full read, every time
        const dup = sm.getBranch()[35]!
        withDb(db, (d) =>
          d.write(id, [JSON.stringify({ ...dup, parentId: sm.getLeafId() })], { nowMs: Date.now() }))
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(ref)
          expect(got).toEqual(want)
          expect(bounded).toBe(false)
        }
        // a torn last row
        const torn = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        yield* torn.appendMessage(user("x"))
        const tornRef = SessionRef.format(torn.getSessionRef()!)
        withDb(
          db,
          (d) => d.write(torn.getSessionId(), ["{\"type\":\"message\",\"id\":\"tt"], { nowMs: Date.now(), torn: true })
        )
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(tornRef)
          expect(got).toEqual(want)
          expect(bounded).toBe(false)
        }
      }).pipe(Effect.provide(layer)),
    120_000
  )

  it.live(
    "a database of schema version 2: read-only resumes it fully; a writable open migrates it, then bounded",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "v2-")), "sessions.db")
        const id = yield* Effect.scoped(Effect.gen(function*() {
          const sm = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
          for (let i = 0; i < 10; i++) yield* sm.appendMessage(user(`u${i}`))
          return sm.getSessionId()
        })).pipe(Effect.provide(StoreRouter.layerNode([driver])))
        // back to version 2: the columns of migration 3, the removal count of 4 and the stored listing of 5
        // dropped, their records removed
        withDb(db, (d) => {
          d.handle.exec(
            `DROP TRIGGER sessions_removed; DROP TABLE counters; DROP INDEX sessions_pending;
             ALTER TABLE sessions DROP COLUMN pending; CREATE INDEX sessions_unindexed ON sessions (sid) WHERE indexed < seq`
          )
          for (const c of ["active", "active_filter", "active_generation", "active_seq"]) {
            d.handle.exec(`ALTER TABLE sessions DROP COLUMN ${c}`)
          }
          d.handle.exec(
            `DROP TABLE listing_snapshot; DELETE FROM ${Schema.MIGRATIONS_TABLE} WHERE migration_id >= 3`
          )
          expect(Schema.versionOf(d.handle)).toBe(2)
        })
        const ref = `sqlite:${db}#${id}`
        // a fresh store: read-only opens of version 2 read the whole session
        yield* Effect.gen(function*() {
          for (let i = 0; i < 2; i++) {
            const { bounded, got, want } = yield* ResumeChecks.both(ref, { readOnly: true, writeIndex: false })
            expect(got).toEqual(want)
            expect(bounded).toBe(false)
          }
        }).pipe(Effect.provide(StoreRouter.layerNode([driver])))
        yield* Effect.gen(function*() {
          const first = yield* ResumeChecks.both(ref, { readOnly: false })
          expect(first.got).toEqual(first.want)
          const second = yield* ResumeChecks.both(ref, { readOnly: false })
          expect(second.got).toEqual(second.want)
          expect(second.bounded).toBe(true)
        }).pipe(Effect.provide(StoreRouter.layerNode([driver])))
        withDb(db, (d) => expect(Schema.versionOf(d.handle)).toBe(Schema.LATEST))
      }),
    120_000
  )
})
