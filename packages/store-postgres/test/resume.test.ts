/**
 * The bounded open (`SessionManager.resume` through `loadActive`) of the PostgreSQL store, where it
 * depends on PostgreSQL itself (the rest, from fixtures to random writes, is the conformance
 * suite's `bounded open` group): resumes racing with another host's appends, the rest loaded by
 * `loadFull` (an ordinary asynchronous load) after another host appended, whatever is done to the
 * stored summary's columns, and a database of the previous schema version.
 */
import { Messages } from "@branchlog/session-core/testing"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import type * as SessionStore from "@branchlog/store-jsonl/SessionStore"
import * as StoreRouter from "@branchlog/store-jsonl/StoreRouter"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { textOfRow } from "../src/internal/rows.js"
import * as PostgresStore from "../src/PostgresStore.js"
import { start, waitFor } from "./support/children.js"
import { database, withClient } from "./support/db.js"

/** Runs a test's effect with a router over a store of its own (pools closed after). */
const run = <A, E>(effect: Effect.Effect<A, E, SessionStore.Services>) =>
  Effect.runPromise(
    Effect.scoped(effect.pipe(Effect.provide(StoreRouter.layerNode([PostgresStore.driver])))) as Effect.Effect<A, E>
  )

/** A statement through a client of its own. */
const sql = (url: string, text: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => withClient(url, (client) => client.query(text, params as Array<unknown>))).pipe(
    Effect.map((r) => r.rows)
  )

const { assistant, user } = Messages

describe("postgres bounded open (resume)", () => {
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
      yield* Effect.promise(() => waitFor(child, (o) => o.includes("ready")))
      const seen = yield* ResumeChecks.racing(ref, () => child.process.exitCode === null, 300)
      expect(yield* Effect.promise(() => child.exited)).toBe(0)
      const texts = (yield* sql(url, "SELECT text, raw FROM branchlog_rows WHERE session_id = $1 ORDER BY seq", [id]))
        .map((row) => textOfRow(row as { text: string; raw: Buffer | null }))
      expect(texts.length).toBe(1 + 20 + 1 + 300)
      for (const { got, rows, want } of ResumeChecks.racedAgainst(seen, texts)) {
        expect(got, `after ${rows} rows`).toEqual(want)
      }
      expect(seen.filter((s) => s.active).length).toBeGreaterThan(seen.length / 2)
      expect(new Set(seen.map((s) => s.rows)).size).toBeGreaterThan(3)
    }))
  }, 300_000)

  it("the rest of a bounded session is an ordinary load: refused by getTree, read by loadFull", async () => {
    const url = await database()
    await run(Effect.gen(function*() {
      const { bounded, ref } = yield* ResumeChecks.compacted(url)
      expect(bounded).toBe(true)
      const sm = yield* SessionManager.resume(ref)
      const full = yield* SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false })
      expect(sm.isBounded()).toBe(true)
      expect(() => sm.getTree()).toThrow(SessionManager.SessionNotLoadedError)
      expect(sm.buildSessionContext()).toEqual(full.buildSessionContext())
      // another host appends meanwhile: the rest read later holds it, the leaf kept
      const other = yield* SessionManager.open(ref, undefined, undefined, { cache: false })
      const theirs = yield* other.appendMessage(user("from another host"))
      const leaf = sm.getLeafId()
      yield* sm.loadFull()
      expect(sm.isBounded()).toBe(false)
      expect(sm.getLeafId()).toBe(leaf)
      expect(sm.getEntry(theirs)?.parentId).toBe(leaf)
      const again = yield* SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false })
      expect(JSON.stringify(sm.getTree())).toBe(JSON.stringify(again.getTree()))
    }))
  }, 120_000)

  it("a damaged, stale or foreign summary: still the full open's answers, then bounded again", async () => {
    const url = await database()
    await run(Effect.gen(function*() {
      const { bounded, manager, ref } = yield* ResumeChecks.compacted(url)
      expect(bounded).toBe(true)
      const id = manager.getSessionId()
      const other = yield* ResumeChecks.compacted(url)
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
          [id, other.manager.getSessionId()]
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
        const { after, first } = yield* ResumeChecks.twice(ref)
        expect(first.got, what).toEqual(first.want)
        // written again: the next one is bounded
        expect(after.got, what).toEqual(after.want)
        expect(after.bounded, what).toBe(true)
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
      // a fresh store: read-only opens of version 1 read the whole session
      const readOnly = await run(ResumeChecks.twice(ref, { readOnly: true, writeIndex: false }))
      for (const { bounded, got, want } of [readOnly.first, readOnly.after]) {
        expect(got).toEqual(want)
        expect(bounded).toBe(false)
        expect(want.leaf).not.toBeNull()
      }
      const [before] = await Effect.runPromise(sql(url, "SELECT max(migration_id) AS v FROM branchlog_migrations"))
      expect(Number(before.v)).toBe(1)
      // a fresh store again: a writable open migrates, the one after it is bounded
      const writable = await run(ResumeChecks.twice(ref, { readOnly: false }))
      expect([writable.first.got, writable.after.got]).toEqual([writable.first.want, writable.after.want])
      expect(writable.after.bounded).toBe(true)
      const [after] = await Effect.runPromise(sql(url, "SELECT max(migration_id) AS v FROM branchlog_migrations"))
      expect(Number(after.v)).toBe(PostgresStore.schemaVersion)
    },
    120_000
  )
})
