/**
 * `@branchlog/store-postgres`: the PostgreSQL backend of branchlog's storage interface.
 *
 * @since 0.1.0
 */

/** The store, its layer, the CLI driver and the schema migration. */
export * as PostgresStore from "./PostgresStore.js"

/** Deprecated names of the errors the store now raises as the storage interface's (`TranscriptStoreError`). */
export * as PostgresError from "./PostgresError.js"

/** The driver a `StoreRouter` loads (what the CLI imports). */
export { driver } from "./PostgresStore.js"
