/**
 * What the CLI (and any `StoreRouter`) loads to serve `sqlite:` references: session-store's
 * `StoreRouter.Driver` for this store, one store for every database, made on first use and closed
 * with the router's scope.
 *
 * @since 0.1.0
 */
import type * as StoreRouter from "@branchlog/session-store/StoreRouter"
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
