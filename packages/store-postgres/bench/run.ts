/**
 * store-postgres benchmark: figures, not a gate (the machine is shared; read them as orders of
 * magnitude). Against a throwaway embedded server (fsync off, as in the tests) or `BRANCHLOG_PG_URL`:
 *
 * - appends per second through `SessionManager` (each append: the hold, the cursor check, one
 *   transaction, the notification) for 1, 4 and 16 concurrent writers (each its own store and
 *   pool, as separate hosts) on one session and on separate sessions, beside bare node-postgres
 *   transactions of the same shape (lock the session row, INSERT, UPDATE, pg_notify, COMMIT);
 * - a read-only open of a 100k-entry session beside the JSONL open of the same rows;
 * - notification latency: from the call to append to the follower (another store, through
 *   `SessionFollow` on LISTEN) receiving the entry, median and p99, beside a bare pg_notify → LISTEN;
 * - resume (`SessionManager.resume`: the bounded open through the stored summary, the active path
 *   since the last compaction) of 100k synthetic entries (branches, a compaction every 1,000
 *   entries) beside the full open; the first resume (which writes the summary) and a resume after
 *   1,000 appends by another store (caught up), each once.
 *
 * Run: `pnpm bench` in this package (`BRANCHLOG_BENCH_QUICK=1`: smaller counts;
 * `BRANCHLOG_BENCH_ONLY=append,open,latency,resume`: only those).
 */
import { Synthetic } from "@branchlog/session-core/testing"
import * as SessionFollow from "@branchlog/session-store/SessionFollow"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as SessionStore from "@branchlog/store-jsonl/SessionStore"
import { ms, table } from "@branchlog/tooling/bench"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import * as Store from "../src/internal/store.js"
import { freshDatabase, startServer } from "../test/support/server.js"

const quick = process.env.BRANCHLOG_BENCH_QUICK === "1"
const now = () => Number(process.hrtime.bigint()) / 1e6
const perSecond = (count: number, millis: number) => `${Math.round(count / (millis / 1000))}/s`
const percentile = (values: Array<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}
const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" })
const entry = (id: string, parentId: string | null, n: number) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-05-01T09:00:01.000Z",
    message: {
      role: n % 2 === 0 ? "user" : "assistant",
      content: [{ type: "text", text: `message ${n} ${"lorem ipsum ".repeat(8)}` }],
      timestamp: n
    }
  })

const server = await startServer()
const scope = Effect.runSync(Scope.make())
const newStore = (maxConnections = 2) => Effect.runPromise(Store.make(scope, { maxConnections, idleTimeoutMs: 5_000 }))

const seed = async (url: string, id: string, rows: ReadonlyArray<string>) => {
  const store = await newStore(4)
  const ref: SessionRef.PostgresRef = { _tag: "Postgres", url, id }
  await Effect.runPromise(store.exclusive(ref, (held) => held.create(rows)))
  return ref
}

// --- appends ------------------------------------------------------------------------------------

const oursAppends = async (url: string, writers: number, perWriter: number, shared: boolean) => {
  const refs = await Promise.all(
    Array.from({ length: shared ? 1 : writers }, (_, i) => seed(url, `s${writers}-${shared}-${i}`, [header(`s${i}`)]))
  )
  const stores = await Promise.all(Array.from({ length: writers }, () => newStore(2)))
  const managers = await Promise.all(stores.map((store, i) =>
    Effect.runPromise(
      SessionManager.open(SessionRef.format(refs[shared ? 0 : i]!), undefined, undefined, { eagerFlush: true }).pipe(
        Effect.provideService(TranscriptStore, store)
      )
    )
  ))
  const start = now()
  await Promise.all(managers.map((sm, w) =>
    Effect.runPromise(
      Effect.gen(function*() {
        for (let n = 0; n < perWriter; n++) yield* sm.appendCustomEntry("bench", { w, n })
      }).pipe(Effect.provideService(TranscriptStore, stores[w]!))
    )
  ))
  return now() - start
}

const bareAppends = async (url: string, writers: number, perWriter: number, shared: boolean) => {
  const setup = new pg.Client({ connectionString: url })
  await setup.connect()
  await setup.query(`CREATE TABLE IF NOT EXISTS bare_sessions (id text PRIMARY KEY, last_seq int NOT NULL)`)
  await setup.query(
    `CREATE TABLE IF NOT EXISTS bare_rows (session_id text, seq int, text text, PRIMARY KEY (session_id, seq))`
  )
  const ids = Array.from({ length: shared ? 1 : writers }, (_, i) => `b${writers}-${shared}-${i}`)
  for (const id of ids) await setup.query(`INSERT INTO bare_sessions VALUES ($1, 0)`, [id])
  await setup.end()
  const clients = await Promise.all(Array.from({ length: writers }, async () => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    return c
  }))
  const start = now()
  await Promise.all(clients.map(async (c, w) => {
    const id = ids[shared ? 0 : w]!
    for (let n = 0; n < perWriter; n++) {
      await c.query("BEGIN")
      await c.query("SET LOCAL synchronous_commit TO off")
      const seq =
        (await c.query(`SELECT last_seq FROM bare_sessions WHERE id = $1 FOR UPDATE`, [id])).rows[0].last_seq + 1
      await c.query(`INSERT INTO bare_rows VALUES ($1, $2, $3)`, [id, seq, JSON.stringify({ w, n })])
      await c.query(`UPDATE bare_sessions SET last_seq = $2 WHERE id = $1`, [id, seq])
      await c.query(`SELECT pg_notify('bare', $1)`, [`${id}:${seq}`])
      await c.query("COMMIT")
    }
  }))
  const took = now() - start
  await Promise.all(clients.map((c) => c.end()))
  return took
}

