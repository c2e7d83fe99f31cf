/**
 * The bounded open (`SessionManager.resume` through `loadActive`) of the PostgreSQL store gives
 * exactly the full open's leaf, name, labels, header and context: for every fixture copied into a
 * database, after random appends, branches, labels, names and compactions by the resumed manager
 * and by foreign writers (another manager, raw rows through a client of its own), whatever is
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
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { appendRows, textOfRow } from "../src/internal/rows.js"
import * as PostgresStore from "../src/PostgresStore.js"
import { start, waitFor } from "./support/children.js"
import { database, runOver, withClient } from "./support/db.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-postgres-resume-"))

/** Runs a test's effect with a router over a store of its own (pools closed after). */
const run = <A, E>(effect: Effect.Effect<A, E, SessionManager.Requirements>) =>
  Effect.runPromise(
    Effect.scoped(effect.pipe(Effect.provide(StoreRouter.layerNode([PostgresStore.driver])))) as Effect.Effect<A, E>
  )

/** A raw row appended through a client of its own (another tool writing, no lease). */
const rawAppend = (url: string, id: string, text: string) =>
  Effect.promise(() =>
    withClient(url, async (client) => {
      const found = await client.query("SELECT last_seq FROM branchlog_sessions WHERE session_id = $1", [id])
      await Effect.runPromise(appendRows(runOver(client), id, found.rows[0].last_seq as number, [text]))
    })
  )

/** A statement through a client of its own. */
const sql = (url: string, text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => withClient(url, (client) => client.query(text, params as Array<unknown>))).pipe(
    Effect.map((r) => r.rows)
  )

const { assistant, user } = Messages

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

