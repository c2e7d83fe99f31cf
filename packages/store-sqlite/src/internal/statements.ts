/**
 * The prepared statements of the store's own tables (`rows`, `sessions`, `backups`, `holds`,
 * the FTS5 index `messages_fts`), with the row key they address rows by.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import type Database from "better-sqlite3"
import type * as Summary from "./summary.js"

/** A row of the `sessions` table. */
export interface SessionRow extends Summary.Summary {
  /** The session's number: its rows' keys are `sid << 32 | seq`. */
  readonly sid: number
  readonly id: string
  readonly generation: number
  /** The number of rows (the last row's sequence number). */
  readonly seq: number
  /** The rows whose message text is in the FTS index (by sequence: the first `indexed`). */
  readonly indexed: number
  /** `1` when the last row ended without a newline (a torn line copied as it was). */
  readonly torn: number
  readonly modified_ms: number
  readonly touched: number
  /** `1`: some rows may not be in the FTS index yet (set by the first such write; schema version 4). */
  readonly pending: number | null
}

/** A session's rows as one read saw them. */
export interface Snapshot {
  readonly session: SessionRow
  readonly texts: Array<string>
}

/** The outcome of a write of rows. */
export type WriteResult =
  | { readonly _tag: "Written"; readonly generation: number; readonly from: number; readonly seq: number }
  | { readonly _tag: "Stale"; readonly change: "Appended" | "Replaced" | "Missing" }
  | { readonly _tag: "Conflict"; readonly rows: number }

/** Who holds a session, as the `holds` table says. */
export interface Holder {
  readonly token: string
  readonly pid: number
  readonly host: string
  readonly acquired_ms: number
}

/** One search hit, as the index has it. */
export interface SearchRow {
  readonly session: string
  readonly entry_id: string
  readonly role: string
  readonly timestamp: string | null
  readonly snippet: string
  readonly score: number
}

/** The summary columns of `sessions` a write sets (not the bounded open's: a write never reads it). */
export const SUMMARY_COLUMNS = [
  "is_session",
  "header_id",
  "cwd",
  "name",
  "parent_session",
  "created",
  "created_ms",
  "message_count",
  "first_message",
  "last_activity_ms",
  "all_text",
  "leaf",
  "tail_id"
] as const

/** How much of a database file is read through a memory map. */
export const MMAP_BYTES = 1024 * 1024 * 1024

/** Rows from which a write or an indexing runs without the memory map (see `Db.bulk`). */
export const BULK_ROWS = 1_000

/** A row's key: the session's number in the high 32 bits, its sequence number in the low ones. */
const KEY = (sid: string, seq: string) => `((${sid} << 32) + ${seq})`

/** The columns of a {@link SessionRow} (not the bounded open's summary: a write never reads it). */
const SESSION_COLUMNS = `sid, id, generation, seq, indexed, torn, modified_ms, touched, ${SUMMARY_COLUMNS.join(", ")}`

/**
 * Prepares the statements (once the schema exists). `pending`: the schema has the column
 * `pending` (version 4; an older one is only ever read, and read-only: never indexed).
 */
