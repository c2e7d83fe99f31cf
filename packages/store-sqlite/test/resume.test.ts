/**
 * The bounded open (`SessionManager.resume` through `loadActive`) of the SQLite store, where it
 * depends on SQLite itself (the rest, from fixtures to random writes, is the conformance suite's
 * `bounded open` group): resumes racing with another process's appends, whatever is done to the
 * stored summary's columns, and a database of the previous schema version.
 */
import { Messages } from "@branchlog/session-core/testing"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as StoreRouter from "@branchlog/store-jsonl/StoreRouter"
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

/** The stored summary of a session, straight from the database. */
const storedActive = (db: string, id: string) =>
  withDb(db, (d) =>
    d.handle.prepare("SELECT active, active_filter, active_seq FROM sessions WHERE id = ?").get(id) as {
      active: string | null
      active_filter: Buffer | null
      active_seq: number | null
    })

const writer = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "writer-child.ts")

describe("sqlite bounded open (resume)", () => {
  it.live(
    "resumes racing with another process's appends: each equals the full fold of the rows it covers",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "race-")), "sessions.db")
        const sm = yield* SessionManager.create("/work", `sqlite:${db}`, { eagerFlush: true })
        const id = sm.getSessionId()
        for (let i = 0; i < 20; i++) yield* sm.appendMessage(i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`))
        yield* sm.appendCompaction("s", sm.getBranch()[12]!.id, 10)
        const ref = sm.getSessionRef()!
        const store = yield* TranscriptStore
        yield* store.loadActive!(ref, { cwd: "/" })
        const child = start([writer, db, "w", "append", "400", id])
        yield* Effect.promise(() => waitFor(child, (o) => o.includes("ready")))
        const seen = yield* ResumeChecks.racing(ref, () => child.process.exitCode === null, 400)
        expect(yield* Effect.promise(() => child.exited)).toBe(0)
        const texts = withDb(db, (d) => d.textsAfter(id, 0))!
        expect(texts.length).toBe(1 + 20 + 1 + 400)
        for (const { got, rows, want } of ResumeChecks.racedAgainst(seen, texts)) {
          expect(got, `after ${rows} rows`).toEqual(want)
        }
        expect(seen.filter((s) => s.active).length).toBeGreaterThan(seen.length / 2)
        expect(new Set(seen.map((s) => s.rows)).size).toBeGreaterThan(3)
      }).pipe(Effect.provide(layer)),
    300_000
  )

  it.live(
    "a damaged, stale or foreign summary: still the full open's answers, then bounded again",
    () =>
      Effect.gen(function*() {
        const db = path.join(fs.mkdtempSync(path.join(root, "damage-")), "sessions.db")
        const { bounded, manager, ref } = yield* ResumeChecks.compacted(`sqlite:${db}`)
        expect(bounded).toBe(true)
        const id = manager.getSessionId()
        const other = yield* ResumeChecks.compacted(`sqlite:${db}`)
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
              ).run(other.manager.getSessionId(), id)
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
          const { after, first } = yield* ResumeChecks.twice(ref)
          expect(first.got, what).toEqual(first.want)
          // written again: the next one is bounded
          expect(after.got, what).toEqual(after.want)
          expect(after.bounded, what).toBe(true)
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
        const readOnly = yield* ResumeChecks.twice(ref, { readOnly: true, writeIndex: false }).pipe(
          Effect.provide(StoreRouter.layerNode([driver]))
        )
        // a fresh store again: a writable open migrates, the one after it is bounded
        const writable = yield* ResumeChecks.twice(ref, { readOnly: false }).pipe(
          Effect.provide(StoreRouter.layerNode([driver]))
        )
        for (const { bounded, got, want } of [readOnly.first, readOnly.after]) {
          expect(got).toEqual(want)
          expect(bounded).toBe(false)
        }
        expect([writable.first.got, writable.after.got]).toEqual([writable.first.want, writable.after.want])
        expect(writable.after.bounded).toBe(true)
        withDb(db, (d) => expect(Schema.versionOf(d.handle)).toBe(Schema.LATEST))
      }),
    120_000
  )
})
