/**
 * store-sqlite benchmark: figures beside their baselines, measured the same way in the same
 * process on the same machine, and whether each target is met.
 *
 * - open of 100k entries through `SessionManager.open` (read-only, no cache) from SQLite vs the
 *   same session's JSONL file through the JSONL store (target ≤ 1.5×);
 * - appends each in their own transaction (`withWriteLock` + `appendMessage`: one IMMEDIATE
 *   transaction per append) vs bare better-sqlite3 single-row IMMEDIATE transactions (target ≤ 3×);
 *   also appends that each take the hold (lease + append + release), and both with fsync;
 * - listing 10,000 sessions from the sessions table (target < 50 ms), with small and with larger
 *   sessions (independent of their sizes), beside a bare SELECT of the same rows (the floor): warm
 *   (the store's kept listing of an unchanged database), cold (a fresh store: the database opened
 *   and the stored snapshot of the listing read), cold without a snapshot (the first listing of a
 *   database: every session read, the snapshot stored), cold after one session was removed by
 *   another connection since the snapshot (caught up from the sessions' `(sid, touched)` pairs,
 *   beside those pairs read alone), the snapshot's write alone, and after 100 sessions were
 *   appended to by another connection;
 * - FTS5 search over 1M message entries (target < 100 ms), beside every match ranked by bm25;
 * - resume (`SessionManager.resume`: the bounded open through the stored summary, the active path
 *   since the last compaction) of 100k entries with branches and a compaction every 1,000 entries,
 *   beside the full open of the same session; the first resume (which reads everything and writes
 *   the summary) and a resume after 1,000 appends by another connection (caught up), each once.
 *
 * `BRANCHLOG_BENCH_ONLY=open,append,list,search,resume` runs only those cases. Run with `pnpm bench` in
 * this package. Timings on shared machines are noisy: figures, not a gate.
 */
import { Synthetic } from "@branchlog/session-core/testing"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as SessionStore from "@branchlog/store-jsonl/SessionStore"
import { ms, rate, ratio, table } from "@branchlog/tooling/bench"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Connections from "../src/internal/connections.js"
import * as SqliteStore from "../src/SqliteStore.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-bench-"))
const only = process.env.BRANCHLOG_BENCH_ONLY?.split(",").map((name) => name.trim()).filter((name) => name !== "")
const wants = (name: "open" | "append" | "list" | "search" | "resume") => only === undefined || only.includes(name)
const jsonl = ManagedRuntime.make(SessionStore.layerNode)
// `BRANCHLOG_BENCH_CANDIDATES`: the store's `searchCandidates` (default `SEARCH_CANDIDATES`)
const candidates = Number(process.env.BRANCHLOG_BENCH_CANDIDATES ?? SqliteStore.SEARCH_CANDIDATES)
const sqlite = ManagedRuntime.make(
  SqliteStore.layer({ searchCandidates: candidates }) as Layer.Layer<TranscriptStore>
)
const now = () => Number(process.hrtime.bigint()) / 1e6
const rows: Array<Array<string>> = [["case", "n", "ours", "baseline", "ours / baseline", "throughput"]]

/** A database of this store's schema at `file`, for filling it fast (the store's own write path, batched). */
const database = async (file: string) => {
  const connections = await Effect.runPromise(Connections.make({ busyTimeoutMs: 5000 }))
  const db = await Effect.runPromise(connections.writable(file))
  return { db, close: () => connections.close() }
}

/** Medians of async functions measured in interleaved runs, after one warm-up run each. */
const interleaved = async (fns: ReadonlyArray<() => Promise<unknown>>, runs: number): Promise<Array<number>> => {
  for (const fn of fns) await fn()
  const times = fns.map((): Array<number> => [])
  for (let r = 0; r < runs; r++) {
    for (const [i, fn] of fns.entries()) {
      const t = now()
      await fn()
      times[i]!.push(now() - t)
    }
  }
  return times.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!)
}

const userMessage = (i: number) =>
  ({
    role: "user",
    content: `message ${i}: ${"lorem ipsum dolor sit amet ".repeat(12)}`,
    timestamp: 1_777_000_000_000 + i
  }) as never

