/**
 * The flag of rows not in the FTS index yet (`sessions.pending`, schema version 4): set by the
 * first write that leaves rows out (an append in a hold), cleared when they are indexed (the
 * hold's release, a search's catch-up); rows of a holder that died before its release, and rows
 * left unindexed by a database of version 3, are found by the next search.
 */
import type { TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import * as Schema from "../src/internal/schema.js"
import * as SqliteStore from "../src/SqliteStore.js"
import { tempDbs, withDb } from "./support/backend.js"

const freshDb = tempDbs("pending").fresh

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd: "/w" })
const message = (id: string, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: null,
    timestamp: "2026-05-01T10:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1_777_000_000_000 }
  })
const withStore = <A, E>(f: (store: TranscriptStoreShape) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(SqliteStore.make(), f)))
const flags = (file: string) =>
  withDb(file, (db) =>
    db.handle.prepare("SELECT id, indexed, seq, pending FROM sessions ORDER BY sid").all() as Array<
      { id: string; indexed: number; seq: number; pending: number | null }
    >)
const search = (file: string, text: string) =>
  withStore((store) => store.search!({ text, location: `sqlite:${file}` })).then((hits) => hits.map((h) => h.entryId))

describe("SqliteStore rows to index", () => {
  it("a hold's appends flag the session once; its release indexes them and clears the flag", async () => {
    const file = freshDb()
    const ref = SqliteStore.ref(file, "s")
    await withStore((store) =>
      store.exclusive(ref, (held) =>
        Effect.gen(function*() {
          const created = yield* held.create([header("s"), message("a", "alpha")])
          const appended = yield* held.append(created.cursor, [message("b", "bravo")])
          yield* held.append(appended.cursor, [message("c", "charlie")])
          expect(flags(file)).toEqual([{ id: "s", indexed: 0, seq: 4, pending: 1 }])
        }))
    )
    expect(flags(file)).toEqual([{ id: "s", indexed: 4, seq: 4, pending: null }])
    expect(await search(file, "charlie")).toEqual(["c"])
  })

  it("a release with more than a page of rows left (a copy in batches) indexes them all, a page per transaction", async () => {
    const file = freshDb()
    const ref = SqliteStore.ref(file, "s")
    const batch = (from: number) => Array.from({ length: 1_500 }, (_, i) => message(`m${from + i}`, `word${from + i}`))
    await withStore((store) =>
      store.exclusive(ref, (held) =>
        Effect.gen(function*() {
          let cursor = (yield* held.create([header("s"), ...batch(0)])).cursor
          for (const from of [1_500, 3_000, 4_500]) cursor = (yield* held.append(cursor, batch(from))).cursor
          expect(flags(file)).toEqual([{ id: "s", indexed: 0, seq: 6_001, pending: 1 }])
        }))
    )
    expect(flags(file)).toEqual([{ id: "s", indexed: 6_001, seq: 6_001, pending: null }])
    expect(await search(file, "word0")).toEqual(["m0"])
    expect(await search(file, "word5999")).toEqual(["m5999"])
    expect(withDb(file, (db) => db.handle.prepare("SELECT count(*) AS n FROM messages_fts").get())).toEqual({
      n: 6_000
    })
  })

  it("rows of a holder that died before its release: flagged, found by the next search, then cleared", async () => {
    const file = freshDb()
    await withStore((store) =>
      store.exclusive(SqliteStore.ref(file, "s"), (held) => held.create([header("s"), message("a", "alpha")]))
    )
    // written as a hold writes (no indexing), never released
    withDb(file, (db) => {
      const s = db.session("s")!
      db.write("s", [message("b", "bravo")], {
        expect: { generation: s.generation, seq: s.seq },
        index: false,
        nowMs: Date.now()
      })
    })
    expect(flags(file)).toEqual([{ id: "s", indexed: 2, seq: 3, pending: 1 }])
    expect(await search(file, "bravo")).toEqual(["b"])
    expect(flags(file)).toEqual([{ id: "s", indexed: 3, seq: 3, pending: null }])
  })

  it("a database of version 3 with rows not indexed: migrated with them flagged, found by a search", async () => {
    const file = freshDb()
    await withStore((store) =>
      Effect.forEach(
        ["s1", "s2"],
        (id) =>
          store.exclusive(SqliteStore.ref(file, id), (held) => held.create([header(id), message(`${id}-a`, "alpha")]))
      )
    )
    withDb(file, (db) => {
      const s = db.session("s2")!
      db.write("s2", [message("s2-b", "bravo")], {
        expect: { generation: s.generation, seq: s.seq },
        index: false,
        nowMs: Date.now()
      })
    })
    // back to version 3: no flag (the unindexed rows found by `indexed < seq` then), no removal count, no
    // stored listing
    const v3 = new Database(file)
    v3.exec(
      `DROP TRIGGER sessions_removed; DROP TABLE counters; DROP INDEX sessions_pending;
       ALTER TABLE sessions DROP COLUMN pending; CREATE INDEX sessions_unindexed ON sessions (sid) WHERE indexed < seq;
       DROP TABLE listing_snapshot; DELETE FROM ${Schema.MIGRATIONS_TABLE} WHERE migration_id >= 4`
    )
    v3.close()
    expect(await search(file, "bravo")).toEqual(["s2-b"])
    expect(flags(file)).toEqual([
      { id: "s1", indexed: 2, seq: 2, pending: null },
      { id: "s2", indexed: 3, seq: 3, pending: null }
    ])
    withDb(file, (db) => expect(Schema.versionOf(db.handle)).toBe(Schema.LATEST))
  })
})
