/**
 * The schema, as `@effect/sql` migrations (`Migrator.fromRecord`), and what opening a database
 * does with it: a database whose latest migration is newer than this code's is refused before
 * anything is written; an older or empty one is migrated through an `SqlClient` of its own (`sqlClient.ts`)
 * (closed right after), with retries while another process migrates it at the same time.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />

import { Line } from "@branchlog/session-core"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as SqlClientLayer from "./sqlClient.js"
import * as Summary from "./summary.js"

/** The table the migrator records its migrations in. */
export const MIGRATIONS_TABLE = "effect_sql_migrations"

const statements = (...texts: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(texts, (text) => sql.unsafe(text), { discard: true }))

/** Every migration, by `<id>_<name>`. */
export const migrations = {
  "1_initial": statements(
    `CREATE TABLE sessions (
      sid INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      generation INTEGER NOT NULL DEFAULT 1,
      seq INTEGER NOT NULL DEFAULT 0,
      indexed INTEGER NOT NULL DEFAULT 0,
      torn INTEGER NOT NULL DEFAULT 0,
      modified_ms INTEGER NOT NULL,
      touched INTEGER NOT NULL,
      is_session INTEGER,
      header_id TEXT,
      cwd TEXT,
      name TEXT,
      parent_session TEXT,
      created TEXT,
      created_ms INTEGER,
      message_count INTEGER NOT NULL DEFAULT 0,
      first_message TEXT,
      last_activity_ms INTEGER,
      all_text TEXT NOT NULL DEFAULT '',
      leaf TEXT,
      tail_id TEXT,
      listed_ms INTEGER
    )`,
    `CREATE INDEX sessions_touched ON sessions (touched)`,
    `CREATE INDEX sessions_unindexed ON sessions (sid) WHERE indexed < seq`,
    // a row's key is its session's number (high 32 bits) and its sequence number (low 32 bits):
    // one b-tree holds the rows of a session together and in order, and the FTS rows share the key
    `CREATE TABLE rows (
      rowid INTEGER PRIMARY KEY,
      session INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      id TEXT,
      parent_id TEXT,
      type TEXT,
      timestamp TEXT,
      text TEXT NOT NULL
    )`,
    `CREATE TABLE backups (
      rowid INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      session TEXT NOT NULL,
      label TEXT NOT NULL,
      generation INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      torn INTEGER NOT NULL DEFAULT 0,
      rows TEXT NOT NULL
    )`,
    `CREATE INDEX backups_session ON backups (session)`,
    `CREATE TABLE holds (
      session TEXT PRIMARY KEY NOT NULL,
      token TEXT NOT NULL,
      pid INTEGER NOT NULL,
      host TEXT NOT NULL,
      acquired_ms INTEGER NOT NULL
    )`,
    `CREATE VIRTUAL TABLE messages_fts USING fts5(
      text, session UNINDEXED, entry_id UNINDEXED, role UNINDEXED, timestamp UNINDEXED,
      tokenize = 'unicode61 remove_diacritics 2'
    )`
  ),
  // the listing's order (newest first, then last written): SQLite walks this index instead of
  // sorting, and only sessions whose first row is a header are in it
  "2_listing_index": statements(
    `CREATE INDEX sessions_listing ON sessions (listed_ms DESC, touched DESC) WHERE is_session = 1`
  ),
  // the bounded open's summary of each session (`StoreRows.activeSummary`: leaf, labels, name,
  // the active path's sequence numbers, a filter of the ids), of generation `active_generation`
  // as of row `active_seq`; written by a resume, caught up by the next one, never needed for
  // correctness (missing, stale or damaged: the resume reads the whole session and writes it again)
  "3_active_summary": statements(
    `ALTER TABLE sessions ADD COLUMN active TEXT`,
    `ALTER TABLE sessions ADD COLUMN active_filter BLOB`,
    `ALTER TABLE sessions ADD COLUMN active_generation INTEGER`,
    `ALTER TABLE sessions ADD COLUMN active_seq INTEGER`
  ),
  // the listing kept between calls (`listing.ts`) finds changed sessions by `touched`; a deletion
  // leaves nothing to find and may lower `max(touched)`: every one is counted here, by SQLite
  // itself (whatever code deletes). And the sessions with rows not in the FTS index yet are
  // flagged (`pending`, set by the first write leaving some out, cleared when indexed) instead of
  // found by `indexed < seq`: an index on that condition was rewritten by every append (`seq`),
  // one page more in each append's commit. The listing's index (migration 2) goes too: it was
  // another page of every append, for a read the kept listing makes once per connection (sorted
  // in JS as fast as walked: 22 ms for 10,000 sessions either way)
  "4_removal_count_pending": statements(
    `CREATE TABLE counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID`,
    `INSERT INTO counters (name, value) VALUES ('removals', 0)`,
    `CREATE TRIGGER sessions_removed AFTER DELETE ON sessions
     BEGIN UPDATE counters SET value = value + 1 WHERE name = 'removals'; END`,
    `ALTER TABLE sessions ADD COLUMN pending INTEGER`,
    `UPDATE sessions SET pending = 1 WHERE indexed < seq`,
    `DROP INDEX sessions_unindexed`,
    `CREATE INDEX sessions_pending ON sessions (sid) WHERE pending IS NOT NULL`,
    `DROP INDEX IF EXISTS sessions_listing`
  ),
  // the listing as of a `max(touched)` and removal count (`listingSnapshot.ts`), one row: a fresh
  // connection reads it instead of every session and catches up the sessions written since;
  // written by a listing (never by an append), never needed for correctness (missing, another
  // format or damaged: the listing is read from the sessions; of another removal count: caught up
  // over the removals, `listingRemovals.ts`, or read from the sessions when undecidable)
  "5_listing_snapshot": statements(
    `CREATE TABLE listing_snapshot (
      k INTEGER PRIMARY KEY CHECK (k = 1),
      format INTEGER NOT NULL,
      touched INTEGER NOT NULL,
      removals INTEGER NOT NULL,
      count INTEGER NOT NULL,
      numbers BLOB NOT NULL,
      texts TEXT NOT NULL
    )`
  ),
  // the listing's texts whole (`summary.ts`): the first user message always, the messages' text up
  // to `MAX_STORED_TEXT` characters (longer: a prefix, the whole read on demand); before, they were
  // cut at 200 and 500 characters. The sessions whose texts may have been cut get them again from
  // their rows; the stored snapshot of the listing (format 1, the cut texts) is no longer read
  "6_whole_listing_texts": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const sids = yield* sql.unsafe<{ readonly sid: number }>(
      `SELECT sid FROM sessions WHERE length(all_text) >= ${Summary.LEGACY_TEXT}
         OR length(first_message) >= ${Summary.LEGACY_FIRST_MESSAGE}`
    )
    for (const { sid } of sids) {
      const rows = yield* sql.unsafe<{ readonly text: string }>(
        `SELECT text FROM rows WHERE rowid > (? << 32) AND rowid <= (? << 32) + 4294967295
           AND type IN ('session', 'message', 'session_info') ORDER BY rowid`,
        [sid, sid]
      )
      const summary = Summary.empty()
      rows.forEach(({ text }, i) => Summary.push(summary, Line.parse(text, i + 1, 0)))
      yield* sql.unsafe("UPDATE sessions SET all_text = ?, first_message = ? WHERE sid = ?", [
        summary.all_text,
        summary.first_message,
        sid
      ])
    }
  })
} as const

