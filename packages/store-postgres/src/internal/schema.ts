/**
 * The schema, through `@effect/sql`'s migrator (`Migrator.fromRecord`, table
 * `branchlog_migrations`): migrations run under a session-level advisory lock (so that many hosts
 * opening one fresh database at once migrate it once), and a database whose schema is newer than
 * this package knows is refused before anything touches it.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type { Run } from "./sql.js"
import { onConnection } from "./sql.js"

/** The migrations table. */
export const migrationsTable = "branchlog_migrations"

/** The advisory lock key (two-int form, first key) that migrations run under. */
const MIGRATION_LOCK = 0x62_6c_6d // "blm"

const initial = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE branchlog_sessions (
  session_id text PRIMARY KEY,
  generation integer NOT NULL,
  last_seq integer NOT NULL,
  leaf text,
  first_kind text,
  cwd text,
  created text,
  parent_session text,
  message_count integer NOT NULL DEFAULT 0,
  torn_tail boolean NOT NULL DEFAULT false,
  modified timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX branchlog_sessions_modified ON branchlog_sessions (modified DESC);
CREATE TABLE branchlog_rows (
  session_id text NOT NULL REFERENCES branchlog_sessions (session_id) ON DELETE CASCADE,
  seq integer NOT NULL,
  text text NOT NULL,
  raw bytea,
  kind text NOT NULL,
  entry_id text,
  parent_id text,
  type text,
  timestamp text,
  role text,
  body text,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX branchlog_rows_entry ON branchlog_rows (session_id, entry_id);
CREATE INDEX branchlog_rows_search ON branchlog_rows USING gin (to_tsvector('english', body)) WHERE body IS NOT NULL;
CREATE TABLE branchlog_backups (
  name text PRIMARY KEY,
  session_id text NOT NULL,
  label text NOT NULL,
  generation integer NOT NULL,
  created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE branchlog_backup_rows (
  backup text NOT NULL REFERENCES branchlog_backups (name) ON DELETE CASCADE,
  seq integer NOT NULL,
  text text NOT NULL,
  raw bytea,
  PRIMARY KEY (backup, seq)
);
`).raw)

// the bounded open's summary of each session (`StoreRows.activeSummary`: leaf, labels, name, the
// active path's sequence numbers, a filter of the ids), of generation `active_generation` as of row
// `active_seq`; written by a resume, caught up by the next one, never needed for correctness
const activeSummary = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE branchlog_sessions
  ADD COLUMN active text,
  ADD COLUMN active_filter bytea,
  ADD COLUMN active_generation integer,
  ADD COLUMN active_seq integer;
`).raw)

/** Every migration, by `<id>_<name>`. */
export const migrations = {
  "1_initial": initial,
  "2_active_summary": activeSummary
} as const

/** The newest schema version this package knows. */
export const latestVersion = 2

/**
 * The oldest schema a read-only use reads as it is: migration 2 only adds the bounded open's
 * summary (a resume of a version-1 database without migrating it reads the whole session).
 */
export const readableFrom = 1

/** The schema a database has: none yet, the version of its newest migration. */
export const versionOf = (run: Run): Effect.Effect<number | undefined, SqlError> =>
  Effect.flatMap(
    run(`SELECT to_regclass('${migrationsTable}') IS NOT NULL AS present`),
    (rows) =>
      rows[0]?.present !== true
        ? Effect.succeed(undefined)
        : Effect.map(
          run(`SELECT COALESCE(max(migration_id), 0) AS version FROM ${migrationsTable}`),
          (found) => Number(found[0]?.version ?? 0)
        )
  )

/**
 * Brings the database to {@link latestVersion} (under the migration lock, on a reserved
 * connection). Gives the version found before; `tooNew` when the database's schema is newer.
 */
export const migrate = (
  sql: SqlClient.SqlClient
): Effect.Effect<
  { readonly found: number | undefined; readonly tooNew: boolean },
  SqlError | Migrator.MigrationError
> =>
  Effect.scoped(Effect.gen(function*() {
    const conn = yield* sql.reserve
    const run = onConnection(conn)
    const before = yield* versionOf(run)
    if (before !== undefined && before >= latestVersion) return { found: before, tooNew: before > latestVersion }
    yield* run(`SELECT pg_advisory_lock(${MIGRATION_LOCK}, 1)`)
    yield* Effect.addFinalizer(() => Effect.ignore(run(`SELECT pg_advisory_unlock(${MIGRATION_LOCK}, 1)`)))
    const found = yield* versionOf(run)
    if (found !== undefined && found > latestVersion) return { found, tooNew: true }
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable }).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return { found: before, tooNew: false }
  }))
