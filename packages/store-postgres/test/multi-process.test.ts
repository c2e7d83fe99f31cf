/**
 * Real processes, each its own store and pool (standing for hosts), on the run's server: 8 writers
 * × 500 appends on one session and on eight; the same on one session with the server stopped and
 * started in the middle (a server of this test's own); a follower in another process receiving
 * every entry 4 writers append, in order, none twice.
 */
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { afterAll, describe, expect, it } from "vitest"
import * as Store from "../src/internal/store.js"
import { acked, type Child, start, waitFor } from "./support/children.js"
import { database, withClient } from "./support/db.js"
import { freshDatabase, type Server, startServer } from "./support/server.js"

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" })

const seed = (url: string, id: string) =>
  withClient(url, async (client) => {
    // the writers' first open gives the database its schema; the header is the first row
    const { migrate } = await import("../src/PostgresStore.js")
    const { Effect } = await import("effect")
    await Effect.runPromise(migrate(url))
    await client.query(
      "INSERT INTO branchlog_sessions (session_id, generation, last_seq, first_kind) VALUES ($1, 1, 1, 'Header')",
      [id]
    )
    await client.query(
      "INSERT INTO branchlog_rows (session_id, seq, text, kind, entry_id, type) VALUES ($1, 1, $2, 'Header', $1, 'session')",
      [
        id,
        header(id)
      ]
    )
  })

interface Stored {
  readonly seq: number
  readonly row: Record<string, any>
}

const storedRows = (url: string, id: string) =>
  withClient(
    url,
    async (client) =>
      (await client.query("SELECT seq, text FROM branchlog_rows WHERE session_id = $1 ORDER BY seq", [id])).rows.map(
        (r): Stored => ({ seq: r.seq, row: JSON.parse(r.text) })
      )
  )

/** 0 lost, 0 duplicated, gap-free, every parent resolves, each writer's entries one chain in its order. */
const checkSession = (
  rows: ReadonlyArray<Stored>,
  writers: ReadonlyArray<string>,
  perWriter: number,
  ackedIds?: ReadonlySet<string>
) => {
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1))
  const entries = rows.slice(1).map((r) => r.row)
  const ids = new Set(entries.map((e) => e.id))
  expect(ids.size, "duplicated entry ids").toBe(entries.length)
  for (const entry of entries) {
    if (entry.parentId !== null) expect(ids.has(entry.parentId), `parent of ${entry.id}`).toBe(true)
  }
  if (ackedIds !== undefined) { for (const id of ackedIds) expect(ids.has(id), `acknowledged ${id}`).toBe(true) }
  const byId = new Map(entries.map((e) => [e.id, e]))
  for (const name of writers) {
    const own = entries.filter((e) => e.customType === "writer" && e.data.writer === name)
    expect(own.map((e) => e.data.seq), name).toEqual(Array.from({ length: perWriter }, (_, i) => i))
    for (let i = 1; i < own.length; i++) expect(own[i]!.parentId, `${name} chain at ${i}`).toBe(own[i - 1]!.id)
    for (const e of own) expect(byId.get(e.id)).toBeDefined()
  }
}

const finish = async (children: ReadonlyArray<Child>) => {
  const codes = await Promise.all(children.map((c) => c.exited))
  expect(codes, children.map((c) => c.stderr.slice(-2000)).join("\n")).toEqual(children.map(() => 0))
}

const names = Array.from({ length: 8 }, (_, i) => `w${i}`)

describe("many hosts, one server", () => {
  it("8 writers × 500 appends on one session: nothing lost, duplicated or interleaved", async () => {
    const url = await database()
    await seed(url, "shared")
    const writers = names.map((name) => start("writer.ts", [`${url}#shared`, name, "500"]))
    await finish(writers)
    checkSession(await storedRows(url, "shared"), names, 500, new Set(writers.flatMap(acked)))
  }, 600_000)

  it("8 writers × 500 appends on eight sessions", async () => {
    const url = await database()
    for (const name of names) await seed(url, `s-${name}`)
    const writers = names.map((name) => start("writer.ts", [`${url}#s-${name}`, name, "500"]))
    await finish(writers)
    for (const name of names) checkSession(await storedRows(url, `s-${name}`), [name], 500)
  }, 600_000)

  it("a follower in another process receives every entry of 4 writers, in sequence order, none twice", async () => {
    const url = await database()
    await seed(url, "followed")
    const follower = start("follower.ts", [`${url}#followed`, String(4 * 200)])
    await waitFor(follower, (out) => out.includes("ready"))
    const writers = names.slice(0, 4).map((name) => start("writer.ts", [`${url}#followed`, name, "200"]))
    await finish(writers)
    await finish([follower])
    const received = follower.stdout.split("\n").filter((l) => l.startsWith("row ")).map((l) => l.slice(4))
    const stored = (await storedRows(url, "followed")).slice(1).map((r) => r.row.id)
    expect(received).toHaveLength(800)
    expect(new Set(received).size).toBe(800)
    expect(received).toEqual(stored)
  }, 600_000)
})