describe("postgres bounded open (resume)", () => {
  it("every fixture copied into postgres: the bounded open equals the full open, first and after", async () => {
    const url = await database()
    const dir = fs.mkdtempSync(path.join(root, "fixtures-"))
    await run(Effect.gen(function*() {
      expect(all.length).toBeGreaterThanOrEqual(10)
      let boundedCount = 0
      for (const fixture of all) {
        const file = path.join(dir, `${fixture.name}.jsonl`)
        fs.writeFileSync(file, fixture.bytes)
        const copied = yield* SessionCopy.copy(file, { _tag: "Location", location: url })
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
    }))
  }, 300_000)

  it("random appends, branches, labels, names and compactions, by the resumed manager and by others", async () => {
    const url = await database()
    await run(Effect.gen(function*() {
      // the raw rows through a client of its own (as another process or tool writes them)
      const walk = yield* ResumeChecks.randomWalk({
        location: url,
        seeds: 3,
        steps: 50,
        rawAppend: (_ref, id, row) => rawAppend(url, id, row)
      })
      const [first] = walk.mismatches
      if (first) expect(first.got, `seed ${first.seed} step ${first.step} (${first.of})`).toEqual(first.want)
      expect(walk.mismatches).toEqual([])
      // most steps are answered bounded (the summary caught up, not rebuilt)
      expect(walk.bounded).toBeGreaterThan(75)
    }))
  }, 300_000)

  it(
    "a large session (20,000 entries: an id filter past its smallest size) resumes bounded, as the full open",
    async () => {
      const url = await database()
      const dir = fs.mkdtempSync(path.join(root, "large-"))
      await run(Effect.gen(function*() {
        const file = path.join(dir, "large.jsonl")
        fs.writeFileSync(file, Synthetic.toText(Synthetic.session({ entries: 20_000, seed: 3 })))
        const copied = yield* SessionCopy.copy(file, { _tag: "Location", location: url })
        const ref = SessionRef.format(copied.to)
        const first = yield* ResumeChecks.both(ref)
        expect(first.got).toEqual(first.want)
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(ref)
          expect(got).toEqual(want)
          expect(bounded).toBe(true)
        }
      }))
    },
    300_000
  )

  it("resumes racing with another host's appends: each equals the full fold of the rows it covers", async () => {
    const url = await database()
    await run(Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", url, { eagerFlush: true })
      const id = sm.getSessionId()
      for (let i = 0; i < 20; i++) yield* sm.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))
      yield* sm.appendCompaction("s", sm.getBranch()[12]!.id, 10)
      const ref = sm.getSessionRef()!
      const store = yield* TranscriptStore
      yield* store.loadActive!(ref, { cwd: "/" })
      const child = start("writer.ts", [SessionRef.format(ref), "w", "300"])
      const seen: Array<{ readonly n: number; readonly answers: unknown; readonly active: boolean }> = []
      yield* Effect.promise(() => waitFor(child, (o) => o.includes("ready")))
      while (child.process.exitCode === null && seen.length < 300) {
        // a writable resume: it catches up and writes the summary back while the other host appends
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
      const texts = (yield* sql(url, "SELECT text, raw FROM branchlog_rows WHERE session_id = $1 ORDER BY seq", [id]))
        .map((row) => textOfRow(row as { text: string; raw: Buffer | null }))
      expect(texts.length).toBe(1 + 20 + 1 + 300)
      for (const { answers, n } of seen) {
        const state = StoreRows.fold(StoreRows.parse(texts.slice(0, n))).state
        expect(answers, `after ${n} rows`).toEqual(stateAnswers(state, SessionContext.buildSessionContext(state)))
      }
      expect(seen.filter((s) => s.active).length).toBeGreaterThan(seen.length / 2)
      expect(new Set(seen.map((s) => s.n)).size).toBeGreaterThan(3)
    }))
  }, 300_000)

  it(
    "reads only the rows of the active path: many rows off the path and before the compaction are not read",
    async () => {
      const url = await database()
      await run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/work", url, { eagerFlush: true })
        const ref = SessionRef.format(sm.getSessionRef()!)
        yield* sm.appendMessage(user("root"))
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
      }))
    },
    300_000
  )

  it("a damaged, stale or foreign summary, duplicate ids, a torn last row: still the full open's answers", async () => {
    const url = await database()
    await run(Effect.gen(function*() {
      const sm = yield* SessionManager.create("/work", url, { eagerFlush: true })
      const ref = SessionRef.format(sm.getSessionRef()!)
      const id = sm.getSessionId()
      for (let i = 0; i < 20; i++) {
        yield* sm.appendMessage(user(`u${i}`))
        yield* sm.appendMessage(assistant(`a${i}`))
      }
      yield* sm.appendCompaction("s", sm.getBranch()[30]!.id, 10)
      yield* sm.appendMessage(user("last"))
      const other = yield* SessionManager.create("/work", url, { eagerFlush: true })
      yield* other.appendMessage(user("other session"))
      const otherRef = SessionRef.format(other.getSessionRef()!)
      yield* ResumeChecks.both(ref)
      yield* ResumeChecks.both(otherRef)
      expect((yield* ResumeChecks.both(ref)).bounded).toBe(true)
      const [good] = yield* sql(
        url,
        "SELECT active, active_filter, active_seq FROM branchlog_sessions WHERE session_id = $1",
        [id]
      )
      const edited = (f: (json: { segment: Array<{ line: number; offset: number }> }) => void) => {
        const json = JSON.parse(good.active)
        f(json)
        return JSON.stringify(json)
      }
      const damage: ReadonlyArray<[string, string, ReadonlyArray<unknown>]> = [
        ["garbage JSON", "UPDATE branchlog_sessions SET active = '{nope' WHERE session_id = $1", [id]],
        [
          "truncated filter",
          "UPDATE branchlog_sessions SET active_filter = substring(active_filter from 1 for 5) WHERE session_id = $1",
          [id]
        ],
        [
          "another session's summary",
          `UPDATE branchlog_sessions SET (active, active_filter, active_seq) =
             (SELECT active, active_filter, active_seq FROM branchlog_sessions WHERE session_id = $2) WHERE session_id = $1`,
          [id, other.getSessionId()]
        ],
        [
          "a path row's sequence number edited (another row there)",
          "UPDATE branchlog_sessions SET active = $2 WHERE session_id = $1",
          [
            id,
            edited((json) => {
              json.segment[1]!.line -= 2
              json.segment[1]!.offset -= 2
            })
          ]
        ],
        [
          "a summary ahead of the rows",
          "UPDATE branchlog_sessions SET active_seq = active_seq + 5 WHERE session_id = $1",
          [id]
        ]
      ]
      for (const [what, text, params] of damage) {
        yield* sql(
          url,
          "UPDATE branchlog_sessions SET active = $2, active_filter = $3, active_seq = $4 WHERE session_id = $1",
          [id, good.active, good.active_filter, good.active_seq]
        )
        yield* sql(url, text, params)
        const { got, want } = yield* ResumeChecks.both(ref)
        expect(got, what).toEqual(want)
        // written again: the next one is bounded
        const after = yield* ResumeChecks.both(ref)
        expect(after.got, what).toEqual(after.want)
        expect(after.bounded, what).toBe(true)
      }
      // a duplicate id (another tool's row): answered by a full read, every time
      const dup = sm.getBranch()[35]!
      yield* rawAppend(url, id, JSON.stringify({ ...dup, parentId: sm.getLeafId() }))
      for (let i = 0; i < 2; i++) {
        const { bounded, got, want } = yield* ResumeChecks.both(ref)
        expect(got).toEqual(want)
        expect(bounded).toBe(false)
      }
      // a torn last row
      const torn = yield* SessionManager.create("/work", url, { eagerFlush: true })
      yield* torn.appendMessage(user("x"))
      const tornRef = SessionRef.format(torn.getSessionRef()!)
      yield* rawAppend(url, torn.getSessionId(), "{\"type\":\"message\",\"id\":\"tt")
      yield* sql(url, "UPDATE branchlog_sessions SET torn_tail = true WHERE session_id = $1", [torn.getSessionId()])
      for (let i = 0; i < 2; i++) {
        const { bounded, got, want } = yield* ResumeChecks.both(tornRef)
        expect(got).toEqual(want)
        expect(bounded).toBe(false)
      }
    }))
  }, 120_000)

  it(
    "a database of schema version 1: read-only resumes it fully; a writable open migrates it, then bounded",
    async () => {
      const url = await database()
      const id = await run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/work", url, { eagerFlush: true })
        for (let i = 0; i < 10; i++) yield* sm.appendMessage(user(`u${i}`))
        return sm.getSessionId()
      }))
      // back to version 1: the columns of migration 2 dropped, its record removed
      await Effect.runPromise(Effect.gen(function*() {
        yield* sql(
          url,
          `ALTER TABLE branchlog_sessions DROP COLUMN active, DROP COLUMN active_filter,
           DROP COLUMN active_generation, DROP COLUMN active_seq`
        )
        yield* sql(url, "DELETE FROM branchlog_migrations WHERE migration_id = 2")
      }))
      const ref = `${url}#${id}`
      await run(Effect.gen(function*() {
        for (let i = 0; i < 2; i++) {
          const { bounded, got, want } = yield* ResumeChecks.both(ref, { readOnly: true, writeIndex: false })
          expect(got).toEqual(want)
          expect(bounded).toBe(false)
          expect(want.leaf).not.toBeNull()
        }
      }))
      const [before] = await Effect.runPromise(sql(url, "SELECT max(migration_id) AS v FROM branchlog_migrations"))
      expect(Number(before.v)).toBe(1)
      await run(Effect.gen(function*() {
        const first = yield* ResumeChecks.both(ref, { readOnly: false })
        expect(first.got).toEqual(first.want)
        const second = yield* ResumeChecks.both(ref, { readOnly: false })
        expect(second.got).toEqual(second.want)
        expect(second.bounded).toBe(true)
      }))
      const [after] = await Effect.runPromise(sql(url, "SELECT max(migration_id) AS v FROM branchlog_migrations"))
      expect(Number(after.v)).toBe(PostgresStore.schemaVersion)
    },
    120_000
  )
})