/** The first schema whose listing texts are whole (`summary.ts`); older ones held them cut. */
export const WHOLE_TEXTS = 6

/** The schema version this code writes (the latest migration's id). */
export const LATEST = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/**
 * The oldest schema a read-only connection reads as it is: migration 2 only adds an index (a
 * listing of a version-1 database read-only is sorted by SQLite instead), migration 3 only the
 * bounded open's summary (a resume of an older database read-only reads the whole session),
 * migration 4 only the removal count (a listing of an older database read-only reads every
 * session) and the flag of rows to index (only a writable connection indexes), migration 5 only
 * the stored snapshot of the listing (without it a listing reads every session), migration 6 only
 * the listing's texts (read-only, a text of an older database that may have been cut is read whole
 * from the rows, `listedSummary.ts`).
 */
export const READABLE_FROM = 1

/** The latest migration recorded in a database (`0`: none; no schema yet). */
export const versionOf = (db: Database.Database): number => {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE)
  if (table === undefined) return 0
  const row = db.prepare(`SELECT max(migration_id) AS v FROM ${MIGRATIONS_TABLE}`).get() as { v: number | null }
  return row.v ?? 0
}

/** Runs the migrations on the database at `filename` through its own `SqlClient` (closed after). */
export const migrate = (filename: string) =>
  Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE }).pipe(
    Effect.provide(SqlClientLayer.layer(filename)),
    Effect.scoped
  )