describe("a server restart in the middle", () => {
  let server: Server | undefined
  afterAll(async () => {
    await server?.dispose()
  })

  const own = async () => {
    server ??= await startServer({ forceEmbedded: true })
    return server
  }

  it("a watch goes on signalling after the server came back (its LISTEN is started again)", async () => {
    const srv = await own()
    const url = await freshDatabase(srv.url, "relisten")
    await seed(url, "watched")
    const ref = `${url}#watched`
    const signals = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const scope = yield* Effect.scope
      const watcher = yield* Store.make(scope, { maxConnections: 2, listenCheckMs: 300 })
      const writer = yield* Store.make(scope, { maxConnections: 2 })
      const parsed = SessionRef.parse(ref)
      if (parsed._tag === "Left") return yield* Effect.die(parsed.left)
      let count = 0
      yield* Stream.runForEach(watcher.watch!(parsed.right), () => Effect.sync(() => void (count += 1))).pipe(
        Effect.forkScoped
      )
      const append = Effect.gen(function*() {
        const loaded = yield* writer.load(parsed.right, { readOnly: true, cwd: "/w" })
        const id = `e${loaded.end.line}`
        yield* writer.exclusive(
          parsed.right,
          (held) =>
            held.append(loaded.cursor!, [
              JSON.stringify({
                type: "custom",
                customType: "x",
                id,
                parentId: null,
                timestamp: "2026-05-01T09:00:01.000Z"
              })
            ])
        )
      })
      const waitFor = (n: number) =>
        Effect.gen(function*() {
          const deadline = Date.now() + 60_000
          while (count < n && Date.now() < deadline) yield* Effect.sleep("20 millis")
          return count
        })
      yield* Effect.sleep("500 millis")
      yield* append
      const before = yield* waitFor(1)
      yield* Effect.promise(() => srv.stop())
      yield* Effect.sleep("1 second")
      yield* Effect.promise(() => srv.start())
      // the watcher's check notices its LISTEN went deaf and listens again; then a write is heard
      yield* Effect.sleep("3 seconds")
      yield* append
      const after = yield* waitFor(before + 1)
      return { before, after }
    })))
    expect(signals.before).toBeGreaterThanOrEqual(1)
    expect(signals.after).toBeGreaterThan(signals.before)
  }, 300_000)

  it("every acknowledged append is there afterwards, and the writers resumed on their own", async () => {
    await own()
    server = server!
    const url = await freshDatabase(server.url, "restart")
    await seed(url, "shared")
    const writers = names.map((name) => start("writer.ts", [`${url}#shared`, name, "500"]))
    // stop once a good part is written, stay down a while, start again
    await waitFor(writers[0]!, (out) => acked({ stdout: out }).length >= 100, 300_000)
    await server.stop()
    const ackedWhenStopped = writers.map((w) => acked(w).length)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await server.start()
    await finish(writers)
    const ackedIds = new Set(writers.flatMap(acked))
    expect(ackedIds.size).toBe(8 * 500)
    // the writers went on after the restart
    writers.forEach((w, i) => expect(acked(w).length).toBeGreaterThan(ackedWhenStopped[i]!))
    checkSession(await storedRows(url, "shared"), names, 500, ackedIds)
    // what the writers themselves had to try again (the store retried the rest inside each write)
    const retries = writers.map((w) => Number(/done (\d+)/.exec(w.stdout)?.[1] ?? NaN))
    console.log(`writer-level retries after the restart: ${retries.join(", ")}`)
    expect(retries.every((n) => Number.isInteger(n))).toBe(true)
  }, 900_000)
})
