/**
 * One open database: a connection of the current engine (`SqliteEngine`: node:sqlite or better-sqlite3) with its prepared statements
 * (`statements.ts`), and the synchronous operations the store is made of. Every write is ONE `BEGIN IMMEDIATE` transaction
 * (the write lock is taken before the first read, so a read-then-write never fails with
 * `SQLITE_BUSY_SNAPSHOT`), run inside one synchronous call: no transaction stays open across an
 * asynchronous boundary, so fibers of one process never wait on each other's transactions.
 * The `rows` table keeps each row's text as stored (opaque, corrupt and blank rows, CRLF, a BOM),
 * the `sessions` table its summary, kept current by each write.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import { Line } from "@branchlog/session-core"
import type { RowsPage } from "@branchlog/session-store/StoreRows"
import type { SessionSummary } from "@branchlog/session-store/TranscriptStore"
import type Database from "better-sqlite3"
import * as SqliteEngine from "../SqliteEngine.js"
import { prepareActive } from "./activeStatements.js"
import { Listing } from "./listing.js"
import * as Schema from "./schema.js"
import * as Search from "./search.js"
import type { Holder, SearchRow, SessionRow, Snapshot, WriteResult } from "./statements.js"
import { BULK_ROWS, MMAP_BYTES, prepare } from "./statements.js"
import * as Summary from "./summary.js"

/** Rows read at once by the catch-up of the text index. */
const INDEX_PAGE = 2_000
/** The rows the statements give (declared with them). */
export type { Holder, SearchRow, SessionRow, Snapshot, WriteResult }

/** The options of {@link Db.write}. */
export interface WriteOptions {
  readonly expect?: { readonly generation: number; readonly seq: number } | undefined
  readonly create?: boolean | undefined
  readonly torn?: boolean | undefined
  readonly nowMs: number
  readonly fsync?: boolean | undefined
  /** Index the rows' message text in the same transaction (default `true`; `false`: left to {@link Db.catchUp}). */
  readonly index?: boolean | undefined
}

/** An open database and its statements. */
export class Db {
  readonly handle: Database.Database
  private st!: ReturnType<typeof prepare>
  private listing!: Listing

  constructor(readonly path: string, readonly readOnly: boolean, private readonly busyTimeoutMs: number) {
    this.handle = SqliteEngine.open(path, {
      readonly: readOnly,
      fileMustExist: readOnly,
      timeout: busyTimeoutMs
    }) as Database.Database
    // reads through a memory map: a search's lookups of rows spread over the file copy no pages
    this.handle.pragma(`mmap_size = ${MMAP_BYTES}`)
  }

  /** WAL and `synchronous=NORMAL` (a writable connection, once its schema version was checked). */
  configure(): this {
    this.handle.pragma("journal_mode = WAL")
    this.handle.pragma("synchronous = NORMAL")
    return this
  }

  /** Prepares the statements (once the schema exists). */
  ready(): this {
    const columns = this.handle.prepare("SELECT name FROM pragma_table_info('sessions')").pluck().all()
    this.st = prepare(this.handle, columns.includes("pending"))
    if (columns.includes("active")) this.active = prepareActive(this.handle)
    // the removal count (schema 4) makes the listing a cache (without it, read-only, every listing
    // reads every session); the stored snapshot (schema 5) its start, written by a writable connection
    const has = (t: string) => this.handle.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(t) !== undefined
    const snapshots = has("listing_snapshot") ? { write: !this.readOnly, busyTimeoutMs: this.busyTimeoutMs } : undefined
    const legacyTexts = Schema.versionOf(this.handle) < Schema.WHOLE_TEXTS
    this.listing = new Listing(this.handle, this.path, has("counters"), snapshots, legacyTexts)
    return this
  }

  /** The statements of the bounded open's summary (schema version 3 on); `undefined` on an older schema read-only. */
  active: ReturnType<typeof prepareActive> | undefined = undefined

