/**
 * The errors of `SessionManager` and `SessionCatalog`: each names the session file it is about
 * and, where a line of the file is at fault, its line number and byte offset.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { UnsupportedSessionRefError } from "./SessionRef.js"
import {
  FileNotFoundError,
  FileSystemError,
  LockTimeoutError,
  LockUnusableError,
  NotRegularFileError
} from "./StoreError.js"
import {
  BackendFailureError,
  SchemaTooNewError,
  SessionFileConflictError,
  StaleCursorError
} from "./TranscriptStoreError.js"

/** An entry id that the session does not know (`branch`, `appendLabelChange`, `createBranchedSession`). */
export class EntryNotFoundError extends Schema.TaggedError<EntryNotFoundError>()("EntryNotFoundError", {
  id: Schema.String,
  path: Schema.optional(Schema.String)
}) {
  /** `Entry <id> not found`, as the references word it. */
  override get message(): string {
    return `Entry ${this.id} not found${this.path === undefined ? "" : ` in ${this.path}`}`
  }
}

/** A session file that cannot be used as asked (fork source without a header, reset of an unreadable header). */
export class InvalidSessionFileError extends Schema.TaggedError<InvalidSessionFileError>()("InvalidSessionFileError", {
  path: Schema.String,
  reason: Schema.String,
  line: Schema.optional(Schema.Number),
  offset: Schema.optional(Schema.Number)
}) {
  /** The reason, the path, and the line and offset when known. */
  override get message(): string {
    const where = this.line === undefined
      ? ""
      : ` (line ${this.line}${this.offset === undefined ? "" : `, offset ${this.offset}`})`
    return `${this.reason}: ${this.path}${where}`
  }
}

/** A new session's rows met rows this writer never wrote: they are not overwritten (see `TranscriptStoreError`). */
export { SessionFileConflictError } from "./TranscriptStoreError.js"

/** A write was asked of a session opened read-only or held in memory. */
export class ReadOnlySessionError extends Schema.TaggedError<ReadOnlySessionError>()("ReadOnlySessionError", {
  path: Schema.optional(Schema.String),
  operation: Schema.String
}) {
  /** Names the operation and the file. */
  override get message(): string {
    return `${this.operation}: the session is read-only${this.path === undefined ? "" : `: ${this.path}`}`
  }
}

/**
 * `appendContextEdit` refused its target or its replacement, as pi 1.6 does: the target is not on
 * the active branch, it contributes no editable content (only user, assistant and tool result
 * messages and custom messages do), or the replacement is neither `null` nor `{content}` with
 * string or array content.
 */
export class ContextEditRefusedError extends Schema.TaggedError<ContextEditRefusedError>()("ContextEditRefusedError", {
  targetId: Schema.String,
  reason: Schema.Literal("not on the active branch", "not editable", "invalid replacement"),
  path: Schema.optional(Schema.String)
}) {
  /** pi 1.6's wording, and the file. */
  override get message(): string {
    const where = this.path === undefined ? "" : ` (${this.path})`
    switch (this.reason) {
      case "not on the active branch":
        return `Entry ${this.targetId} is not on the active branch${where}`
      case "not editable":
        return `Entry ${this.targetId} does not contribute editable model content${where}`
      case "invalid replacement":
        return `Context edit replacement must be null or contain string/array content${where}`
    }
  }
}

/**
 * A batch of appends (`appendMessages`) that failed: `error` is what stopped it. The batch is one
 * commit (one write, one transaction), so nothing of it was kept: `written` is 0 (none of its
 * `total` entries is stored) and `pending` is 0 (none waits in the manager for the session's first
 * flush; the manager's state and leaf are as before the batch), and a retry resends the whole batch
 * (the entries after `written`) without duplicating any. Both fields stay for compatibility with
 * errors of session-store 0.1, which wrote a batch entry by entry and kept, on a failure part-way,
 * its first `written` entries (and `pending` more, applied but not yet written).
 * What no store can rule out: a failure reported after the write landed (an fsync that failed
 * after the bytes were written) may leave the rows stored; the manager then finds them as another
 * writer's rows (not on its branch) at its next write or `refresh`.
 */
export class AppendBatchError extends Schema.TaggedError<AppendBatchError>()("AppendBatchError", {
  path: Schema.optional(Schema.String),
  written: Schema.Number,
  pending: Schema.Number,
  total: Schema.Number,
  error: Schema.Union(
    FileSystemError,
    FileNotFoundError,
    NotRegularFileError,
    LockTimeoutError,
    LockUnusableError,
    SessionFileConflictError,
    ReadOnlySessionError,
    UnsupportedSessionRefError,
    StaleCursorError,
    SchemaTooNewError,
    BackendFailureError
  )
}) {
  /** The cause's message, then how many of the batch's entries were written before it stopped (none, now). */
  override get message(): string {
    if (this.written === 0 && this.pending === 0) {
      return `${this.error.message}; none of the batch's ${this.total} entries was written`
    }
    const pending = this.pending === 0 ? "" : ` (${this.pending} more accepted, not yet written)`
    return `${this.error.message}; ${this.written} of ${this.total} entries written before it stopped${pending}`
  }
}

/**
 * A synchronous read of a session opened bounded (`SessionManager.resume`: only its active path is
 * loaded) that the bounded state cannot answer exactly (`getTree`, `getEntries`, `getState`, a
 * branch or a context reaching behind the loaded path, …). Nothing was loaded: run
 * `yield* manager.loadFull()` first, then read again. Thrown, not returned: the reads are synchronous.
 */
export class SessionNotLoadedError extends Schema.TaggedError<SessionNotLoadedError>()("SessionNotLoadedError", {
  path: Schema.optional(Schema.String),
  method: Schema.String
}) {
  /** Names the method and the session, and says what to do. */
  override get message(): string {
    return `${this.method}: the session${
      this.path === undefined ? "" : ` ${this.path}`
    } was opened bounded (SessionManager.resume) and this read needs the rest of it: \`yield* manager.loadFull()\` first`
  }
}