if (wants("open")) {
  for (const entries of [10_000, 100_000]) {
    const text = Synthetic.toText(Synthetic.session({ entries, seed: 7 }))
    const file = path.join(root, `open-${entries}.jsonl`)
    fs.writeFileSync(file, text)
    const dbFile = path.join(root, `open-${entries}.db`)
    const { close, db } = await database(dbFile)
    const texts = text.slice(0, -1).split("\n")
    const id = (JSON.parse(texts[0]!) as { id: string }).id
    db.write(id, texts, { nowMs: Date.now(), create: true })
    close()
    const ref = `sqlite:${dbFile}#${id}`
    const open = (runtime: typeof jsonl | typeof sqlite, target: string) => () =>
      runtime.runPromise(SessionManager.open(target, undefined, undefined, { readOnly: true, cache: false }))
    const runs = entries > 50_000 ? 7 : 11
    // interleaved medians
    const a: Array<number> = []
    const b: Array<number> = []
    await open(sqlite, ref)()
    await open(jsonl, file)()
    for (let r = 0; r < runs; r++) {
      let t = now()
      const sm = await open(sqlite, ref)()
      a.push(now() - t)
      if (sm.getEntries().length !== entries) throw new Error("wrong entry count")
      t = now()
      await open(jsonl, file)()
      b.push(now() - t)
    }
    const median = (xs: Array<number>) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
    rows.push([
      "open (SELECT rows + parse + fold)",
      String(entries),
      ms(median(a)),
      `${ms(median(b))} JSONL open`,
      ratio(median(a), median(b), 1.5),
      rate(entries, median(a), " entries")
    ])
  }
}

if (wants("append")) {
  const count = 5_000
  const payload = (i: number) =>
    JSON.stringify({
      type: "message",
      id: (0x10000000 + i).toString(16),
      parentId: null,
      timestamp: new Date().toISOString(),
      message: userMessage(i)
    })
  const bare = (fsync: boolean, n: number) => () => {
    const file = path.join(root, `bare-${Math.random().toString(16).slice(2)}.db`)
    const db = new Database(file)
    db.pragma("journal_mode = WAL")
    db.pragma(`synchronous = ${fsync ? "FULL" : "NORMAL"}`)
    db.exec(
      "CREATE TABLE rows (session TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (session, seq))"
    )
    const insert = db.prepare("INSERT INTO rows (session, seq, text) VALUES (?, ?, ?)")
    const one = db.transaction((seq: number) => insert.run("s", seq, payload(seq)))
    for (let i = 0; i < n; i++) one.immediate(i)
    db.close()
    return Promise.resolve()
  }
  const ours = (mode: "held" | "each", fsync: boolean, n: number) => () =>
    sqlite.runPromise(Effect.gen(function*() {
      const file = path.join(root, `ours-${Math.random().toString(16).slice(2)}.db`)
      const sm = yield* SessionManager.create("/bench", `sqlite:${file}`, {
        eagerFlush: true,
        ...(fsync ? { durability: "fsync" as const } : {})
      })
      yield* sm.appendMessage(userMessage(-1))
      if (mode === "held") {
        yield* sm.withWriteLock(Effect.gen(function*() {
          for (let i = 0; i < n; i++) yield* sm.appendMessage(userMessage(i))
        }))
      } else {
        for (let i = 0; i < n; i++) yield* sm.appendMessage(userMessage(i))
      }
    }))
  for (const [label, fsync, n] of [["", false, count], [" (fsync: synchronous=FULL)", true, 1000]] as const) {
    // interleaved runs: a change of the machine's load hits all three alike
    const [base = 0, held = 0, each = 0] = await interleaved(
      [bare(fsync, n), ours("held", fsync, n), ours("each", fsync, n)],
      7
    )
    rows.push([
      `appends, one transaction each, inside withWriteLock${label}`,
      String(n),
      ms(held),
      `${ms(base)} bare better-sqlite3`,
      ratio(held, base, fsync ? undefined : 3),
      rate(n, held, " appends")
    ])
    rows.push([
      `appends, each taking the hold (lease + append + release)${label}`,
      String(n),
      ms(each),
      `${ms(base)} bare better-sqlite3`,
      ratio(each, base),
      rate(n, each, " appends")
    ])
  }
}

