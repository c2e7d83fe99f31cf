/**
 * The errors of the file-level services: every one names the path it is about, and the lock
 * errors name the holder (pid, host, liveness, age).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A file (or its folder) that an operation needed does not exist. */
export class FileNotFoundError extends Schema.TaggedError<FileNotFoundError>()("FileNotFoundError", {
  path: Schema.String,
  operation: Schema.String
}) {
  /** A readable message naming the path. */
  override get message(): string {
    return `${this.operation}: no such file: ${this.path}`
  }
}

/** Any other failure of the filesystem, with the system error code and the offset where relevant. */
export class FileSystemError extends Schema.TaggedError<FileSystemError>()("FileSystemError", {
  path: Schema.String,
  operation: Schema.String,
  code: Schema.optional(Schema.String),
  offset: Schema.optional(Schema.Number),
  detail: Schema.String
}) {
  /** A readable message naming the path, the code and the offset. */
  override get message(): string {
    const code = this.code === undefined ? "" : ` (${this.code})`
    const offset = this.offset === undefined ? "" : ` at offset ${this.offset}`
    return `${this.operation} failed${code}${offset}: ${this.path}: ${this.detail}`
  }
}

/** What a path that is not a regular file is: a folder, a FIFO, a socket, a device. */
export const NotRegularFileKind = Schema.Literal(
  "directory",
  "fifo",
  "socket",
  "character device",
  "block device",
  "other"
)

/** A path that had to be read as a file is a folder, a FIFO, a socket or a device: refused without being opened. */
export class NotRegularFileError extends Schema.TaggedError<NotRegularFileError>()("NotRegularFileError", {
  path: Schema.String,
  operation: Schema.String,
  kind: NotRegularFileKind
}) {
  /** `open: is a directory: <path>`, `open: not a regular file (a fifo): <path>`. */
  override get message(): string {
    return this.kind === "directory"
      ? `${this.operation}: is a directory: ${this.path}`
      : `${this.operation}: not a regular file (a ${this.kind}): ${this.path}`
  }
}

/** The transcript's lock could not be taken in time; names who holds it and for how long. */
export class LockTimeoutError extends Schema.TaggedError<LockTimeoutError>()("LockTimeoutError", {
  path: Schema.String,
  lockPath: Schema.String,
  holderPid: Schema.optional(Schema.Number),
  holderHostname: Schema.optional(Schema.String),
  holderAlive: Schema.optional(Schema.Boolean),
  ageMs: Schema.optional(Schema.Number),
  timeoutMs: Schema.Number,
  staleReasons: Schema.Array(Schema.String)
}) {
  /**
   * `transcript locked (timeout <ms>ms): pid=.. host=.. alive=.. ageMs=.. <lockPath>`, then what to
   * do: wait and retry, or remove the lock file once sure its holder is not writing.
   */
  override get message(): string {
    const fmt = (value: unknown) => (value === undefined ? "?" : String(value))
    const reasons = this.staleReasons.length === 0 ? "" : ` reported=${this.staleReasons.join(",")}`
    const holder = this.holderPid === undefined ? "its holder" : `pid ${this.holderPid}`
    return `transcript locked (timeout ${this.timeoutMs}ms): pid=${fmt(this.holderPid)} host=${
      fmt(this.holderHostname)
    } alive=${fmt(this.holderAlive)} ageMs=${
      fmt(this.ageMs)
    }${reasons} ${this.lockPath}; retry later (or with a longer timeout), or remove the lock file once sure ${holder} is not writing this session`
  }
}

const kindText: Record<string, string> = {
  directory: "a directory",
  fifo: "a FIFO (named pipe)",
  socket: "a socket",
  "character device": "a character device",
  "block device": "a block device"
}

/**
 * Something that is not a lock file sits at the lock path (a directory, a FIFO, a socket, a
 * device): no writer could ever take the lock, and branchlog does not remove what it did not
 * make. Says what it is and what to do.
 */
export class LockUnusableError extends Schema.TaggedError<LockUnusableError>()("LockUnusableError", {
  path: Schema.String,
  lockPath: Schema.String,
  kind: Schema.String
}) {
  /** `transcript lock path <lockPath> is a directory, not a lock file: ... move it away or remove it`. */
  override get message(): string {
    const what = kindText[this.kind] ?? "not a regular file"
    return `transcript lock path ${this.lockPath} is ${what}, not a lock file, so no writer of ${this.path} can ever lock it; nothing was written: move it away or remove it (it was not made by branchlog), then retry`
  }
}

/** Any error of the file-level services. */
export type StoreError =
  | FileNotFoundError
  | FileSystemError
  | NotRegularFileError
  | LockTimeoutError
  | LockUnusableError