  /** The text of row `seq` of session number `sid`, if stored. */
  rowText(sid: number, seq: number): string | undefined {
    return this.st.rowText.get(sid, seq) as string | undefined
  }

  /** Closes the connection. */
  close(): void {
    this.listing?.clear()
    if (this.handle.open) this.handle.close()
  }

  /** The session's row, if any. */
  session(id: string): SessionRow | undefined {
    return this.st.session.get(id) as SessionRow | undefined
  }

  /** The texts of the rows of session `id` after sequence `after`, in order. */
  textsAfter(id: string, after: number): Array<string> {
    const session = this.session(id)
    return session === undefined ? [] : this.rowsAfter(session.sid, after)
  }

  /** The texts of the rows of session number `sid` after sequence `after`, in order. */
  rowsAfter(sid: number, after: number): Array<string> {
    return this.st.textsAfter.all(sid, after, sid) as Array<string>
  }

  /** A page of the rows of session `id` after sequence `after` (at most `limit`), with its head, in one read transaction. */
  rowsPage(id: string, after: number, limit: number): RowsPage | undefined {
    return this.handle.transaction(() => {
      const session = this.session(id)
      if (session === undefined) return undefined
      const texts = this.st.textsAfterPage.all(session.sid, after, session.sid, limit) as Array<string>
      return { generation: session.generation, texts, last: session.seq, torn: session.torn === 1 }
    })()
  }

  /** The session and all its rows in one read transaction (no write lock). */
  snapshot(id: string): Snapshot | undefined {
    return this.handle.transaction(() => {
      const session = this.session(id)
      return session === undefined ? undefined : { session, texts: this.rowsAfter(session.sid, 0) }
    })()
  }

  /**
   * Appends rows in one IMMEDIATE transaction: `expect` (generation and row count) must match the
   * stored session (`create`: the session must have no rows). `torn`: the last row has no newline.
   */
  write(id: string, texts: ReadonlyArray<string>, options: WriteOptions): WriteResult {
    // the transaction function made once (better-sqlite3 builds five functions per `transaction`)
    const tx = this.writeTx ??= this.handle.transaction(
      (id: string, texts: ReadonlyArray<string>, options: WriteOptions) => this.writeIn(id, texts, options)
    )
    if (options.fsync !== true) return this.bulk(texts.length, () => tx.immediate(id, texts, options))
    this.handle.pragma("synchronous = FULL")
    try {
      return this.bulk(texts.length, () => tx.immediate(id, texts, options))
    } finally {
      this.handle.pragma("synchronous = NORMAL")
    }
  }

  private writeTx:
    | Database.Transaction<(id: string, texts: ReadonlyArray<string>, o: WriteOptions) => WriteResult>
    | undefined

  private writeIn(id: string, texts: ReadonlyArray<string>, options: WriteOptions): WriteResult {
    const current = this.session(id)
    if (options.create === true) {
      if (current !== undefined && current.seq > 0) return { _tag: "Conflict", rows: current.seq }
    } else if (options.expect !== undefined) {
      if (current === undefined) return { _tag: "Stale", change: "Missing" }
      if (current.generation !== options.expect.generation || current.seq < options.expect.seq) {
        return { _tag: "Stale", change: "Replaced" }
      }
      if (current.seq !== options.expect.seq) return { _tag: "Stale", change: "Appended" }
    }
    // the row read is this write's to change: it continues the summary (no copy)
    const summary: Summary.Summary = current === undefined || current.seq === 0 ? Summary.empty() : current
    const generation = current?.generation ?? 1
    const from = current?.seq ?? 0
    const sid = current?.sid ?? this.newSession(id, options.nowMs)
    const indexed = current?.indexed ?? 0
    const inline = options.index !== false && indexed === from
    const seq = this.insertRows(sid, id, from, texts, summary, inline)
    this.saveSession(sid, generation, seq, options.torn === true && texts.length > 0, summary, options.nowMs)
    if (inline) this.st.setIndexed.run(seq, sid)
    // rows left for `catchUp` (or the hold's release): flagged by the first write that leaves some
    else if (seq > indexed && current?.pending !== 1) this.st.setPending.run(sid)
    return { _tag: "Written", generation, from, seq }
  }