if (wants("list")) {
  for (const perSession of [2, 40]) {
    const dbFile = path.join(root, `list-${perSession}.db`)
    const { close, db } = await database(dbFile)
    const sessions = 10_000
    db.handle.transaction(() => {
      for (let s = 0; s < sessions; s++) {
        const rowsOf = Synthetic.session({ entries: perSession, seed: s, branchRate: 0 })
        const id = `s${s}`
        rowsOf[0] = { ...rowsOf[0], id }
        db.write(id, rowsOf.map((r) => JSON.stringify(r)), { nowMs: Date.now(), create: true })
      }
    })()
    close()
    const location = `sqlite:${dbFile}`
    const list = () =>
      sqlite.runPromise(Effect.flatMap(TranscriptStore, (store) => store.list({ location }))).then((found) => {
        if (found.length !== sessions) throw new Error(`listed ${found.length}`)
      })
    // the floor: bare better-sqlite3 reading the same columns of the same rows in the same order
    // (arrays; sorted by SQLite: schema 4 keeps no index for the listing), no summaries built
    const bareDb = new Database(dbFile, { readonly: true })
    const bareList = bareDb.prepare(
      `SELECT id, header_id, cwd, name, parent_session, created_ms, modified_ms, last_activity_ms, message_count,
         first_message, all_text FROM sessions WHERE is_session = 1 ORDER BY listed_ms DESC, touched DESC`
    ).raw(true)
    await list() // migrates a database filled through an older schema, if any
    const [took = 0, floor = 0] = await interleaved([list, () => Promise.resolve(bareList.all())], 11)
    // a fresh store each time: opens the database (schema check, statements) and reads every session
    const coldList = () =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(SqliteStore.make(), (store) => store.list({ location })))).then(
        (found) => {
          if (found.length !== sessions) throw new Error(`listed ${found.length}`)
        }
      )
    const coldListOf = (at: string, expected: number) =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(SqliteStore.make(), (store) => store.list({ location: at }))))
        .then(
          (found) => {
            if (found.length !== expected) throw new Error(`listed ${found.length}, not ${expected}`)
          }
        )
    // with the snapshot the warm-up listing above stored (nothing changed since)
    const [cold = 0, coldFloor = 0] = await interleaved([coldList, () => Promise.resolve(bareList.all())], 11)
    // the first listing ever of the database: no snapshot (deleted before each run, not timed), so
    // every session read and the snapshot stored
    const dropper = new Database(dbFile)
    const drop = dropper.prepare("DELETE FROM listing_snapshot")
    const firstTimes: Array<number> = []
    const firstFloors: Array<number> = []
    for (let r = 0; r < 12; r++) {
      drop.run()
      let t = now()
      await coldList()
      if (r > 0) firstTimes.push(now() - t)
      t = now()
      bareList.all()
      if (r > 0) firstFloors.push(now() - t)
    }
    dropper.close()
    const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const [first, firstFloor] = [median(firstTimes), median(firstFloors)]
    // the snapshot's write alone (caught up under the write lock, encoded, one row written), on a kept connection
    const writer = await database(dbFile)
    writer.db.list()
    const listing = (writer.db as unknown as { listing: { saveSnapshot: () => boolean } }).listing
    const [write = 0] = await interleaved([() => {
      if (!listing.saveSnapshot()) throw new Error("snapshot not stored")
      return Promise.resolve()
    }], 11)
    const snapshotBytes = bareDb.prepare("SELECT length(numbers) + length(CAST(texts AS BLOB)) FROM listing_snapshot")
      .pluck().get() as number
    writer.close()
    // another connection appends a message to 100 sessions (one transaction, not timed), then a
    // listing through the kept one catches them up
    const other = await database(dbFile)
    let round = 0
    const changed: Array<number> = []
    for (let r = 0; r < 12; r++) {
      other.db.handle.transaction(() => {
        for (let k = 0; k < 100; k++) {
          const i = (round * 100 + k) * 97 % sessions
          other.db.write(`s${i}`, [
            JSON.stringify({
              type: "message",
              id: `late-${round}-${k}`,
              parentId: null,
              timestamp: new Date().toISOString(),
              message: userMessage(round * 100 + k)
            })
          ], { nowMs: Date.now() })
        }
      })()
      round++
      const t = now()
      await list()
      if (r > 0) changed.push(now() - t)
    }
    other.close()
    const afterChanges = changed.sort((a, b) => a - b)[Math.floor(changed.length / 2)]!
    // one session removed by another connection since the stored snapshot (each run: a fresh
    // snapshot stored, not timed; a cold listing from it; one session removed, not timed; a fresh
    // store's listing: the snapshot caught up from the sessions' (sid, touched) pairs, no
    // session's rows read; the floor)
    const remover = await database(dbFile)
    const dropAgain = remover.db.handle.prepare("DELETE FROM listing_snapshot")
    const removalTimes: Array<number> = []
    const beforeTimes: Array<number> = []
    const removalFloors: Array<number> = []
    let removed = 0
    for (let r = 0; r < 12; r++) {
      dropAgain.run()
      await coldListOf(location, sessions - removed)
      let t = now()
      await coldListOf(location, sessions - removed)
      if (r > 0) beforeTimes.push(now() - t)
      if (!remover.db.remove(`s${(r * 7919) % sessions}`)) throw new Error("nothing removed")
      removed++
      t = now()
      await coldListOf(location, sessions - removed)
      if (r > 0) removalTimes.push(now() - t)
      t = now()
      bareList.all()
      if (r > 0) removalFloors.push(now() - t)
    }
    remover.close()
    const [afterRemoval = 0, beforeRemoval = 0, removalFloor = 0] = [removalTimes, beforeTimes, removalFloors].map(
      median
    )
    // what that catch-up reads of every session: its pairs, through the index `sessions_touched`
    const pairs = bareDb.prepare("SELECT sid * 4294967296 + touched FROM sessions ORDER BY touched DESC").pluck()
    const [pairsRead = 0] = await interleaved([() => Promise.resolve(pairs.all())], 11)
    bareDb.close()
    const load = `load ${os.loadavg()[0]!.toFixed(1)}`
    rows.push(
      [
        `list 10,000 sessions of ${perSession} entries, warm: the store's kept listing, database unchanged (11 interleaved runs)`,
        String(sessions),
        ms(took),
        `${ms(floor)} bare better-sqlite3 SELECT of the same rows`,
        `${ratio(took, floor)}; target < 50 ms: ${took < 50 ? "met" : "MISSED"}`,
        `${rate(sessions, took, " sessions")}, ${load}`
      ],
      [
        `list 10,000 sessions of ${perSession} entries, cold: a fresh store (open, the stored snapshot read; 11 interleaved runs)`,
        String(sessions),
        ms(cold),
        `${ms(coldFloor)} bare better-sqlite3 SELECT of the same rows`,
        `${ratio(cold, coldFloor)}; target < 50 ms: ${cold < 50 ? "met" : "MISSED"}`,
        `${rate(sessions, cold, " sessions")}, ${load}`
      ],
      [
        `list 10,000 sessions of ${perSession} entries, cold, no snapshot: the first listing of the database (open, read every session, store the snapshot; median of 11)`,
        String(sessions),
        ms(first),
        `${ms(firstFloor)} bare better-sqlite3 SELECT of the same rows`,
        `${ratio(first, firstFloor)}; target < 50 ms: ${first < 50 ? "met" : "MISSED"}`,
        `${rate(sessions, first, " sessions")}, ${load}`
      ],
      [
        `list 10,000 sessions of ${perSession} entries, cold after one removal by another connection since the snapshot (open, the snapshot read and caught up; median of 11)`,
        String(sessions),
        ms(afterRemoval),
        `${ms(removalFloor)} bare better-sqlite3 SELECT of the same rows`,
        `${ratio(afterRemoval, removalFloor)} (${ratio(afterRemoval, beforeRemoval)} the cold listing before it, ${
          ms(beforeRemoval)
        }); target < 50 ms: ${afterRemoval < 50 ? "met" : "MISSED"}`,
        `${rate(sessions, afterRemoval, " sessions")}, ${load}`
      ],
      [
        "the (sid, touched) pairs of every session that catch-up reads (one double each, through `sessions_touched`; median of 11)",
        String(sessions),
        ms(pairsRead),
        `${ms(afterRemoval)} the cold listing after one removal`,
        ratio(pairsRead, afterRemoval),
        load
      ],
      [
        `the snapshot's write alone: caught up, encoded, one row of ${
          (snapshotBytes / 1e6).toFixed(2)
        } MB (median of 11)`,
        String(sessions),
        ms(write),
        `${ms(cold)} the cold listing from it`,
        ratio(write, cold),
        load
      ],
      [
        `list 10,000 sessions of ${perSession} entries after 100 of them were appended to by another connection (median of 11)`,
        String(sessions),
        ms(afterChanges),
        `${ms(floor)} bare better-sqlite3 SELECT of the same rows`,
        `${ratio(afterChanges, floor)}; target < 50 ms: ${afterChanges < 50 ? "met" : "MISSED"}`,
        `${rate(sessions, afterChanges, " sessions")}, ${load}`
      ]
    )
  }
}

