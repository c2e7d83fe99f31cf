/**
 * What the SQLite store promises beyond the conformance suite: rows byte for byte (a torn last
 * line, BOM, CRLF, blank, corrupt and opaque rows), the schema-version guard, read-only loads that
 * never create or migrate, replace with a backup and a new generation, a listing read from the
 * sessions table only, search, holds across store instances (stale ones taken over), and refusal
 * of other kinds of reference.
 */
import { Line } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import type { TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { BackendFailureError, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as Schema from "../src/internal/schema.js"
import * as SqliteStore from "../src/SqliteStore.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-store-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
let dbs = 0
const freshDb = () => path.join(root, `db-${++dbs}.db`)

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd: "/w" })
const message = (id: string, parentId: string | null, role: string, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-05-01T10:00:01.000Z",
    message: { role, content: [{ type: "text", text }], timestamp: 1_777_000_000_000 }
  })

const withStore = <A, E>(f: (store: TranscriptStoreShape) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(SqliteStore.make(), f))

const create = (
  store: TranscriptStoreShape,
  ref: SessionRef.SqliteRef,
  texts: ReadonlyArray<string>,
  tornTail = false
) => store.exclusive(ref, (held) => held.create(texts, { unterminated: tornTail }))

const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex")

describe("SqliteStore", () => {
  it.live("streamRows: every row in pages, a torn last row unterminated, a missing session empty", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const file = freshDb()
        const texts = [
          header("s1"),
          ...Array.from({ length: 2_400 }, (_, i) => message(`m${i}`, null, "user", `t${i}`))
        ]
        yield* create(store, SqliteStore.ref(file, "s1"), [...texts, "{\"type\":\"message\",\"id\":\"to"], true)
        const rows = Chunk.toReadonlyArray(yield* Stream.runCollect(store.streamRows!(SqliteStore.ref(file, "s1"))))
        expect(rows.map((r) => r.text)).toEqual([...texts, "{\"type\":\"message\",\"id\":\"to"])
        expect(rows.filter((r) => !r.terminated).map((r) => r.text)).toEqual(["{\"type\":\"message\",\"id\":\"to"])
        expect(Chunk.size(yield* Stream.runCollect(store.streamRows!(SqliteStore.ref(file, "none"))))).toBe(0)
      })
    ))

  it.live("keeps every row's text: BOM, CRLF, blank, corrupt and opaque rows, and a torn last line until the next append", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const ref = SqliteStore.ref(freshDb(), "s1")
        const texts = [
          "\uFEFF" + header("s1") + "\r",
          message("a1", null, "user", "hello") + "\r",
          "",
          "   ",
          "{\"type\":\"x-vendor\",\"z\":1,\"a\":[2, 3]}",
          "not json {",
          message("a2", "a1", "assistant", "hi"),
          "{\"type\":\"message\",\"id\":\"to"
        ]
        yield* create(store, ref, texts, true)
        const loaded = yield* store.load(ref, { cwd: "/w" })
        expect(loaded.rows().map(Line.serialize)).toEqual(texts)
        expect(loaded.report.tornTail).toMatchObject({ line: 8, offset: 7 })
        expect(loaded.report.corrupt.map((c) => c.line)).toEqual([6, 8])
        expect(loaded.state.byId.has("a2")).toBe(true)
        yield* store.exclusive(ref, (held) => held.append(loaded.cursor!, [message("a3", "a2", "user", "more")]))
        const again = yield* store.load(ref, { cwd: "/w" })
        expect(again.report.tornTail).toBeUndefined()
        expect(again.rows().map(Line.serialize)).toEqual([...texts, message("a3", "a2", "user", "more")])
      })
    ))

  it.live("refuses a database whose schema is newer, for writing and for reading, without touching it", () =>
    Effect.gen(function*() {
      const file = freshDb()
      const ref = SqliteStore.ref(file, "s1")
      yield* withStore((store) => create(store, ref, [header("s1")]))
      const db = new Database(file)
      db.prepare("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (99, 'future')").run()
      db.close()
      const before = sha(file)
      for (const readOnly of [false, true]) {
        const error = yield* Effect.flip(withStore((store) => store.load(ref, { cwd: "/w", readOnly })))
        expect(error).toBeInstanceOf(SchemaTooNewError)
        expect(error).toMatchObject({ store: "sqlite", location: file, found: 99, supported: Schema.LATEST })
        expect(error.message).toContain(`${file} has schema version 99, newer than this branchlog supports`)
      }
      const listed = yield* Effect.flip(withStore((store) => store.list({ location: `sqlite:${file}` })))
      expect(listed).toBeInstanceOf(SchemaTooNewError)
      expect(sha(file)).toBe(before)
    }))

  it.live("a failed file operation is a FileSystemError, a failure of SQLite a BackendFailureError", () =>
    Effect.gen(function*() {
      // the database's folder cannot be made: a regular file stands where it should be
      const blocker = path.join(root, `not-a-folder-${++dbs}`)
      fs.writeFileSync(blocker, "x")
      const file = path.join(blocker, "sessions.db")
      const opened = yield* Effect.flip(
        withStore((store) => create(store, SqliteStore.ref(file, "s1"), [header("s1")]))
      )
      expect(opened._tag).toBe("FileSystemError")
      expect(opened).toMatchObject({ path: file, operation: "open" })
      expect((opened as { code?: string }).code).toMatch(/^E[A-Z]+$/)
      // a file that is no database: SQLite's own failure, with its code
      const junk = freshDb()
      fs.writeFileSync(junk, "this is not an SQLite database, only text long enough to have a header page".repeat(20))
      const read = yield* Effect.flip(withStore((store) => create(store, SqliteStore.ref(junk, "s1"), [header("s1")])))
      expect(read).toBeInstanceOf(BackendFailureError)
      expect(read).toMatchObject({ store: "sqlite", location: junk, code: "SQLITE_NOTADB" })
      expect(read.message).toContain(`the sqlite store failed to open ${junk} (SQLITE_NOTADB)`)
    }))

  it.live("a read-only load never creates a database, never migrates one, and takes no hold", () =>
    Effect.gen(function*() {
      const absent = freshDb()
      const missing = yield* withStore((store) =>
        store.load(SqliteStore.ref(absent, "x"), { cwd: "/", readOnly: true })
      )
      expect(missing.exists).toBe(false)
      expect(fs.existsSync(absent)).toBe(false)
      // a database file without the schema stays without it
      const bare = freshDb()
      new Database(bare).exec("CREATE TABLE other (x)").close()
      const none = yield* withStore((store) => store.load(SqliteStore.ref(bare, "x"), { cwd: "/", readOnly: true }))
      expect(none.exists).toBe(false)
      const tables = new Database(bare, { readonly: true })
      expect(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(["other"])
      tables.close()
      // a read-only load goes on while another process holds the session's write lock
      const file = freshDb()
      const ref = SqliteStore.ref(file, "s1")
      yield* withStore((store) => create(store, ref, [header("s1"), message("a1", null, "user", "q")]))
      const blocker = new Database(file)
      blocker.exec("BEGIN IMMEDIATE")
      try {
        const loaded = yield* withStore((store) => store.load(ref, { cwd: "/", readOnly: true }))
        expect(loaded.state.byId.has("a1")).toBe(true)
      } finally {
        blocker.exec("ROLLBACK")
        blocker.close()
      }
    }))

  it.live("replace keeps the old rows as a backup and bumps the generation: an old cursor sees Replaced", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const file = freshDb()
        const ref = SqliteStore.ref(file, "s1")
        const first = [header("s1"), message("a1", null, "user", "q")]
        const written = yield* create(store, ref, first)
        const { backup, loaded } = yield* store.exclusive(ref, (held) =>
          held.replace(Line.parseText(header("s1") + "\n"), { backup: "repair", cwd: "/w" }))
        expect(backup).toMatch(/#s1\.repair-/)
        expect(loaded.rows().map(Line.serialize)).toEqual([header("s1")])
        expect((yield* store.changes(ref, written.cursor))._tag).toBe("Replaced")
        const db = new Database(file, { readonly: true })
        const rows = db.prepare("SELECT name, generation, rows FROM backups WHERE session = 's1'").all() as Array<any>
        db.close()
        expect(rows).toHaveLength(1)
        expect(rows[0].name).toBe(backup)
        expect(JSON.parse(rows[0].rows)).toEqual(first)
        expect((yield* store.changes(ref, loaded.cursor!))._tag).toBe("Unchanged")
      })
    ))

  it.live("the listing comes from the sessions table alone, kept current by each write", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const file = freshDb()
        const ref = SqliteStore.ref(file, "s1")
        const written = yield* create(store, ref, [header("s1"), message("a1", null, "user", "first question")])
        yield* store.exclusive(ref, (held) =>
          held.append(written.cursor, [
            message("a2", "a1", "assistant", "an answer"),
            JSON.stringify({
              type: "session_info",
              id: "n1",
              parentId: "a2",
              timestamp: "2026-05-01T10:00:02.000Z",
              name: " Named "
            })
          ]))
        // with the rows gone from under it, the listing still has every field: it never reads rows
        new Database(file).exec("DELETE FROM rows").close()
        const [listed] = yield* store.list({ location: `sqlite:${file}` })
        expect(listed).toMatchObject({
          id: "s1",
          cwd: "/w",
          name: "Named",
          messageCount: 2,
          firstMessage: "first question",
          allMessagesText: "first question an answer",
          path: `sqlite:${file}#s1`
        })
        expect(listed!.created.toISOString()).toBe("2026-05-01T10:00:00.000Z")
        expect(listed!.modified.getTime()).toBe(1_777_000_000_000)
        expect(Option.map(yield* store.mostRecent(`sqlite:${file}`), SessionRef.format)).toEqual(
          Option.some(`sqlite:${file}#s1`)
        )
      })
    ))

  it.live("migrates a version-1 database: listed newest first; the indexes rewritten by every append gone", () =>
    Effect.gen(function*() {
      const file = freshDb()
      const at = (id: string, ms: number) =>
        JSON.stringify({
          type: "message",
          id: `${id}-m`,
          parentId: null,
          timestamp: "2026-05-01T10:00:01.000Z",
          message: { role: "user", content: id, timestamp: ms }
        })
      yield* withStore((store) =>
        Effect.forEach(
          [["old", 1_000], ["new", 3_000], ["mid", 2_000]] as const,
          ([id, ms]) => create(store, SqliteStore.ref(file, id), [header(id), at(id, ms)])
        )
      )
      // back to the schema of version 1: no index, no summary columns, no removal count, no stored
      // listing, no record of migrations 2 to 5
      const v1 = new Database(file)
      v1.exec(
        `DELETE FROM effect_sql_migrations WHERE migration_id >= 2; DROP TABLE listing_snapshot;
         DROP TRIGGER sessions_removed; DROP TABLE counters; DROP INDEX sessions_pending;
         ALTER TABLE sessions DROP COLUMN pending; CREATE INDEX sessions_unindexed ON sessions (sid) WHERE indexed < seq;
         ALTER TABLE sessions DROP COLUMN active; ALTER TABLE sessions DROP COLUMN active_filter;
         ALTER TABLE sessions DROP COLUMN active_generation; ALTER TABLE sessions DROP COLUMN active_seq`
      )
      v1.close()
      // read-only, it is read as it is (not migrated)
      const readOnly = yield* withStore((store) =>
        store.load(SqliteStore.ref(file, "mid"), { cwd: "/", readOnly: true })
      )
      expect(readOnly.rows().length).toBe(2)
      const listed = yield* withStore((store) => store.list({ location: `sqlite:${file}` }))
      expect(listed.map((s) => s.id)).toEqual(["new", "mid", "old"])
      const db = new Database(file, { readonly: true })
      const indexes = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' AND sql IS NOT NULL ORDER BY name"
      ).pluck().all()
      const version = db.prepare("SELECT max(migration_id) FROM effect_sql_migrations").pluck().get()
      db.close()
      expect(version).toBe(Schema.LATEST)
      // migration 2's sessions_listing and 1's sessions_unindexed dropped by 4 (each a page of every
      // append's commit); 4's sessions_pending is written only when a session's flag changes
      expect(indexes).toEqual(["sessions_pending", "sessions_touched"])
    }))

  it.live("search finds messages by text, ranked, with a snippet marking the match", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const file = freshDb()
        yield* create(store, SqliteStore.ref(file, "s1"), [
          header("s1"),
          message("a1", null, "user", "how do I configure the frobnicator on linux"),
          message("a2", "a1", "assistant", "the frobnicator frobnicator needs a config file")
        ])
        yield* create(store, SqliteStore.ref(file, "s2"), [header("s2"), message("b1", null, "user", "nothing here")])
        const hits = yield* store.search!({ text: "frobnicator", location: `sqlite:${file}` })
        expect(hits.map((h) => h.entryId).sort()).toEqual(["a1", "a2"])
        expect(hits[0]!.entryId).toBe("a2")
        expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
        expect(hits[0]).toMatchObject({ role: "assistant", timestamp: "2026-05-01T10:00:01.000Z" })
        expect(SessionRef.format(hits[0]!.ref)).toBe(`sqlite:${file}#s1`)
        expect(hits[0]!.snippet).toContain("[frobnicator]")
        expect(yield* store.search!({ text: "nothing", location: `sqlite:${file}` })).toHaveLength(1)
        const bad = yield* Effect.exit(store.search!({ text: "\"unbalanced", location: `sqlite:${file}` }))
        const error = Exit.isFailure(bad) ? (bad.cause as any).error : undefined
        expect(error).toBeInstanceOf(BackendFailureError)
        expect(error).toMatchObject({ store: "sqlite", location: file, operation: "search" })
        expect(error.cause).toBeInstanceOf(Error)
        // a removed session leaves the index
        yield* store.remove(SqliteStore.ref(file, "s2"))
        expect(yield* store.search!({ text: "nothing", location: `sqlite:${file}` })).toHaveLength(0)
      })
    ))

  it.live("search ranks only the searchCandidates matches last in storage order; each hit its own snippet", () =>
    Effect.gen(function*() {
      const file = freshDb()
      const texts = ["zebra zebra zebra oldest", "zebra one middle", "zebra two newest", "no match here"]
      yield* withStore((store) =>
        Effect.forEach(
          texts,
          (text, i) =>
            create(store, SqliteStore.ref(file, `s${i}`), [header(`s${i}`), message(`m${i}`, null, "user", text)])
        )
      )
      const location = `sqlite:${file}`
      const all = yield* withStore((store) => store.search!({ text: "zebra", location }))
      // every match ranked: the densest (oldest) first, then the rest by bm25, ties by storage order
      expect(all.map((h) => h.entryId)).toEqual(["m0", "m1", "m2"])
      for (const hit of all) expect(hit.snippet).toContain(texts[Number(hit.entryId.slice(1))]!.split(" ").at(-1))
      const capped = yield* Effect.scoped(
        Effect.flatMap(SqliteStore.make({ searchCandidates: 2 }), (store) => store.search!({ text: "zebra", location }))
      )
      // only the two last written are ranked, with the same scores as in the full ranking
      expect(capped.map((h) => h.entryId)).toEqual(["m1", "m2"])
      expect(capped.map((h) => h.score)).toEqual(all.slice(1).map((h) => h.score))
    }))

  it.live("a hold excludes another store instance until released; a dead holder's lease is taken over; a live one times out naming it", () =>
    Effect.gen(function*() {
      const file = freshDb()
      const ref = SqliteStore.ref(file, "s1")
      yield* withStore((store) => create(store, ref, [header("s1")]))
      const order: Array<string> = []
      yield* withStore((a) =>
        withStore((b) =>
          Effect.all([
            a.exclusive(ref, () =>
              Effect.gen(function*() {
                order.push("a in")
                yield* Effect.sleep(150)
                order.push("a out")
              })),
            Effect.zipRight(Effect.sleep(30), b.exclusive(ref, () => Effect.sync(() => order.push("b in"))))
          ], { concurrency: 2 })
        )
      )
      expect(order).toEqual(["a in", "a out", "b in"])
      // a lease left by a process that died is taken over at once
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8"
      })
      const holds = new Database(file)
      holds.prepare("INSERT INTO holds VALUES ('s1', 'gone', ?, ?, ?)").run(
        Number(dead.stdout),
        os.hostname(),
        Date.now()
      )
      yield* withStore((store) => store.exclusive(ref, () => Effect.void, { lock: { timeoutMs: 50 } }))
      // a live holder (this very process's parent) is waited for, then named
      holds.prepare("INSERT INTO holds VALUES ('s1', 'alive', ?, ?, ?)").run(process.ppid, os.hostname(), Date.now())
      holds.close()
      const exit = yield* Effect.exit(
        withStore((store) => store.exclusive(ref, () => Effect.void, { lock: { timeoutMs: 100 } }))
      )
      expect(Exit.isFailure(exit) && (exit.cause as any).error).toMatchObject({
        _tag: "LockTimeoutError",
        holderPid: process.ppid
      })
    }))

  it.live("durability fsync writes with synchronous=FULL and goes back to NORMAL; the default never changes it", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const file = freshDb()
        const ref = SqliteStore.ref(file, "s1")
        const created = yield* create(store, ref, [header("s1")])
        // the store's connection is the one writing: watch its pragmas through the prototype
        const seen: Array<string> = []
        const proto = Object.getPrototypeOf(new Database(":memory:")) as { pragma: (...a: Array<any>) => unknown }
        const pragma = proto.pragma
        proto.pragma = function(this: unknown, sql: string, ...rest: Array<any>) {
          seen.push(sql)
          return pragma.call(this, sql, ...rest)
        }
        try {
          const first = yield* store.exclusive(ref, (held) =>
            held.append(created.cursor, [message("a1", null, "user", "q")], { durability: "fsync" }))
          expect(seen).toEqual(["synchronous = FULL", "synchronous = NORMAL"])
          yield* store.exclusive(ref, (held) =>
            held.append(first.cursor, [message("a2", "a1", "user", "r")]))
          expect(seen).toHaveLength(2)
        } finally {
          proto.pragma = pragma
        }
      })
    ))

  it.live("serves sqlite references only, and SessionManager works over it with canonical references", () =>
    Effect.gen(function*() {
      const store = SqliteStore.layer()
      const file = freshDb()
      const program = Effect.gen(function*() {
        const s = yield* TranscriptStore
        const refused = yield* Effect.exit(s.load(SessionRef.file("/x.jsonl"), { cwd: "/" }))
        expect(Exit.isFailure(refused) && (refused.cause as any).error._tag).toBe("UnsupportedSessionRefError")
        expect(s.resolveLocation(`sqlite:${path.relative(process.cwd(), file)}`)).toBe(`sqlite:${file}`)
        const sm = yield* SessionManager.create("/home/me", `sqlite:${file}`, { eagerFlush: true })
        yield* sm.appendMessage({ role: "user", content: "hello", timestamp: 1 } as never)
        const ref = sm.getSessionRef()!
        expect(SessionRef.format(ref)).toBe(`sqlite:${file}#${sm.getSessionId()}`)
        const again = yield* SessionManager.open(SessionRef.format(ref))
        expect(again.getEntries()).toHaveLength(1)
      })
      yield* program.pipe(Effect.provide(store as Layer.Layer<TranscriptStore>))
    }))
})