  /**
   * Replaces every row in one IMMEDIATE transaction and bumps the generation; the old rows are kept
   * in `backups` under a name (returned) when `backup` is given and there were rows.
   */
  replace(
    id: string,
    texts: ReadonlyArray<string>,
    options: {
      readonly backup?: { readonly label: string; readonly name: (generation: number) => string } | undefined
      readonly nowMs: number
      readonly torn?: boolean | undefined
    }
  ): { readonly generation: number; readonly backup: string | undefined } {
    return this.bulk(texts.length, () => this.replaceIn(id, texts, options))
  }

  private replaceIn(
    id: string,
    texts: ReadonlyArray<string>,
    options: Parameters<Db["replace"]>[2]
  ): { readonly generation: number; readonly backup: string | undefined } {
    return this.handle.transaction(() => {
      const current = this.session(id)
      let backup: string | undefined
      if (current !== undefined && current.seq > 0 && options.backup !== undefined) {
        backup = options.backup.name(current.generation)
        const old = this.rowsAfter(current.sid, 0)
        this.st.insertBackup.run(
          backup,
          id,
          options.backup.label,
          current.generation,
          options.nowMs,
          current.torn,
          JSON.stringify(old)
        )
      }
      if (current !== undefined) this.deleteRows(current.sid)
      const generation = (current?.generation ?? 0) + 1
      const summary = Summary.empty()
      const sid = current?.sid ?? this.newSession(id, options.nowMs)
      const seq = this.insertRows(sid, id, 0, texts, summary, true)
      this.saveSession(sid, generation, seq, options.torn === true && texts.length > 0, summary, options.nowMs)
      this.st.setIndexed.run(seq, sid)
      return { generation, backup }
    }).immediate()
  }

  /** Removes a session's rows and its summary (backups stay); `false` when there was none. */
  remove(id: string): boolean {
    return this.handle.transaction(() => {
      const current = this.session(id)
      if (current === undefined) return false
      this.deleteRows(current.sid)
      this.st.deleteSession.run(current.sid)
      return true
    }).immediate()
  }

  /**
   * Every session whose first row is a header, newest first (by last activity, else creation, else
   * write): a new array of frozen summaries, kept between calls and caught up (`listing.ts`).
   */
  list(): Array<SessionSummary> {
    return this.listing.list()
  }

  /** The session written last (whose first row is a header). */
  mostRecent(): string | undefined {
    return this.st.mostRecent.pluck().get() as string | undefined
  }

  /** The backups of a session, oldest first: their rows and torn flags. */
  backups(id: string): Array<{ readonly name: string; readonly rows: Array<string>; readonly torn: boolean }> {
    return (this.st.backups.all(id) as Array<{ name: string; rows: string; torn: number }>).map((b) => ({
      name: b.name,
      rows: JSON.parse(b.rows) as Array<string>,
      torn: b.torn === 1
    }))
  }

