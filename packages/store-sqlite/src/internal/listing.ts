/**
 * The listing of one open database, kept between calls: the summaries of its sessions, built once
 * and then caught up with what changed, so a listing of 10,000 unchanged sessions costs one check
 * and a copy of an array, not 10,000 rows read and 10,000 summaries built.
 *
 * Sound across connections and processes because of three facts of the schema:
 * - every write of a session's listing columns sets its `touched` to `max(touched) + 1` inside
 *   its IMMEDIATE transaction (`saveSession`), so commits are in `touched` order and the sessions
 *   changed since a read are exactly those of a larger `touched`, whatever connection wrote them
 *   (a session leaving the listing, a replace whose first row is no longer a header, included);
 * - a deleted session leaves no row to find that way, and may lower `max(touched)` (so that a
 *   later write reuses a `touched` seen before): the trigger `sessions_removed` (migration 4)
 *   counts every deletion in `counters`; a count other than the one seen rebuilds the listing;
 * - `PRAGMA data_version` changes when another connection committed, and `total_changes()` when
 *   this one wrote: both unchanged since the last read, nothing changed (no read transaction).
 *
 * The catch-up and its counters are read in ONE read transaction (one snapshot). The summaries are
 * frozen (their dates too: {@link ListedDate}), so a caller cannot change the cache through a
 * listing; each call returns a new array. The cache lives as long as its connection (the store's
 * scope) and holds one summary per listed session: what one listing returns.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import type { SessionSummary } from "@branchlog/session-store/TranscriptStore"
import type Database from "better-sqlite3"

/** A `Date` whose setters throw: the dates of cached summaries, shared by every listing. */
export class ListedDate extends Date {}
for (const name of Object.getOwnPropertyNames(Date.prototype)) {
  if (!name.startsWith("set")) continue
  Object.defineProperty(ListedDate.prototype, name, {
    value: function() {
      throw new TypeError(`a listed session's date is read-only (Date.prototype.${name})`)
    }
  })
}

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

interface Entry {
  readonly sid: number
  readonly listed: number
  readonly touched: number
  readonly summary: SessionSummary
}

/** The listing's order: newest first (`listed_ms DESC`, a missing one last), then last written. */
const newestFirst = (a: Entry, b: Entry) => b.listed - a.listed || b.touched - a.touched

/** The listing summary of a row (the keys in the JSONL catalog's order, its optional fields absent). */
const summaryOf = (path: string, prefix: string, row: Row): SessionSummary => {
  const created = row[9] ?? row[10]
  // no spreads: 10,000 sessions are one listing
  const summary: { -readonly [K in keyof SessionSummary]?: SessionSummary[K] } = {
    ref: Object.freeze({ _tag: "Sqlite", path, id: row[4] }),
    path: prefix + encodeURIComponent(row[4]),
    id: row[5] ?? row[4],
    cwd: row[6] ?? ""
  }
  if (row[7] !== null) summary.name = row[7]
  if (row[8] !== null) summary.parentSessionPath = row[8]
  summary.created = new ListedDate(created)
  summary.modified = new ListedDate(row[11] ?? created)
  summary.messageCount = row[12]
  summary.firstMessage = row[13] ?? "(no messages)"
  summary.allMessagesText = row[14]
  return Object.freeze(summary) as SessionSummary
}

/** The listing of one database (`path`: its absolute path; `prefix`: its sessions' reference before the id). */
export class Listing {
  private readonly all: Database.Statement
  private readonly changed: Database.Statement
  private readonly version: Database.Statement
  private readonly removals: Database.Statement | undefined
  private readonly maxTouched: Database.Statement
  private readonly catchUp: () => void
  private entries: Array<Entry> = []
  private summaries: ReadonlyArray<SessionSummary> = []
  private bySid = new Map<number, Entry>()
  private valid = false
  private seenVersion = -1
  private seenChanges = -1
  private seenRemovals = -1
  private seenTouched = 0

  /** `cached: false` (a schema without the removal count, read-only): every call reads every session. */
  constructor(handle: Database.Database, private readonly path: string, private readonly cached: boolean) {
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
    this.catchUp = handle.transaction(() => this.read())
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
    return this.summaries.slice()
  }

  /** Forgets the summaries (the connection closes). */
  clear(): void {
    this.valid = false
    this.entries = []
    this.summaries = []
    this.bySid = new Map()
  }

  private read(): void {
    const removals = this.removals!.get() as number
    if (!this.valid || removals !== this.seenRemovals) {
      this.rebuild()
      this.seenRemovals = removals
      this.seenTouched = this.maxTouched.get() as number
      this.valid = true
      return
    }
    const rows = this.changed.all(this.seenTouched) as Array<Row>
    if (rows.length === 0) return
    const prefix = this.prefix()
    const fresh: Array<Entry> = []
    const gone = new Set<number>()
    for (const row of rows) {
      const sid = row[0]
      if (this.bySid.delete(sid)) gone.add(sid)
      this.seenTouched = row[3]
      if (row[1] !== 1) continue
      const entry = this.entryOf(prefix, row)
      this.bySid.set(sid, entry)
      fresh.push(entry)
    }
    fresh.sort(newestFirst)
    // the entries kept, in order, merged with the changed ones
    const merged: Array<Entry> = []
    let i = 0
    for (const entry of this.entries) {
      if (gone.has(entry.sid)) continue
      while (i < fresh.length && newestFirst(fresh[i]!, entry) < 0) merged.push(fresh[i++]!)
      merged.push(entry)
    }
    while (i < fresh.length) merged.push(fresh[i++]!)
    this.entries = merged
    this.summaries = merged.map((entry) => entry.summary)
  }

  private rebuild(): void {
    const prefix = this.prefix()
    const rows = this.all.all() as Array<Row>
    const entries: Array<Entry> = new Array(rows.length)
    const bySid = new Map<number, Entry>()
    for (let i = 0; i < rows.length; i++) {
      const entry = this.entryOf(prefix, rows[i]!)
      entries[i] = entry
      bySid.set(entry.sid, entry)
    }
    entries.sort(newestFirst)
    this.entries = entries
    this.summaries = entries.map((entry) => entry.summary)
    this.bySid = bySid
  }

  private entryOf(prefix: string, row: Row): Entry {
    return { sid: row[0], listed: row[2] ?? -Infinity, touched: row[3], summary: summaryOf(this.path, prefix, row) }
  }

  private prefix(): string {
    // `SessionRef.format` of each session's reference: the database's part once
    return `sqlite:${this.path}#`
  }
}
