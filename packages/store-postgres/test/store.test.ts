/**
 * The PostgreSQL store's own promises beyond the conformance suite: the schema (given on first
 * writable use, never by a read-only load, a newer one refused), idempotent appends, rows kept
 * byte for byte, a notification per commit, `watch`, `search`, holds across instances, backups,
 * connection settings from `PG*` variables.
 */
import type { Entry } from "@branchlog/session-core"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type { Held, TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import { BackendFailureError, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import pg from "pg"
import { describe, expect, it } from "vitest"
import * as Store from "../src/internal/store.js"
import * as PostgresError from "../src/PostgresError.js"
import * as PostgresStore from "../src/PostgresStore.js"
import { adminUrl, database, withClient } from "./support/db.js"

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" })
const message = (id: string, parentId: string | null, role: string, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-05-01T09:00:01.000Z",
    message: { role, content: [{ type: "text", text }], timestamp: 1 }
  })

/** Runs `f` with a fresh store (its own pools), closed afterwards. */
const withStore = <A, E>(f: (store: TranscriptStoreShape) => Effect.Effect<A, E>, options: Store.Options = {}) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(
        Effect.scope,
        (scope) => Effect.flatMap(Store.make(scope, { maxConnections: 4, idleTimeoutMs: 2_000, ...options }), f)
      )
    )
  )

const refIn = (url: string, id: string): SessionRef.PostgresRef => ({ _tag: "Postgres", url, id })

const createSession = (store: TranscriptStoreShape, ref: SessionRef.SessionRef, rows: ReadonlyArray<string>) =>
  store.exclusive(ref, (held) => held.create(rows))

const tables = (url: string) =>
  withClient(
    url,
    async (client) =>
      (await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) =>
        r.tablename
      )
  )

describe("the schema", () => {
  it("a read-only load of a fresh database finds nothing and creates nothing; a write gives it the schema", async () => {
    const url = await database()
    const ref = refIn(url, "s1")
    const loaded = await withStore((store) => store.load(ref, { readOnly: true, cwd: "/w" }))
    expect(loaded.exists).toBe(false)
    expect(await tables(url)).toEqual([])
    await withStore((store) => createSession(store, ref, [header("s1")]))
    expect(await tables(url)).toEqual([
      "branchlog_backup_rows",
      "branchlog_backups",
      "branchlog_migrations",
      "branchlog_rows",
      "branchlog_sessions"
    ])
  })

  it("a newer schema is refused, by the store and by migrate", async () => {
    const url = await database()
    expect(await Effect.runPromise(PostgresStore.migrate(url))).toBeUndefined()
    expect(await Effect.runPromise(PostgresStore.migrate(url))).toBe(PostgresStore.schemaVersion)
    await withClient(
      url,
      (client) => client.query("INSERT INTO branchlog_migrations (migration_id, name) VALUES (99, 'future')")
    )
    const migrated = await Effect.runPromise(Effect.either(PostgresStore.migrate(url)))
    expect(migrated._tag).toBe("Left")
    const error = (migrated as { left: unknown }).left
    expect(error).toBeInstanceOf(SchemaTooNewError)
    const expected = { store: "postgres", found: 99, supported: PostgresStore.schemaVersion }
    expect(error).toMatchObject(expected)
    expect((error as SchemaTooNewError).message).not.toContain("password")
    // the deprecated name is the same class
    expect(PostgresError.SchemaTooNewError).toBe(SchemaTooNewError)
    for (const readOnly of [true, false]) {
      const failed = await withStore((store) => Effect.either(store.load(refIn(url, "x"), { readOnly, cwd: "/w" })))
      expect(failed._tag).toBe("Left")
      const refused = (failed as { left: unknown }).left
      expect(refused).toBeInstanceOf(SchemaTooNewError)
      expect(refused).toMatchObject({ ...expected, location: (error as SchemaTooNewError).location })
    }
  })
})