  /**
   * Full-text search (FTS5 syntax), best first by bm25, ties by storage order. Only the
   * `candidates` matches last in storage order (sessions in the order they were first written,
   * each session's rows in order: the most recent `candidates` of an append-only use) are ranked.
   * Words, phrases and prefixes joined by spaces or `AND` are ranked by `Search.top` (bm25's
   * formula, each phrase's document frequency from at most `candidates` of its matches), unless
   * each is a word in fewer than `BM25_WORDS × candidates` messages; those and any other query by
   * FTS5's `bm25()` (exact global statistics, at the cost of reading every match of each phrase).
   * Snippets only for the hits.
   */
  search(query: string, limit: number, candidates: number): Array<SearchRow> {
    const phrases = Search.parse(query)
    if (phrases === undefined || Search.cheapForBm25(this.reader, phrases, candidates)) {
      const top = this.st.searchTop.all(query, candidates, limit) as Array<[rowid: number, score: number]>
      return top.map(([rowid, score]) => ({ ...this.hit(query, rowid), score: -score }))
    }
    return Search.top(this.reader, phrases, query, limit, candidates).map(([rowid, score, text]) => {
      const snippet = Search.snippet(text, phrases)
      if (snippet === undefined) return { ...this.hit(query, rowid), score: -score }
      const [session, entry_id, role, timestamp] = this.st.searchRow.get(rowid) as [
        string,
        string,
        string,
        string | null
      ]
      return { session, entry_id, role, timestamp, snippet, score: -score }
    })
  }

  private hit(query: string, rowid: number): Omit<SearchRow, "score"> {
    // a bigint: FTS5 ignores `rowid = ?` bound to a JS number (a REAL) and returns the first match
    return this.st.searchHit.get(query, BigInt(rowid)) as Omit<SearchRow, "score">
  }

  /** What `Search.top` reads of this database. */
  get reader(): Search.Reader {
    const st = this.st
    return {
      averages: () => st.averages.get() as Uint8Array | undefined,
      candidates: (query, limit) => st.searchCandidates.all(query, limit) as Array<[number, string]>,
      count: (query, limit) => st.searchCount.get(query, limit) as [number, number | null],
      share: (rowid) => {
        const sid = Math.floor(rowid / 2 ** 32)
        const [newer, all] = st.searchShare.get(sid, rowid - sid * 2 ** 32, sid) as [number, number | null]
        return all === null || all === 0 ? 0 : newer / all
      }
    }
  }

  /**
   * Takes the hold of a session for `token` when it is free or `isStale(holder)`; else returns
   * the holder. One IMMEDIATE transaction.
   */
  acquire(
    id: string,
    me: Holder,
    isStale: (holder: Holder) => boolean
  ): Holder | undefined {
    return this.handle.transaction(() => {
      const holder = this.st.holder.get(id) as Holder | undefined
      if (holder !== undefined && holder.token !== me.token && !isStale(holder)) return holder
      this.st.hold.run(id, me.token, me.pid, me.host, me.acquired_ms)
      return undefined
    }).immediate()
  }

  /**
   * Gives the hold back (only if `token` still has it), indexing the rows written meanwhile: a page
   * of rows per transaction while more than a page is left (a session copied in batches leaves
   * every row: one transaction for them all grew the WAL by the whole session), the rest in the
   * transaction that gives the hold back.
   */
  release(id: string, token: string): void {
    const behind = this.session(id)
    const left = behind === undefined ? 0 : behind.seq - behind.indexed
    this.bulk(left, () => {
      // each page its own transaction (a hold of a few appends: none, only the one below)
      if (left > INDEX_PAGE) {
        while (this.indexPage(id)) {
          // the next page
        }
      }
      this.handle.transaction(() => {
        const session = this.session(id)
        if (session !== undefined && session.indexed < session.seq) this.index(session)
        this.st.release.run(id, token)
      }).immediate()
    })
  }

  /** Indexes one page of the rows of `id` not indexed yet, in one transaction; `true` while more than a page was left. */
  private indexPage(id: string): boolean {
    return this.handle.transaction(() => {
      const session = this.session(id)
      if (session === undefined || session.seq - session.indexed <= INDEX_PAGE) return false
      this.index(session, 1)
      return true
    }).immediate()
  }

