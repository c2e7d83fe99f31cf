/**
 * The listing of one open database, kept between calls: the summaries of its sessions, built once
 * and then caught up with what changed, so a listing of 10,000 unchanged sessions costs one check
 * and a copy of an array, not 10,000 rows read and 10,000 summaries built. A fresh connection
 * starts from the snapshot of the listing stored in the database (`listingSnapshot.ts`, migration
 * 5) when there is a usable one, caught up the same way, instead of reading every session.
 *
 * Sound across connections and processes because of three facts of the schema:
 * - every write of a session's listing columns sets its `touched` to `max(touched) + 1` inside
 *   its IMMEDIATE transaction (`saveSession`), so commits are in `touched` order and the sessions
 *   changed since a read are exactly those of a larger `touched`, whatever connection wrote them
 *   (a session leaving the listing, a replace whose first row is no longer a header, included);
 * - a deleted session leaves no row to find that way, and may lower `max(touched)` (so that a
 *   later write reuses a `touched` seen before, and a new session the `sid` too): the trigger
 *   `sessions_removed` (migration 4) counts every deletion in `counters`; on a count other than
 *   the one seen, the listing (the kept one, else the stored snapshot) is caught up from the
 *   `(sid, touched)` pairs of every session (`listingRemovals.ts`: the sessions gone dropped, the
 *   ones it cannot tell unchanged read as rows), or, when that cannot be decided, read from the rows;
 * - `PRAGMA data_version` changes when another connection committed, and `total_changes()` when
 *   this one wrote: both unchanged since the last read, nothing changed (no read transaction).
 *
 * The catch-up and its counters (and the stored snapshot) are read in ONE read transaction (one
 * snapshot of the database). A writable connection stores a new snapshot when it had none to
 * start from or when more than {@link refreshAfter} sessions changed since the one it has (a
 * session removed, or read as a row after removals, counted as changed: a snapshot of another
 * removal count is rewritten only then), in a short IMMEDIATE transaction of its own that first
 * catches up under the write lock (so the snapshot is the listing as of that transaction's
 * `max(touched)` and removal count), with no busy wait; busy or failing, it is skipped, never the
 * listing's failure.
 *
 * The summaries are frozen (their dates too: `ListedDate`), so a caller cannot change the cache
 * through a listing; each call returns a new array. The cache lives as long as its connection (the
 * store's scope) and holds one summary per listed session: what one listing returns.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import type { SessionSummary } from "@branchlog/session-store/TranscriptStore"
import type Database from "better-sqlite3"
import type { Entry } from "./listedSummary.js"
import * as ListedSummary from "./listedSummary.js"
import * as Removals from "./listingRemovals.js"
import * as Snapshot from "./listingSnapshot.js"

/** What a listing reads of a session, in the order of its queries' columns. */
type Row = readonly [
  sid: number,
  is_session: number | null,
  listed_ms: number | null,
  touched: number,
  id: string,
  header_id: string | null,
  cwd: string | null,
  name: string | null,
  parent_session: string | null,
  created_ms: number | null,
  modified_ms: number,
  last_activity_ms: number | null,
  message_count: number,
  first_message: string | null,
  all_text: string
]

const COLUMNS = `sid, is_session, listed_ms, touched, id, header_id, cwd, name, parent_session, created_ms,
  modified_ms, last_activity_ms, message_count, first_message, all_text`

/**
 * How many sessions may change after the stored snapshot before a listing stores a new one: 5 %
 * of the listing, at least 256. A fresh connection reads each of them as a row and merges them
 * in (about 1/20 of what reading every session costs, at most), and a snapshot is written at
 * most once per that many changed sessions.
 */
export const refreshAfter = (listed: number): number => Math.max(256, Math.ceil(listed / 20))

/** The listing summary of a row (the keys in the JSONL catalog's order, its optional fields absent). */
const summaryOf = (path: string, prefix: string, row: Row, legacy: boolean): SessionSummary => {
  const created = row[9] ?? row[10]
  return ListedSummary.make(
    path,
    prefix,
    row[4],
    row[5] ?? row[4],
    row[6] ?? "",
    row[7] ?? undefined,
    row[8] ?? undefined,
    created,
    row[11] ?? created,
    row[12],
    row[13] ?? "(no messages)",
    row[14],
    legacy
  )
}