describe("rows and writes", () => {
  it("blank, damaged and NUL-bearing rows come back byte for byte", async () => {
    const url = await database()
    const ref = refIn(url, "raw")
    const rows = [
      header("raw"),
      "",
      "  ",
      "{not json",
      "[1,2]",
      "{\"type\":\"custom\",\"x\":\"a\u0000b\"}",
      "bad\u0000row",
      message("m1", null, "user", "hé ✓")
    ]
    const loaded = await withStore((store) =>
      Effect.zipRight(createSession(store, ref, rows), store.load(ref, { readOnly: true, cwd: "/w" }))
    )
    expect(loaded.rows().map((row) => ("raw" in row ? row.raw : undefined) ?? JSON.stringify(row))).toHaveLength(
      rows.length
    )
    const { Line } = await import("@branchlog/session-core")
    expect(loaded.rows().map(Line.serialize)).toEqual(rows)
  })

  it("an append retried after a lost acknowledgement is stored once; a stale cursor is refused", async () => {
    const url = await database()
    const ref = refIn(url, "idem")
    const stored = await withStore((store) =>
      Effect.gen(function*() {
        const first = yield* createSession(store, ref, [header("idem")])
        const rows = [message("a1", null, "user", "one")]
        const once = yield* store.exclusive(ref, (held) => held.append(first.cursor, rows))
        // the same append again with the same cursor (what a retry after a lost COMMIT acknowledgement does)
        const again = yield* store.exclusive(ref, (held) => held.append(first.cursor, rows))
        expect(again.positions).toEqual(once.positions)
        expect(again.end).toEqual(once.end)
        const stale = yield* Effect.either(
          store.exclusive(ref, (held) => held.append(first.cursor, [message("b1", null, "user", "two")]))
        )
        expect(stale._tag === "Left" && stale.left._tag).toBe("StaleCursorError")
        return (yield* store.load(ref, { readOnly: true, cwd: "/w" })).rows().length
      })
    )
    expect(stored).toBe(2)
    const seqs = await withClient(
      url,
      async (c) => (await c.query("SELECT seq FROM branchlog_rows WHERE session_id = 'idem' ORDER BY seq")).rows
    )
    expect(seqs.map((r) => r.seq)).toEqual([1, 2])
  })

  it("an append of more rows than one statement takes (2,500, in chunks) and a small one keep the session row alike", async () => {
    const url = await database()
    const chain = (prefix: string, n: number, parent: string | null) =>
      Array.from(
        { length: n },
        (_, i) => message(`${prefix}${i}`, i === 0 ? parent : `${prefix}${i - 1}`, "user", `t${i}`)
      )
    const big = chain("b", 2_500, null)
    const summaries = await withStore((store) =>
      Effect.gen(function*() {
        const out: Array<{ rows: number; leaf: string | null; messages: number; cwd: string | undefined }> = []
        for (const [id, rows] of [["large", big], ["small", chain("s", 3, null)]] as const) {
          const ref = refIn(url, id)
          const created = yield* createSession(store, ref, [header(id)])
          yield* store.exclusive(ref, (held) => held.append(created.cursor, rows))
          const loaded = yield* store.load(ref, { readOnly: true, cwd: "/w" })
          const listed = (yield* store.list({ location: url })).find((s) => SessionRef.format(s.ref) === `${url}#${id}`)
          out.push({
            rows: loaded.rows().length,
            leaf: loaded.state.leafId,
            messages: listed?.messageCount ?? -1,
            cwd: listed?.cwd
          })
        }
        return out
      })
    )
    expect(summaries).toEqual([
      { rows: 2_501, leaf: "b2499", messages: 2_500, cwd: "/w" },
      { rows: 4, leaf: "s2", messages: 3, cwd: "/w" }
    ])
    const stored = await withClient(
      url,
      async (c) =>
        (await c.query("SELECT session_id, last_seq, leaf, message_count FROM branchlog_sessions ORDER BY 1")).rows
    )
    expect(stored).toEqual([
      { session_id: "large", last_seq: 2_501, leaf: "b2499", message_count: 2_500 },
      { session_id: "small", last_seq: 4, leaf: "s2", message_count: 3 }
    ])
  })

  it("a second create of a session that has rows is a conflict, even with the same rows", async () => {
    const url = await database()
    const ref = refIn(url, "twice")
    const second = await withStore((store) =>
      Effect.zipRight(
        createSession(store, ref, [header("twice")]),
        Effect.either(createSession(store, ref, [header("twice")]))
      )
    )
    expect(second._tag === "Left" && second.left._tag).toBe("SessionFileConflictError")
  })

  it("a torn last row copied in is reported as torn until the next write", async () => {
    const url = await database()
    const ref = refIn(url, "torn")
    const reports = await withStore((store) =>
      Effect.gen(function*() {
        const created = yield* store.exclusive(ref, (held) =>
          held.create([header("torn"), "{\"type\":\"mess"], { unterminated: true }))
        const before = (yield* store.load(ref, { readOnly: true, cwd: "/w" })).report.tornTail
        yield* store.exclusive(ref, (held) =>
          held.append(created.cursor, [message("a1", null, "user", "x")]))
        const after = (yield* store.load(ref, { readOnly: true, cwd: "/w" })).report.tornTail
        return { before, after }
      })
    )
    expect(reports.before).toMatchObject({ line: 2, offset: 1 })
    expect(reports.after).toBeUndefined()
  })

  it("replace keeps the old rows as a backup and bumps the generation (an old cursor sees Replaced)", async () => {
    const url = await database()
    const ref = refIn(url, "rep")
    await withStore((store) =>
      Effect.gen(function*() {
        const created = yield* createSession(store, ref, [header("rep"), message("a1", null, "user", "x")])
        const { backup } = yield* store.exclusive(ref, (held) =>
          held.replace(StoreRows.parse([header("rep")]), { backup: "backup", cwd: "/w" }))
        expect(backup).toContain("backup")
        expect((yield* store.changes(ref, created.cursor))._tag).toBe("Replaced")
      })
    )
    const kept = await withClient(
      url,
      async (c) => (await c.query("SELECT r.text FROM branchlog_backup_rows r ORDER BY seq")).rows
    )
    expect(kept.map((r) => r.text)).toEqual([header("rep"), message("a1", null, "user", "x")])
    const generation = await withClient(
      url,
      async (c) => (await c.query("SELECT generation FROM branchlog_sessions")).rows[0].generation
    )
    expect(generation).toBe(2)
  })

  it("connection settings come from PG* variables for what the URL leaves out", async () => {
    const url = new URL(await database())
    const saved = { ...process.env }
    Object.assign(process.env, {
      PGHOST: url.hostname,
      PGPORT: url.port,
      PGUSER: decodeURIComponent(url.username),
      PGPASSWORD: decodeURIComponent(url.password)
    })
    try {
      const bare = `postgres:///${url.pathname.slice(1)}`
      const ref = refIn(bare, "env")
      const loaded = await withStore((store) =>
        Effect.zipRight(createSession(store, ref, [header("env")]), store.load(ref, { readOnly: true, cwd: "/w" }))
      )
      expect(loaded.exists).toBe(true)
    } finally {
      for (const key of ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD"]) {
        if (saved[key] === undefined) delete process.env[key]
        else process.env[key] = saved[key]
      }
    }
  })
})