  /**
   * Runs `f`, which reads or writes about `rows` rows, with the memory map off when they are many
   * (`BULK_ROWS`): pages touched through the map count in the process's resident memory, and a bulk
   * write touches the whole database (a copy of 400k rows reached 440 MB, 190 MB without the map).
   * Searches and small writes keep the map.
   */
  private bulk<A>(rows: number, f: () => A): A {
    if (rows < BULK_ROWS) return f()
    this.handle.pragma("mmap_size = 0")
    try {
      return f()
    } finally {
      this.handle.pragma(`mmap_size = ${MMAP_BYTES}`)
    }
  }

  /** Gives the hold back without indexing (when {@link release} failed). */
  releaseOnly(id: string, token: string): void {
    this.st.release.run(id, token)
  }

  /** Indexes the message text of every row not indexed yet (what a search does first); the sessions caught up. */
  catchUp(): number {
    const behind = this.st.unindexed.all() as Array<SessionRow>
    const rows = behind.reduce((sum, session) => sum + session.seq - session.indexed, 0)
    return this.bulk(rows, () =>
      this.handle.transaction(() => {
        const behind = this.st.unindexed.all() as Array<SessionRow>
        for (const session of behind) this.index(session)
        return behind.length
      }).immediate())
  }

  /** Indexes the rows of `session` not indexed yet, a page of rows at a time, at most `pages` pages. */
  private index(session: SessionRow, pages = Infinity): void {
    let seq = session.indexed
    // a page of rows at a time: a session copied in batches may have every row left to index
    for (let page = 0; page < pages; page++) {
      const texts = this.st.textsAfterPage.all(session.sid, seq, session.sid, INDEX_PAGE) as Array<string>
      for (const text of texts) {
        seq += 1
        const line = Line.parse(text, seq, seq - 1)
        const found = Summary.searchable(line)
        if (found !== undefined) {
          const [rowId, , , timestamp] = Summary.columnsOf(line)
          this.st.insertFts.run(session.sid, seq, found.text, session.id, rowId, found.role, timestamp)
        }
      }
      if (texts.length < INDEX_PAGE) break
    }
    this.st.setIndexed.run(seq, session.sid)
  }

  /** Who holds a session now. */
  holder(id: string): Holder | undefined {
    return this.st.holder.get(id) as Holder | undefined
  }

  private newSession(id: string, nowMs: number): number {
    return Number(this.st.newSession.run(id, nowMs).lastInsertRowid)
  }

  private insertRows(
    sid: number,
    id: string,
    from: number,
    texts: ReadonlyArray<string>,
    summary: Summary.Summary,
    index: boolean
  ): number {
    let seq = from
    for (const text of texts) {
      seq += 1
      const line = Line.parse(text, seq, seq - 1)
      const [rowId, parentId, type, timestamp] = Summary.columnsOf(line)
      this.st.insertRow.run(sid, seq, sid, seq, rowId, parentId, type, timestamp, text)
      if (index) {
        const found = Summary.searchable(line)
        if (found !== undefined) this.st.insertFts.run(sid, seq, found.text, id, rowId, found.role, timestamp)
      }
      Summary.push(summary, line)
    }
    return seq
  }

  private deleteRows(sid: number): void {
    this.st.deleteFts.run(sid, sid)
    this.st.deleteRows.run(sid, sid)
  }

  private saveSession(
    sid: number,
    generation: number,
    seq: number,
    torn: boolean,
    summary: Summary.Summary,
    nowMs: number
  ): void {
    // the columns of `SUMMARY_COLUMNS` in their order, spelled out (no array of values per write)
    this.st.saveSession.run(
      generation,
      seq,
      torn ? 1 : 0,
      nowMs,
      summary.is_session,
      summary.header_id,
      summary.cwd,
      summary.name,
      summary.parent_session,
      summary.created,
      summary.created_ms,
      summary.message_count,
      summary.first_message,
      summary.last_activity_ms,
      summary.all_text,
      summary.leaf,
      summary.tail_id,
      summary.last_activity_ms ?? summary.created_ms ?? nowMs,
      sid
    )
  }
}