if (wants("search")) {
  // messages of 12–30 words drawn from a vocabulary of 50,000 with a Zipf-like law (a word of
  // rank r about as frequent as 1/r), as natural text is: a rare word, a middling one, a phrase,
  // and the most common word of all (in most messages: the worst case for ranking)
  const vocabulary = 50_000
  const wordOf = (rank: number) => {
    let out = ""
    let n = rank + 26 * 27
    while (n > 0) {
      out = String.fromCharCode(97 + (n % 26)) + out
      n = Math.floor(n / 26)
    }
    return out
  }
  let state = 12345
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const draw = () => Math.min(vocabulary - 1, Math.floor(Math.exp(random() * Math.log(vocabulary))) - 1)
  const sentence = () => Array.from({ length: 12 + Math.floor(random() * 19) }, () => wordOf(draw())).join(" ")
  // `BRANCHLOG_BENCH_SEARCH_DB=FILE`: the database filled there once and kept (the same rows: the
  // generator is seeded), so that further runs skip the fill
  const kept = process.env.BRANCHLOG_BENCH_SEARCH_DB
  const dbFile = kept ?? path.join(root, "search.db")
  const filledBefore = kept !== undefined && fs.existsSync(kept)
  const { close, db } = await database(dbFile)
  const total = 1_000_000
  const perSession = 1000
  const started = now()
  for (let s = 0; s < (filledBefore ? 0 : total / perSession); s++) {
    const id = `s${s}`
    const texts = [
      JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T09:00:00.000Z", cwd: "/search" })
    ]
    let parent: string | null = null
    for (let i = 0; i < perSession; i++) {
      const entryId = `${s.toString(16)}-${i.toString(16)}`
      const role = i % 2 === 0 ? "user" : "assistant"
      const content = role === "user" ? sentence() : [{ type: "text", text: sentence() }]
      texts.push(JSON.stringify({
        type: "message",
        id: entryId,
        parentId: parent,
        timestamp: new Date(1_777_000_000_000 + s * perSession + i).toISOString(),
        message: { role, content, timestamp: 1_777_000_000_000 + s * perSession + i }
      }))
      parent = entryId
    }
    db.write(id, texts, { nowMs: Date.now(), create: true })
  }
  const indexed = db.handle.prepare("SELECT count(*) FROM messages_fts").pluck().get() as number
  const count = (query: string) =>
    db.handle.prepare("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?").pluck().get(query) as number
  const queries = [
    [wordOf(20_000), "rare word"],
    [wordOf(1_500), "less common word"],
    [wordOf(300), "middling word"],
    [`"${wordOf(3)} ${wordOf(4)}"`, "phrase of two common words"],
    [`${wordOf(3)} ${wordOf(4)}`, "two common words"],
    [`"${wordOf(0)} ${wordOf(1)}"`, "phrase of the two most common words"],
    [`${wordOf(0)} ${wordOf(1)}`, "the two most common words"],
    [wordOf(0), "the most common word"]
  ] as const
  const matches = queries.map(([query]) => count(query))
  // the baseline: every match ranked by bm25 (`ORDER BY rank`, what the store did before it
  // capped the candidates), bare better-sqlite3, snippets of the hits
  const fullSql =
    `SELECT session, entry_id, snippet(messages_fts, 0, '[', ']', '…', 12) AS snippet, -bm25(messages_fts) AS score
     FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20`
  // the store before: FTS5's bm25() of the 10,000 latest matches, then a snippet query per hit
  const beforeSql = `SELECT rowid, score FROM (
       SELECT rowid, bm25(messages_fts) AS score FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC
       LIMIT 10000
     ) ORDER BY score, rowid LIMIT 20`
  const hitSql = `SELECT session, entry_id, role, timestamp, snippet(messages_fts, 0, '[', ']', '…', 12) AS snippet
     FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`
  close()
  const fill = now() - started
  const location = `sqlite:${dbFile}`
  const bareDb = new Database(dbFile, { readonly: true })
  const fullStmt = bareDb.prepare(fullSql)
  const beforeStmt = bareDb.prepare(beforeSql).raw(true)
  const hitStmt = bareDb.prepare(hitSql)
  const before = (query: string) => () =>
    Promise.resolve(
      (beforeStmt.all(query) as Array<[number, number]>).map(([rowid]) => hitStmt.get(query, BigInt(rowid)))
    )
  for (const [k, [query, note]] of queries.entries()) {
    const search = () =>
      sqlite.runPromise(Effect.flatMap(TranscriptStore, (store) => store.search!({ text: query, location, limit: 20 })))
    const ranked = () => Promise.resolve(fullStmt.all(query) as Array<{ entry_id: string; score: number }>)
    const [took = 0, old = 0, baseline = 0] = await interleaved([search, before(query), ranked], 5)
    const hits = await search()
    if (hits.length === 0) throw new Error(`no hit for ${query}`)
    const exact = matches[k]! <= candidates
    if (exact) {
      // at most SEARCH_CANDIDATES matches: the same hits with the same scores as the full ranking
      const expected = (await ranked()).map((hit) => `${hit.entry_id} ${hit.score.toFixed(9)}`)
      if (JSON.stringify(hits.map((hit) => `${hit.entryId} ${hit.score.toFixed(9)}`)) !== JSON.stringify(expected)) {
        throw new Error(`${query}: not the full ranking`)
      }
    }
    rows.push([
      `search ${query} (${note}: ${matches[k]!.toLocaleString("en")} matches, top 20, ${
        exact
          ? "all ranked, same hits as the full ranking"
          : `the ${candidates.toLocaleString("en")} most recent ranked`
      }) over ${indexed.toLocaleString("en")} messages; 5 interleaved runs`,
      String(total),
      ms(took),
      `${ms(old)} before (bm25() of the 10,000 latest, bare); ${ms(baseline)} every match ranked (bare ORDER BY rank)`,
      `${ratio(took, old)} before, ${ratio(took, baseline)} full; target < 100 ms: ${took < 100 ? "met" : "MISSED"}`,
      `fill ${(fill / 1000).toFixed(0)} s, load ${os.loadavg()[0]!.toFixed(1)}`
    ])
  }
  bareDb.close()
}

