/**
 * The importers' errors: each names the source (and the line, byte offset or event where it
 * applies) and why.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The source does not exist. */
export class SourceNotFound extends Schema.TaggedError<SourceNotFound>()("SourceNotFound", {
  path: Schema.String
}) {
  /** The message. */
  override get message(): string {
    return `${this.path}: no such file or folder`
  }
}

/** The source could not be read (permissions, a device, a read error). */
export class SourceReadError extends Schema.TaggedError<SourceReadError>()("SourceReadError", {
  path: Schema.String,
  reason: Schema.String,
  line: Schema.optional(Schema.Number),
  offset: Schema.optional(Schema.Number)
}) {
  /** The message. */
  override get message(): string {
    const where = this.line === undefined
      ? ""
      : `:${this.line}${this.offset === undefined ? "" : ` (byte ${this.offset})`}`
    return `${this.path}${where}: ${this.reason}`
  }
}

/** The source is of no format the importers know (or not of the one asked for). */
export class UnknownFormat extends Schema.TaggedError<UnknownFormat>()("UnknownFormat", {
  path: Schema.String,
  reason: Schema.String
}) {
  /** The message. */
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/** An OpenClaw database could not be read (not SQLite, no `transcript_events`, a driver error). */
export class OpenClawDatabaseError extends Schema.TaggedError<OpenClawDatabaseError>()("OpenClawDatabaseError", {
  path: Schema.String,
  reason: Schema.String,
  sessionId: Schema.optional(Schema.String),
  seq: Schema.optional(Schema.Number)
}) {
  /** The message. */
  override get message(): string {
    const where = this.sessionId === undefined
      ? ""
      : ` (session ${this.sessionId}${this.seq === undefined ? "" : `, seq ${this.seq}`})`
    return `${this.path}${where}: ${this.reason}`
  }
}

/** The destination cannot take the import (a file destination for a source of several sessions, a failed write). */
export class DestinationError extends Schema.TaggedError<DestinationError>()("DestinationError", {
  path: Schema.String,
  reason: Schema.String
}) {
  /** The message. */
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/** Every error of an import. */
export type ImportError = SourceNotFound | SourceReadError | UnknownFormat | OpenClawDatabaseError | DestinationError
