/**
 * The errors of the PostgreSQL store that are its own (every other failure reaches callers as
 * the storage interface's `FileSystemError`, naming the session and the SQLSTATE).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The database's schema is newer than this version of the store knows: it refuses to touch it. */
export class SchemaTooNewError extends Schema.TaggedError<SchemaTooNewError>()("SchemaTooNewError", {
  /** The database (its URL, password hidden). */
  database: Schema.String,
  /** The schema version found. */
  found: Schema.Number,
  /** The newest version this store knows. */
  known: Schema.Number
}) {
  /** Names the database, both versions and what to do. */
  override get message(): string {
    return `the branchlog schema of ${this.database} is version ${this.found}, newer than this store knows (${this.known}): upgrade @branchlog/store-postgres`
  }
}

/** The code a `FileSystemError` carries when it stands for a {@link SchemaTooNewError}. */
export const schemaTooNewCode = "SCHEMA_TOO_NEW"
