/**
 * The PostgreSQL backend of `TranscriptStore`: sessions shared by many machines. It serves every
 * `postgres://…#ID` (and `postgresql://…#ID`) reference: one connection pool per database URL,
 * opened on first use and closed with the store's scope; connection settings from the URL and
 * the usual `PG*` variables; the schema given to a database on its first writable use (through
 * `@effect/sql`'s migrator; a newer schema is refused, the storage interface's `SchemaTooNewError`), never by a
 * read-only load. A location is a database URL; `refFor(location, header)` names the header's
 * id in that database.
 *
 * Rows keep their text byte for byte (blank and damaged rows included), numbered per session
 * without gaps (`UNIQUE (session_id, seq)`); a cursor is the session's generation (bumped by
 * every replace, which keeps the old rows as a backup) and the last sequence number. A hold
 * (`exclusive`) is a session-level advisory lock on a connection reserved for it; each write is
 * one transaction on that connection which locks the session's row (`FOR UPDATE`), checks the
 * writer's cursor (`StaleCursorError` when another host wrote meanwhile), writes, and notifies
 * (`pg_notify('branchlog', '<id>:<seq>')`). Transient failures (serialisation, deadlock, a lost
 * connection, a server restarting) are retried with backoff; a retry after a lost
 * acknowledgement finds its own rows and stores nothing twice. `watch` turns the notifications
 * into signals (LISTEN); `search` is PostgreSQL full-text search.
 *
 * @since 0.1.0
 */
import type * as StoreRouter from "@branchlog/session-store/StoreRouter"
import type { TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Schema from "./internal/schema.js"
import * as Store from "./internal/store.js"

/** Options of the store: pool sizes and timeouts, and how long transient failures are retried. */
export type Options = Store.Options

/** The store, living in the current scope (its pools close with it). */
export const make = (options: Options = {}): Effect.Effect<TranscriptStoreShape, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => Store.make(scope, options))

/** The driver a `StoreRouter` (and the CLI) loads: `postgres://…#ID` and `postgresql://…#ID` references. */
export const driver: StoreRouter.Driver = {
  kind: "Postgres",
  schemes: ["postgres://", "postgresql://"],
  addressing: Store.addressing,
  make: make()
}

/** `TranscriptStore` over PostgreSQL only (for users who keep every session there). */
export const layer = (options: Options = {}): Layer.Layer<TranscriptStore> =>
  Layer.scoped(TranscriptStore, make(options))

/** The newest schema version this store writes. */
export const schemaVersion: number = Schema.latestVersion

/**
 * Gives the database at `url` the current schema (what the store does on first writable use);
 * fails with `SchemaTooNewError` when its schema is newer. Returns the version found before
 * (`undefined`: no schema yet).
 */
export const migrate = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 2 })
    const { found, tooNew } = yield* Schema.migrate(sql)
    if (tooNew) return yield* Store.schemaTooNew(url, found!)
    return found
  })).pipe(Effect.provide(Reactivity.layer))