/**
 * What the listings of this process read, only ever counted up (tests observe it): `all`, the
 * listings that read every session; `rows`, the sessions read as rows (by those and by catch-ups);
 * `afterRemovals`, the catch-ups over removals that did not read every session.
 */
export const reads = { all: 0, rows: 0, afterRemovals: 0 }

/** Whether and how a listing uses the stored snapshot (schema version 5). */
export interface Snapshots {
  /** Store new ones (a writable connection). */
  readonly write: boolean
  /** The connection's busy timeout, restored after a snapshot's write (which waits for no one). */
  readonly busyTimeoutMs: number
}

/** The listing of one database (`path`: its absolute path; `prefix`: its sessions' reference before the id). */
export class Listing {
  private readonly all: Database.Statement
  private readonly changed: Database.Statement
  private readonly version: Database.Statement
  private readonly removals: Database.Statement | undefined
  private readonly maxTouched: Database.Statement
  private readonly packed: Database.Statement | undefined
  private readonly pairs: Database.Statement | undefined
  private readonly bounds: Database.Statement | undefined
  private readonly one: Database.Statement | undefined
  private readonly stored: Database.Statement | undefined
  private readonly store: Database.Statement | undefined
  private readonly catchUp: () => void
  private readonly save: (() => void) | undefined
  private entries: Array<Entry> = []
  private summaries: ReadonlyArray<SessionSummary> = []
  private bySid = new Map<number, Entry>()
  private valid = false
  private seenVersion = -1
  private seenChanges = -1
  private seenRemovals = -1
  private seenTouched = 0
  /** The listing was read from the rows, not from a stored snapshot (none, damaged, or undecidable after removals): a new one is due. */
  private unsaved = true
  /** The sessions changed since the stored snapshot this listing started from or wrote. */
  private sinceSaved = new Set<number>()

  /**
   * `cached: false` (a schema without the removal count, read-only): every call reads every
   * session; `snapshots`: the schema has the stored snapshot (read, and written if `write`);
   * `legacyTexts`: a schema of 5 or older (read-only), whose texts were stored cut (`listedSummary.ts`).
   */
  constructor(
    private readonly handle: Database.Database,
    private readonly path: string,
    private readonly cached: boolean,
    private readonly snapshots?: Snapshots | undefined,
    private readonly legacyTexts = false
  ) {
    // in storage order, sorted here (no index kept for it: one page more in every append's commit)
    this.all = handle.prepare(`SELECT ${COLUMNS} FROM sessions WHERE is_session = 1`).raw(true)
    this.changed = handle.prepare(`SELECT ${COLUMNS} FROM sessions WHERE touched > ? ORDER BY touched`).raw(true)
    this.version = handle.prepare("SELECT (SELECT data_version FROM pragma_data_version), total_changes()").raw(
      true
    )
    this.removals = cached
      ? handle.prepare("SELECT value FROM counters WHERE name = 'removals'").pluck()
      : undefined
    this.maxTouched = handle.prepare("SELECT coalesce(max(touched), 0) FROM sessions").pluck()
    // through the index `sessions_touched` alone (it holds each row's `sid`), one double per
    // session when exact (a row of two values costs three times as much to hand over)
    this.packed = cached
      ? handle.prepare("SELECT sid * 4294967296 + touched FROM sessions ORDER BY touched DESC").pluck()
      : undefined
    this.pairs = cached
      ? handle.prepare("SELECT sid, touched FROM sessions ORDER BY touched DESC").raw(true)
      : undefined
    this.bounds = cached
      ? handle.prepare(
        `SELECT (SELECT min(sid) FROM sessions), (SELECT max(sid) FROM sessions),
           (SELECT min(touched) FROM sessions), (SELECT max(touched) FROM sessions)`
      ).raw(true)
      : undefined
    this.one = cached ? handle.prepare(`SELECT ${COLUMNS} FROM sessions WHERE sid = ?`).raw(true) : undefined
    this.catchUp = handle.transaction(() => this.read())
    const use = cached && snapshots !== undefined && Snapshot.supported
    this.stored = use
      ? handle.prepare("SELECT format, touched, removals, count, numbers, texts FROM listing_snapshot WHERE k = 1")
        .raw(true)
      : undefined
    if (use && snapshots.write) {
      this.store = handle.prepare(
        `INSERT OR REPLACE INTO listing_snapshot (k, format, touched, removals, count, numbers, texts)
         VALUES (1, ?, ?, ?, ?, ?, ?)`
      )
      const tx = handle.transaction(() => this.write())
      this.save = () => tx.immediate()
    }
  }

