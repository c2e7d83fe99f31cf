/**
 * The errors of the PostgreSQL store that were its own. The store now raises the storage
 * interface's neutral errors (`@branchlog/session-store/TranscriptStoreError`): a newer schema is a
 * `SchemaTooNewError` (from the store's operations and from `PostgresStore.migrate`), every other
 * failure of the database a `BackendFailureError` naming the redacted reference, the operation
 * and the SQLSTATE. What is left here is kept for the imports that name it.
 *
 * @since 0.1.0
 */

/**
 * The database's schema is newer than this version of the store knows.
 *
 * @deprecated The storage interface's `TranscriptStoreError.SchemaTooNewError`, re-exported here
 * (the same class): its fields are `store` (`"postgres"`), `location` (the database URL, password
 * hidden; was `database`), `found` and `supported` (was `known`).
 */
export { SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"

/**
 * The code a `FileSystemError` carried in 0.1.x when it stood for a too-new schema.
 *
 * @deprecated The store's operations now fail with `SchemaTooNewError` itself
 * (`_tag: "SchemaTooNewError"`); no error carries this code any more. Match the tag instead.
 */
export const schemaTooNewCode = "SCHEMA_TOO_NEW"
