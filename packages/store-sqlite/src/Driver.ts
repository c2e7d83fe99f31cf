/**
 * What the CLI (and any `StoreRouter`) loads to serve `sqlite:` references: session-store's
 * `StoreRouter.Driver` for this store, one store for every database, made on first use and closed
 * with the router's scope; and {@link unavailable}, which says before anything runs whether this
 * process can open a database at all (`SqliteEngine`).
 *
 * @since 0.1.0
 */
import type * as StoreRouter from "@branchlog/session-store/StoreRouter"
import * as Either from "effect/Either"
import * as SqliteEngine from "./SqliteEngine.js"
import * as SqliteStore from "./SqliteStore.js"

/** The SQLite driver (default options): kind `Sqlite`, scheme `sqlite:`. */
export const driver: StoreRouter.Driver = {
  kind: "Sqlite",
  schemes: [SqliteStore.scheme],
  addressing: SqliteStore.addressing,
  make: SqliteStore.make()
}

/** A driver with options (the busy timeout). */
export const withOptions = (options: SqliteStore.Options): StoreRouter.Driver => ({
  ...driver,
  make: SqliteStore.make(options)
})

/** `undefined` when this process can serve `sqlite:` references; else one line saying what to install. */
export const unavailable = (): string | undefined =>
  Either.match(SqliteEngine.current(), { onLeft: (error) => error.message, onRight: () => undefined })