  /** Every session whose first row is a header, newest first (a new array; the summaries frozen and shared). */
  list(): Array<SessionSummary> {
    if (!this.cached) {
      this.rebuild()
      return this.summaries.slice()
    }
    const [version, changes] = this.version.get() as [number, number]
    if (!this.valid || version !== this.seenVersion || changes !== this.seenChanges) {
      this.catchUp()
      // read before the snapshot: a commit after it is seen by the next call
      this.seenVersion = version
      this.seenChanges = changes
    }
    if (this.save !== undefined && (this.unsaved || this.sinceSaved.size > refreshAfter(this.entries.length))) {
      this.saveSnapshot()
    }
    return this.summaries.slice()
  }

  /** Forgets the summaries (the connection closes). */
  clear(): void {
    this.valid = false
    this.entries = []
    this.summaries = []
    this.bySid = new Map()
    this.sinceSaved = new Set()
  }

  private read(): void {
    const removals = this.removals!.get() as number
    if (this.valid && removals === this.seenRemovals) {
      this.merge()
      return
    }
    // removals since the kept listing: caught up over them (the stored snapshot not decoded)
    let pairs: Removals.Pairs | undefined
    const planFor = (base: Removals.Base) => Removals.plan(base, removals, pairs ??= this.readPairs())
    const kept = this.valid
      ? planFor({ touched: this.seenTouched, removals: this.seenRemovals, bySid: this.bySid })
      : undefined
    if (kept !== undefined) {
      this.afterRemovals(kept)
      this.seenRemovals = removals
      return
    }
    // a fresh listing, or undecidable: the stored snapshot (after a removal too: another connection
    // may have stored the listing since), caught up over the removals since it if of another count
    const stored = this.fromSnapshot()
    const fromStored = stored !== undefined && stored.removals !== removals ? planFor(stored) : undefined
    this.valid = true
    this.seenRemovals = removals
    if (stored === undefined || (stored.removals !== removals && fromStored === undefined)) {
      this.rebuild()
      this.seenTouched = this.maxTouched.get() as number
      this.unsaved = true
      this.sinceSaved.clear()
      return
    }
    this.entries = stored.entries
    this.bySid = stored.bySid
    this.seenTouched = stored.touched
    this.unsaved = false
    this.sinceSaved.clear()
    if (fromStored !== undefined) this.afterRemovals(fromStored)
    else if (!this.merge()) this.summaries = stored.entries.map((entry) => entry.summary)
  }

  /** The stored snapshot, when there is one that decodes (of any removal count). */
  private fromSnapshot(): Snapshot.Decoded | undefined {
    if (this.stored === undefined) return undefined
    return Snapshot.decode(this.stored.get() as Snapshot.Stored | undefined, this.path, this.prefix())
  }

  /** The `(sid, touched)` pairs of every session, by `touched` descending. */
  private readPairs(): Removals.Pairs {
    const [minSid, maxSid, minTouched, maxTouched] = this.bounds!.get() as [number | null, number, number, number]
    if (
      minSid === null ||
      (minSid > 0 && maxSid < Removals.PACKED_SID && minTouched >= 0 && maxTouched < Removals.PACKED_TOUCHED)
    ) {
      return Removals.unpack(this.packed!.all() as Array<number>)
    }
    const rows = this.pairs!.all() as Array<[number, number]>
    return { sids: rows.map((row) => row[0]), touched: rows.map((row) => row[1]) }
  }

  /** Applies a plan to the listing held: its sessions gone dropped, the ones to read read and merged in. */
  private afterRemovals(plan: Removals.Plan): void {
    reads.afterRemovals++
    const rows: Array<Row> = []
    for (const sid of plan.read) {
      // in the same read transaction as the pairs: there
      const row = this.one!.get(sid) as Row | undefined
      if (row !== undefined) rows.push(row)
    }
    if (!this.apply(rows, plan.gone)) this.summaries = this.entries.map((entry) => entry.summary)
    // below the listing's when removals lowered it: the next write's `touched` is above this one
    this.seenTouched = plan.touched
  }

