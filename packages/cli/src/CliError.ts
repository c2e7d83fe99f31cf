/**
 * The errors the `branchlog` command reports: each prints as one line naming the file (and the
 * line and byte offset where one applies), and carries its exit code.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** Exit codes: 0 success, 1 problems found or an operation failed, 2 a usage error. */
export const ExitCode = { ok: 0, problems: 1, failure: 1, usage: 2 } as const

/** A file the command needs does not exist. */
export class FileMissing extends Schema.TaggedError<FileMissing>()("FileMissing", {
  path: Schema.String
}) {
  override get message(): string {
    return `${this.path}: no such file`
  }
}

/** The command was used wrongly (an unknown entry id, a bad input line). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  path: Schema.optional(Schema.String),
  line: Schema.optional(Schema.Number),
  detail: Schema.String
}) {
  override get message(): string {
    const where = this.path === undefined ? "" : `${this.path}${this.line === undefined ? "" : `:${this.line}`}: `
    return `${where}${this.detail}`
  }
}

/**
 * `append` stopped part-way (a full disk, a lock it could not take): `written` entries are in the
 * file (stdin's lines before `line`), so a retry starts at `line`.
 */
export class AppendStopped extends Schema.TaggedError<AppendStopped>()("AppendStopped", {
  path: Schema.String,
  line: Schema.Number,
  written: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.path}: append stopped at line ${this.line} of stdin: ${this.reason}; ${this.written} entries were written before it (a retry should start at line ${this.line})`
  }
}

/** `fsck` found problems (they were printed); exit 1. */
export class ProblemsFound extends Schema.TaggedError<ProblemsFound>()("ProblemsFound", {
  files: Schema.Number,
  problems: Schema.Number
}) {
  override get message(): string {
    return `${this.problems} problem(s) in ${this.files} file(s)`
  }
}

/**
 * The session was rewritten (repaired, reset) while a command printed it from its sidecar index:
 * the rows after the first `printed` lines were no longer where the index said. Run it again.
 */
export class SessionChanged extends Schema.TaggedError<SessionChanged>()("SessionChanged", {
  path: Schema.String,
  printed: Schema.Number
}) {
  override get message(): string {
    return `${this.path}: the session was rewritten while it was printed (after ${this.printed} lines): run the command again`
  }
}

/** An agent turn ended with an error (a failed request, an aborted turn); what it wrote is kept. */
export class TurnFailed extends Schema.TaggedError<TurnFailed>()("TurnFailed", {
  path: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  override get message(): string {
    return `the turn failed: ${this.detail}`
  }
}

/** A session id prefix that names several sessions: the candidates are listed (exit 2). */
export class AmbiguousSession extends Schema.TaggedError<AmbiguousSession>()("AmbiguousSession", {
  prefix: Schema.String,
  candidates: Schema.Array(Schema.Struct({ id: Schema.String, path: Schema.String }))
}) {
  override get message(): string {
    return `${this.prefix}: ambiguous session id prefix, ${this.candidates.length} sessions match: ${
      this.candidates.map((c) => `${c.id} (${c.path})`).join(", ")
    }`
  }
}

/** No session file, and no session whose id starts with the text, in the folders searched. */
export class NoSuchSession extends Schema.TaggedError<NoSuchSession>()("NoSuchSession", {
  prefix: Schema.String,
  searched: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `${this.prefix}: no such file, and no session id starts with it (searched ${
      this.searched.length === 0 ? "nothing" : this.searched.join(", ")
    })`
  }
}

/** `continue` / `--last` found no session for the working folder. */
export class NoRecentSession extends Schema.TaggedError<NoRecentSession>()("NoRecentSession", {
  cwd: Schema.String,
  searched: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `no session for ${this.cwd} (searched ${this.searched.join(", ")})`
  }
}

/** The tags of the errors that are the command line's fault: exit {@link ExitCode.usage}. */
const usageTags: ReadonlySet<unknown> = new Set([
  "UsageError",
  "InvalidSessionRefError",
  "AmbiguousSession",
  "UnsupportedSessionRefError"
])

/**
 * The exit code an error of the command maps to: a usage error, an ambiguous prefix, or a session
 * reference no store here serves exit 2; every other error exits 1, the stores' among them (a file
 * operation, a lock not taken in time, a store whose schema is newer than this branchlog
 * (`SchemaTooNewError`), a database's or a connection's failure (`BackendFailureError`)): the
 * command line was right, the operation failed.
 */
export const exitCodeOf = (error: unknown): number =>
  typeof error === "object" && error !== null && "_tag" in error && usageTags.has(error._tag)
    ? ExitCode.usage
    : ExitCode.failure

/** One line for any error: its message, with a file / line / offset when it carries them. */
export const describeError = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const e = error as {
    readonly message?: unknown
    readonly path?: unknown
    readonly line?: unknown
    readonly offset?: unknown
    readonly _tag?: unknown
  }
  const message = typeof e.message === "string" && e.message !== "" ? e.message : String(e._tag ?? "error")
  if (typeof e.path === "string" && !message.includes(e.path)) {
    const where = [
      e.path,
      typeof e.line === "number" ? `line ${e.line}` : undefined,
      typeof e.offset === "number" ? `offset ${e.offset}` : undefined
    ]
      .filter((part) => part !== undefined)
      .join(", ")
    return `${where}: ${message}`
  }
  return message
}