if (wants("resume")) {
  const entries = 100_000
  const text = Synthetic.toText(Synthetic.session({ entries, seed: 11 }))
  const dbFile = path.join(root, "resume.db")
  const { close, db } = await database(dbFile)
  const texts = text.slice(0, -1).split("\n")
  const id = (JSON.parse(texts[0]!) as { id: string }).id
  db.write(id, texts, { nowMs: Date.now(), create: true })
  const ref = `sqlite:${dbFile}#${id}`
  const full = () => sqlite.runPromise(SessionManager.open(ref, undefined, undefined, { readOnly: true, cache: false }))
  const resume = () => sqlite.runPromise(SessionManager.resume(ref))
  const context = (sm: SessionManager.SessionManager) => JSON.stringify(sm.buildSessionContext())
  const want = context(await full())
  let t = now()
  const first = await resume()
  const firstMs = now() - t
  if (first.isBounded() || context(first) !== want) throw new Error("the first resume is not the full open")
  const check = await resume()
  if (!check.isBounded() || context(check) !== want) throw new Error("the resume is not bounded or not the full open")
  const path_ = check.getBoundedState()!.entries.length
  // not interleaved: a full open leaves garbage (100k entries) that the next call would pay for
  const [fullMs = 0] = await interleaved([full], 5)
  const [resumeMs = 0] = await interleaved([resume], 15)
  // 1,000 appends by another connection, on the leaf: the next resume catches them up
  let leaf = check.getLeafId()
  const appended = Array.from({ length: 1000 }, (_, i) => {
    const row = JSON.stringify({
      type: "message",
      id: `b${String(i).padStart(7, "0")}`,
      parentId: leaf,
      timestamp: new Date().toISOString(),
      message: userMessage(i)
    })
    leaf = `b${String(i).padStart(7, "0")}`
    return row
  })
  db.write(id, appended, { nowMs: Date.now() })
  t = now()
  const after = await resume()
  const afterMs = now() - t
  if (!after.isBounded() || context(after) !== context(await full())) throw new Error("the resume after appends")
  close()
  rows.push(
    [
      `resume (stored summary; path of ${path_} entries; median of 15) vs full open (median of 5)`,
      String(entries),
      ms(resumeMs),
      `${ms(fullMs)} full open`,
      `${(fullMs / resumeMs).toFixed(0)}× faster`,
      `load ${os.loadavg()[0]!.toFixed(1)}`
    ],
    [
      "first resume (reads everything, writes the summary) vs full open",
      String(entries),
      ms(firstMs),
      `${ms(fullMs)} full open`,
      ratio(firstMs, fullMs),
      ""
    ],
    [
      "resume after 1,000 appends by another connection (caught up) vs resume with none",
      String(entries + 1000),
      ms(afterMs),
      `${ms(resumeMs)} resume`,
      ratio(afterMs, resumeMs),
      ""
    ]
  )
}

table(rows)
await jsonl.dispose()
await sqlite.dispose()
fs.rmSync(root, { recursive: true, force: true })