  /** Merges in the sessions of a `touched` above the last one seen; `false` when there were none. */
  private merge(): boolean {
    return this.apply(this.changed.all(this.seenTouched) as Array<Row>, [])
  }

  /**
   * Drops the sessions `removed` and merges in `rows` (by `touched`: each one's session replaced,
   * or left out when not listed); `false` when there was nothing to do.
   */
  private apply(rows: ReadonlyArray<Row>, removed: ReadonlyArray<number>): boolean {
    if (rows.length === 0 && removed.length === 0) return false
    reads.rows += rows.length
    const prefix = this.prefix()
    const fresh: Array<Entry> = []
    const gone = new Set<number>()
    for (const sid of removed) {
      if (this.bySid.delete(sid)) gone.add(sid)
      this.sinceSaved.add(sid)
    }
    for (const row of rows) {
      const sid = row[0]
      if (this.bySid.delete(sid)) gone.add(sid)
      if (row[3] > this.seenTouched) this.seenTouched = row[3]
      this.sinceSaved.add(sid)
      if (row[1] !== 1) continue
      const entry = this.entryOf(prefix, row)
      this.bySid.set(sid, entry)
      fresh.push(entry)
    }
    fresh.sort(ListedSummary.newestFirst)
    // the entries kept, in order, merged with the changed ones
    const merged: Array<Entry> = []
    let i = 0
    for (const entry of this.entries) {
      if (gone.has(entry.sid)) continue
      while (i < fresh.length && ListedSummary.newestFirst(fresh[i]!, entry) < 0) merged.push(fresh[i++]!)
      merged.push(entry)
    }
    while (i < fresh.length) merged.push(fresh[i++]!)
    this.entries = merged
    this.summaries = merged.map((entry) => entry.summary)
    return true
  }

  /**
   * Stores the listing as caught up now (what a listing does when due); `false`: skipped (busy,
   * failing, or a connection that stores none), never an error.
   */
  saveSnapshot(): boolean {
    if (this.save === undefined) return false
    const timeout = this.snapshots!.busyTimeoutMs
    try {
      // no wait for another writer: the next listing tries again
      this.handle.pragma("busy_timeout = 0")
      this.save()
      return true
    } catch {
      // a snapshot is never needed: skipped until the listing is due again
      this.unsaved = false
      this.sinceSaved.clear()
      return false
    } finally {
      this.handle.pragma(`busy_timeout = ${timeout}`)
    }
  }

  /** Inside the IMMEDIATE transaction: caught up under the write lock, then stored as of it. */
  private write(): void {
    // nothing commits while this transaction holds the write lock: this is the newest picture
    // there can be, whatever another connection stored before
    this.read()
    const { numbers, texts } = Snapshot.encode(this.entries)
    this.store!.run(Snapshot.FORMAT, this.seenTouched, this.seenRemovals, this.entries.length, numbers, texts)
    this.unsaved = false
    this.sinceSaved.clear()
  }

  private rebuild(): void {
    const prefix = this.prefix()
    const rows = this.all.all() as Array<Row>
    reads.all++
    reads.rows += rows.length
    const entries: Array<Entry> = new Array(rows.length)
    const bySid = new Map<number, Entry>()
    for (let i = 0; i < rows.length; i++) {
      const entry = this.entryOf(prefix, rows[i]!)
      entries[i] = entry
      bySid.set(entry.sid, entry)
    }
    entries.sort(ListedSummary.newestFirst)
    this.entries = entries
    this.summaries = entries.map((entry) => entry.summary)
    this.bySid = bySid
  }

  private entryOf(prefix: string, row: Row): Entry {
    return {
      sid: row[0],
      listed: row[2] ?? -Infinity,
      touched: row[3],
      summary: summaryOf(this.path, prefix, row, this.legacyTexts)
    }
  }

  private prefix(): string {
    // `SessionRef.format` of each session's reference: the database's part once
    return `sqlite:${this.path}#`
  }
}