export const prepare = (db: Database.Database, pending: boolean) => ({
  session: db.prepare(
    `SELECT ${SESSION_COLUMNS}, ${pending ? "pending" : "NULL AS pending"} FROM sessions WHERE id = ?`
  ),
  textsAfter: db.prepare(
    `SELECT text FROM rows WHERE rowid > ${KEY("?", "?")} AND rowid <= ${KEY("?", "4294967295")} ORDER BY rowid`
  ).pluck(),
  /** `textsAfter`, at most `?` rows (the catch-up of the text index reads a page at a time). */
  textsAfterPage: db.prepare(
    `SELECT text FROM rows WHERE rowid > ${KEY("?", "?")} AND rowid <= ${KEY("?", "4294967295")} ORDER BY rowid LIMIT ?`
  ).pluck(),
  insertRow: db.prepare(
    `INSERT INTO rows (rowid, session, seq, id, parent_id, type, timestamp, text)
     VALUES (${KEY("?", "?")}, ?, ?, ?, ?, ?, ?, ?)`
  ),
  insertFts: db.prepare(
    `INSERT INTO messages_fts (rowid, text, session, entry_id, role, timestamp) VALUES (${
      KEY("?", "?")
    }, ?, ?, ?, ?, ?)`
  ),
  deleteFts: db.prepare(`DELETE FROM messages_fts WHERE rowid BETWEEN ${KEY("?", "0")} AND ${KEY("?", "4294967295")}`),
  deleteRows: db.prepare(`DELETE FROM rows WHERE rowid BETWEEN ${KEY("?", "0")} AND ${KEY("?", "4294967295")}`),
  deleteSession: db.prepare("DELETE FROM sessions WHERE sid = ?"),
  // `pending` is set once, by the first write that leaves rows out of the index, and cleared when
  // they are in: the appends of a hold write no column of the partial index `sessions_pending`
  setIndexed: db.prepare(`UPDATE sessions SET indexed = ?${pending ? ", pending = NULL" : ""} WHERE sid = ?`),
  setPending: db.prepare(pending ? "UPDATE sessions SET pending = 1 WHERE sid = ?" : "SELECT ? WHERE 0"),
  unindexed: db.prepare(
    `SELECT ${SESSION_COLUMNS}, NULL AS pending FROM sessions WHERE ${
      pending ? "pending IS NOT NULL" : "indexed < seq"
    }`
  ),
  rowText: db.prepare(`SELECT text FROM rows WHERE rowid = ${KEY("?", "?")}`).pluck(),
  newSession: db.prepare(
    "INSERT INTO sessions (id, generation, seq, modified_ms, touched) VALUES (?, 1, 0, ?, 0)"
  ),
  saveSession: db.prepare(
    `UPDATE sessions SET generation = ?, seq = ?, torn = ?, modified_ms = ?, ${
      SUMMARY_COLUMNS.map((c) => `${c} = ?`).join(", ")
    }, listed_ms = ?, touched = coalesce((SELECT max(touched) FROM sessions), 0) + 1 WHERE sid = ?`
  ),
  insertBackup: db.prepare(
    "INSERT INTO backups (name, session, label, generation, created_ms, torn, rows) VALUES (?, ?, ?, ?, ?, ?, ?)"
  ),
  backups: db.prepare("SELECT name, rows, torn FROM backups WHERE session = ? ORDER BY rowid"),
  mostRecent: db.prepare("SELECT id FROM sessions WHERE is_session = 1 ORDER BY touched DESC LIMIT 1"),
  // the last `?` matches in storage order, each scored by bm25 (global statistics: the scores of
  // a full ranking), the best `?` of them; a rowid is `sid << 32 | seq`, safe as a JS number
  searchTop: db.prepare(
    `SELECT rowid, score FROM (
       SELECT rowid, bm25(messages_fts) AS score FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?
     ) ORDER BY score, rowid LIMIT ?`
  ).raw(true),
  averages: db.prepare("SELECT block FROM messages_fts_data WHERE id = 1").pluck(),
  // rowid and text of the last `?` matches in storage order (FTS5 walks its index backwards and
  // stops there; the texts read from its content table by rowid afterwards)
  searchCandidates: db.prepare(
    `WITH hit AS MATERIALIZED (
       SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?
     )
     SELECT hit.id, content.c0 FROM hit CROSS JOIN messages_fts_content AS content ON content.id = hit.id`
  ).raw(true),
  searchCount: db.prepare(
    `SELECT count(*), min(rowid) FROM (
       SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?
     )`
  ).raw(true),
  searchRow: db.prepare("SELECT c1, c2, c3, c4 FROM messages_fts_content WHERE id = ?").raw(true),
  // the rows of the sessions after session ? and of its rows from ? on (session ?); the rows of all
  searchShare: db.prepare(
    `SELECT (SELECT coalesce(sum(seq), 0) FROM sessions WHERE sid > ?)
       + coalesce((SELECT max(0, seq - ? + 1) FROM sessions WHERE sid = ?), 0),
       (SELECT sum(seq) FROM sessions)`
  ).raw(true),
  searchHit: db.prepare(
    `SELECT session, entry_id, role, timestamp, snippet(messages_fts, 0, '[', ']', '…', 12) AS snippet
     FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`
  ),
  holder: db.prepare("SELECT token, pid, host, acquired_ms FROM holds WHERE session = ?"),
  hold: db.prepare(
    "INSERT OR REPLACE INTO holds (session, token, pid, host, acquired_ms) VALUES (?, ?, ?, ?, ?)"
  ),
  release: db.prepare("DELETE FROM holds WHERE session = ? AND token = ?")
})