describe("a server never reached", () => {
  it("fails soon with the connection's error instead of waiting the whole retry time", async () => {
    const net = await import("node:net")
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const found = (probe.address() as { port: number }).port
        probe.close(() => resolve(found))
      })
    })
    const ref = refIn(`postgres://postgres:secret@127.0.0.1:${port}/none`, "x")
    // with ten minutes of retries for a server that went away, only the first-connection bound ends this
    const failed = await withStore((store) => Effect.either(store.load(ref, { readOnly: true, cwd: "/w" })), {
      retryMs: 600_000,
      firstConnectMs: 300
    })
    expect(failed._tag).toBe("Left")
    const error = (failed as { left: unknown }).left
    expect(error).toBeInstanceOf(BackendFailureError)
    expect(error).toMatchObject({ store: "postgres", operation: "load", code: "ECONNREFUSED" })
    expect((error as BackendFailureError).cause).toBeDefined()
    expect((error as BackendFailureError).message).toContain(
      "the postgres store failed to load postgres://postgres:***@"
    )
    expect((error as BackendFailureError).message).not.toContain("secret")
  }, 60_000)
})

describe("holds across instances", () => {
  it("a hold keeps another store out until it ends, and a short timeout fails with LockTimeoutError", async () => {
    const url = await database()
    const ref = refIn(url, "hold")
    const order: Array<string> = []
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const scope = yield* Effect.scope
      const a = yield* Store.make(scope, { maxConnections: 4 })
      const b = yield* Store.make(scope, { maxConnections: 4 })
      yield* createSession(a, ref, [header("hold")])
      const inside = yield* Effect.makeLatch()
      const release = yield* Effect.makeLatch()
      const holder = yield* Effect.fork(a.exclusive(ref, () =>
        Effect.gen(function*() {
          order.push("a in")
          yield* inside.open
          yield* release.await
          order.push("a out")
        })))
      yield* inside.await
      const timedOut = yield* Effect.either(b.exclusive(ref, () => Effect.void, { lock: { timeoutMs: 200 } }))
      expect(timedOut._tag === "Left" && timedOut.left._tag).toBe("LockTimeoutError")
      const waiter = yield* Effect.fork(b.exclusive(ref, () => Effect.sync(() => order.push("b in"))))
      yield* Effect.sleep("300 millis")
      order.push("release")
      yield* release.open
      yield* Fiber.join(holder)
      yield* Fiber.join(waiter)
    })))
    expect(order).toEqual(["a in", "release", "a out", "b in"])
  })
})