const appendsTable = async () => {
  const url = await freshDatabase(server.url, "bench")
  const rows: Array<Array<string>> = [["writers", "sessions", "appends", "branchlog", "bare node-postgres", "ratio"]]
  for (const writers of [1, 4, 16]) {
    for (const shared of [true, false]) {
      const perWriter = Math.max(20, Math.round((quick ? 200 : 800) / writers))
      const total = writers * perWriter
      const ours = await oursAppends(url, writers, perWriter, shared)
      const bare = await bareAppends(url, writers, perWriter, shared)
      rows.push([
        String(writers),
        shared ? "one" : String(writers),
        String(total),
        perSecond(total, ours),
        perSecond(total, bare),
        `${(ours / bare).toFixed(1)}×`
      ])
    }
  }
  console.log("\nappends (each its own transaction, through SessionManager / bare)")
  table(rows)
}

// --- open of a 100k-entry session ---------------------------------------------------------------

const openTable = async () => {
  const count = quick ? 20_000 : 100_000
  const texts = [header("big")]
  for (let n = 1; n <= count; n++) texts.push(entry(`e${n}`, n === 1 ? null : `e${n - 1}`, n))
  const url = await freshDatabase(server.url, "bench")
  const ref = await seed(url, "big", texts)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-pg-bench-"))
  const file = path.join(dir, "big.jsonl")
  fs.writeFileSync(file, texts.join("\n") + "\n")
  const store = await newStore(4)
  const openPg = () =>
    Effect.runPromise(
      SessionManager.open(SessionRef.format(ref), undefined, undefined, { readOnly: true, cache: false }).pipe(
        Effect.provideService(TranscriptStore, store)
      )
    )
  const openFile = () =>
    Effect.runPromise(
      SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }).pipe(
        Effect.provide(SessionStore.layerNode)
      )
    )
  const pgTimes: Array<number> = []
  const fileTimes: Array<number> = []
  await openPg()
  await openFile()
  for (let i = 0; i < 5; i++) {
    let t = now()
    await openPg()
    pgTimes.push(now() - t)
    t = now()
    await openFile()
    fileTimes.push(now() - t)
  }
  fs.rmSync(dir, { recursive: true, force: true })
  const p = percentile(pgTimes, 0.5)
  const f = percentile(fileTimes, 0.5)
  console.log(`\nread-only open of a ${count}-entry session (median of 5)`)
  table([["store", "open"], ["postgres", ms(p)], ["jsonl file", ms(f)], ["ratio", `${(p / f).toFixed(1)}×`]])
}

// --- notification latency -----------------------------------------------------------------------

const latencyTable = async () => {
  const samples = quick ? 50 : 200
  const url = await freshDatabase(server.url, "bench")
  const ref = await seed(url, "live", [header("live")])
  const writer = await newStore(2)
  const follower = await newStore(2)
  const sm = await Effect.runPromise(
    SessionManager.open(SessionRef.format(ref), undefined, undefined, { eagerFlush: true }).pipe(
      Effect.provideService(TranscriptStore, writer)
    )
  )
  const sent = new Map<string, number>()
  const received = new Map<string, number>()
  const following = Effect.runFork(
    Stream.runForEach(
      SessionFollow.follow(SessionRef.format(ref), { cwd: "/w", pollMs: 60_000 }),
      (row) =>
        Effect.sync(() => {
          if (row._tag === "Entry") received.set(row.entry.id, now())
        })
    ).pipe(Effect.provideService(TranscriptStore, follower))
  )
  await new Promise((r) => setTimeout(r, 1000))
  for (let i = 0; i < samples; i++) {
    const t = now()
    const id = await Effect.runPromise(
      sm.appendCustomEntry("bench", { i }).pipe(Effect.provideService(TranscriptStore, writer))
    )
    sent.set(id, t)
    await new Promise((r) => setTimeout(r, 20))
  }
  await new Promise((r) => setTimeout(r, 1000))
  await Effect.runPromise(Fiber.interrupt(following))
  const latencies = [...sent].flatMap(([id, at]) => received.has(id) ? [received.get(id)! - at] : [])

  // bare: pg_notify on one connection, LISTEN on another
  const listener = new pg.Client({ connectionString: url })
  const notifier = new pg.Client({ connectionString: url })
  await listener.connect()
  await notifier.connect()
  const bare: Array<number> = []
  const pending = new Map<string, number>()
  listener.on("notification", (m) => {
    const at = m.payload === undefined ? undefined : pending.get(m.payload)
    if (at !== undefined) bare.push(now() - at)
  })
  await listener.query("LISTEN bare_latency")
  for (let i = 0; i < samples; i++) {
    pending.set(String(i), now())
    await notifier.query("SELECT pg_notify('bare_latency', $1)", [String(i)])
    await new Promise((r) => setTimeout(r, 10))
  }
  await new Promise((r) => setTimeout(r, 500))
  await listener.end()
  await notifier.end()
  console.log(`\nnotification latency (${samples} appends, 20 ms apart)`)
  table([
    ["path", "received", "median", "p99"],
    [
      "append → SessionFollow in another store",
      `${latencies.length}/${samples}`,
      ms(percentile(latencies, 0.5)),
      ms(percentile(latencies, 0.99))
    ],
    ["bare pg_notify → LISTEN", `${bare.length}/${samples}`, ms(percentile(bare, 0.5)), ms(percentile(bare, 0.99))]
  ])
}

