/**
 * The errors of the storage interface that no backend owns: every store (the JSONL files, memory,
 * SQLite, PostgreSQL, a third party's) raises these, so a caller matches one `_tag` whatever
 * served the session. Each names the store (`name` of its `TranscriptStoreShape`) or the session
 * reference, and the location (a database path, a redacted URL, a folder) where one applies.
 *
 * A failure of a real file operation stays a `StoreError.FileSystemError`; a store's schema newer
 * than this code is a {@link SchemaTooNewError}; any other failure of a backend (a database error,
 * a lost connection, a session replaced while it was streamed) is a {@link BackendFailureError}.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A store's schema is newer than this code supports: the store refused it and touched nothing. */
export class SchemaTooNewError extends Schema.TaggedError<SchemaTooNewError>()("SchemaTooNewError", {
  /** The store (`sqlite`, `postgres`, …). */
  store: Schema.String,
  /** The database or folder (a URL's password hidden). */
  location: Schema.String,
  /** The schema version found there. */
  found: Schema.Number,
  /** The newest schema version this code supports. */
  supported: Schema.Number
}) {
  /** Names the store, the location, both versions and what to do. */
  override get message(): string {
    return `the ${this.store} store at ${this.location} has schema version ${this.found}, newer than this branchlog supports (${this.supported}); nothing was changed: use a newer branchlog`
  }
}

/**
 * A backend failed an operation for a reason of its own (a database error, a lost connection, a
 * server away): what was asked, where, the backend's error code (an SQLSTATE, `SQLITE_BUSY`, a
 * system code) when it has one, and its cause.
 */
export class BackendFailureError extends Schema.TaggedError<BackendFailureError>()("BackendFailureError", {
  /** The store (`sqlite`, `postgres`, …). */
  store: Schema.String,
  /** The session reference or the database the operation was about (a URL's password hidden). */
  location: Schema.String,
  /** What was asked (`load`, `append`, `list`, …). */
  operation: Schema.String,
  /** The backend's own error code, if any. */
  code: Schema.optional(Schema.String),
  /** The backend's readable account of the failure. */
  detail: Schema.String,
  /** The backend's error, as it was thrown. */
  cause: Schema.optional(Schema.Defect)
}) {
  /** `the sqlite store failed to load sqlite:/a.db#s1 (SQLITE_BUSY): database is locked`. */
  override get message(): string {
    const code = this.code === undefined ? "" : ` (${this.code})`
    return `the ${this.store} store failed to ${this.operation} ${this.location}${code}: ${this.detail}`
  }
}

/** A store was handed a cursor that no longer matches the session (someone else wrote meanwhile). */
export class StaleCursorError extends Schema.TaggedError<StaleCursorError>()("StaleCursorError", {
  ref: Schema.String,
  change: Schema.String
}) {
  /** Names the session and what changed. */
  override get message(): string {
    return `the session changed since it was read (${this.change}): ${this.ref}`
  }
}

/** A session was asked for that is not in the store. */
export class SessionNotFoundError extends Schema.TaggedError<SessionNotFoundError>()("SessionNotFoundError", {
  ref: Schema.String
}) {
  /** Names the session. */
  override get message(): string {
    return `no such session: ${this.ref}`
  }
}

/** A search was asked of a store that keeps no index of message text and cannot scan. */
export class SearchUnsupportedError extends Schema.TaggedError<SearchUnsupportedError>()("SearchUnsupportedError", {
  store: Schema.String,
  location: Schema.String
}) {
  /** Names the store and the location. */
  override get message(): string {
    return `the ${this.store} store cannot search messages (${this.location})`
  }
}

/**
 * A new session's rows were to be created where rows this writer never wrote already are: they
 * are not overwritten. `path` is the session (a file path or a reference's string form); `size`
 * is what is there, in `unit`s (`"bytes"` of a file, the default; `"rows"` of a database session).
 */
export class SessionFileConflictError
  extends Schema.TaggedError<SessionFileConflictError>()("SessionFileConflictError", {
    path: Schema.String,
    size: Schema.Number,
    unit: Schema.optional(Schema.Literal("bytes", "rows"))
  })
{
  /** Names the session and what is there. */
  override get message(): string {
    return this.unit === "rows"
      ? `session already exists with ${this.size} rows that this session never wrote: ${this.path}`
      : `session file already exists with ${this.size} bytes that this session never wrote: ${this.path}`
  }
}

/** Any error of this module. */
export type TranscriptStoreError =
  | SchemaTooNewError
  | BackendFailureError
  | StaleCursorError
  | SessionNotFoundError
  | SearchUnsupportedError
  | SessionFileConflictError

/**
 * The error of a row store's `streamRows` (`StoreRows.streamPages`) when the session was replaced
 * between two pages: its rows are never mixed from two generations.
 */
export const replacedWhileStreaming = (store: string, location: string): BackendFailureError =>
  new BackendFailureError({
    store,
    location,
    operation: "stream rows",
    detail: "the session was replaced while its rows were read"
  })