describe("live updates", () => {
  it("every commit notifies 'branchlog' with '<id>:<last seq>'; watch signals only its session", async () => {
    const url = await database()
    const listener = new pg.Client({ connectionString: url })
    await listener.connect()
    const payloads: Array<string> = []
    listener.on("notification", (m) => {
      if (m.channel === "branchlog" && m.payload !== undefined) payloads.push(m.payload)
    })
    await listener.query("LISTEN branchlog")
    try {
      const signals = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const scope = yield* Effect.scope
        const writer = yield* Store.make(scope, { maxConnections: 4 })
        const watcher = yield* Store.make(scope, { maxConnections: 4 })
        const ref = refIn(url, "live")
        const other = refIn(url, "other")
        const created = yield* createSession(writer, ref, [header("live")])
        yield* createSession(writer, other, [header("other")])
        const seen = yield* Effect.fork(Stream.runCollect(Stream.take(watcher.watch!(ref), 2)))
        yield* Effect.sleep("500 millis")
        yield* writer.exclusive(
          other,
          (held: Held) =>
            Effect.flatMap(
              writer.load(other, { readOnly: true, cwd: "/w" }),
              (l) => held.append(l.cursor!, [message("o1", null, "user", "o")])
            )
        )
        const next = yield* writer.exclusive(
          ref,
          (held) => held.append(created.cursor, [message("a1", null, "user", "a")])
        )
        yield* writer.exclusive(
          ref,
          (held) => held.append(next.cursor, [message("a2", "a1", "user", "b"), message("a3", "a2", "user", "c")])
        )
        return Chunk.size(yield* Fiber.join(seen).pipe(Effect.timeout("30 seconds")))
      })))
      expect(signals).toBe(2)
      const deadline = Date.now() + 30_000
      while (payloads.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(payloads).toEqual(["live:1", "other:1", "other:2", "live:2", "live:4"])
    } finally {
      await listener.end()
    }
  })

  it("search finds messages by words, best first, the match between [ and ]", async () => {
    const url = await database()
    const hits = await withStore((store) =>
      Effect.gen(function*() {
        yield* createSession(store, refIn(url, "s1"), [
          header("s1"),
          message("m1", null, "user", "How do I configure the postgres connection pool?"),
          message("m2", "m1", "assistant", "Set the pool size; the pool of postgres connections is shared.")
        ])
        yield* createSession(store, refIn(url, "s2"), [
          header("s2"),
          message("n1", null, "user", "Nothing relevant here")
        ])
        return yield* store.search!({ text: "postgres pool", location: url })
      })
    )
    expect(hits.map((h) => h.entryId).sort()).toEqual(["m1", "m2"])
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score)
    for (const hit of hits) {
      expect(SessionRef.format(hit.ref)).toBe(`${url}#s1`)
      expect(hit.snippet).toMatch(/\[(postgres|pool)\]/)
      expect(["user", "assistant"]).toContain(hit.role)
    }
  })
})

// keeps the imports of types used only in annotations
export type { Entry }
void Exit
void Scope
void adminUrl