// --- resume ----------------------------------------------------------------------------------------

const resumeTable = async () => {
  const count = quick ? 20_000 : 100_000
  const text = Synthetic.toText(Synthetic.session({ entries: count, seed: 11 }))
  const texts = text.slice(0, -1).split("\n")
  const id = (JSON.parse(texts[0]!) as { id: string }).id
  const url = await freshDatabase(server.url, "bench")
  const ref = await seed(url, id, texts)
  const store = await newStore(4)
  const refText = SessionRef.format(ref)
  const full = () =>
    Effect.runPromise(
      SessionManager.open(refText, undefined, undefined, { readOnly: true, cache: false }).pipe(
        Effect.provideService(TranscriptStore, store)
      )
    )
  const resume = () =>
    Effect.runPromise(SessionManager.resume(refText).pipe(Effect.provideService(TranscriptStore, store)))
  const context = (sm: SessionManager.SessionManager) => JSON.stringify(sm.buildSessionContext())
  const want = context(await full())
  let t = now()
  const first = await resume()
  const firstMs = now() - t
  if (first.isBounded() || context(first) !== want) throw new Error("the first resume is not the full open")
  const check = await resume()
  if (!check.isBounded() || context(check) !== want) throw new Error("the resume is not bounded or not the full open")
  const pathLength = check.getBoundedState()!.entries.length
  const fullTimes: Array<number> = []
  const resumeTimes: Array<number> = []
  // not interleaved: a full open leaves garbage (100k entries) that the next call would pay for
  for (let i = 0; i < 5; i++) {
    t = now()
    await full()
    fullTimes.push(now() - t)
  }
  await resume()
  for (let i = 0; i < 15; i++) {
    t = now()
    await resume()
    resumeTimes.push(now() - t)
  }
  // 1,000 appends by another store, on the leaf: the next resume catches them up
  const other = await newStore(2)
  let leaf = check.getLeafId()
  const appended = Array.from({ length: 1000 }, (_, n) => {
    const row = entry(`b${n}`, leaf, n)
    leaf = `b${n}`
    return row
  })
  await Effect.runPromise(
    Effect.flatMap(
      other.load(ref, { cwd: "/w", readOnly: true }),
      (loaded) => other.exclusive(ref, (held) => held.append(loaded.cursor!, appended))
    )
  )
  t = now()
  const after = await resume()
  const afterMs = now() - t
  if (!after.isBounded() || context(after) !== context(await full())) throw new Error("the resume after appends")
  const f = percentile(fullTimes, 0.5)
  const r = percentile(resumeTimes, 0.5)
  console.log(
    `\nresume of a ${count}-entry session (path of ${pathLength} entries; full open: median of 5, resume: of 15)`
  )
  table([
    ["case", "time", "vs"],
    ["full open (read-only)", ms(f), ""],
    ["resume (stored summary)", ms(r), `${(f / r).toFixed(0)}× faster than the full open`],
    ["first resume (reads everything, writes the summary)", ms(firstMs), `${(firstMs / f).toFixed(2)}× the full open`],
    ["resume after 1,000 appends by another store", ms(afterMs), `${(afterMs / r).toFixed(2)}× the resume`]
  ])
}

try {
  console.log(`store-postgres benchmark (${server.embedded ? "embedded server, fsync off" : "BRANCHLOG_PG_URL"})`)
  const only = process.env.BRANCHLOG_BENCH_ONLY?.split(",").map((name) => name.trim())
  if (only === undefined || only.includes("append")) await appendsTable()
  if (only === undefined || only.includes("open")) await openTable()
  if (only === undefined || only.includes("latency")) await latencyTable()
  if (only === undefined || only.includes("resume")) await resumeTable()
} finally {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await server.dispose()
}
process.exit(0)
