/**
 * The address of a session, whatever stores it, with a string form for people and scripts:
 *
 * - a path (`/x/s.jsonl`, `./s.jsonl`, `file:/x/s.jsonl`): a JSONL file;
 * - `sqlite:PATH#ID`: session `ID` in the SQLite database at `PATH` (issue 12);
 * - `postgres://…#ID` (or `postgresql://…#ID`): session `ID` in a PostgreSQL database (issue 13);
 * - `memory:LOCATION#ID`: session `ID` in the in-memory row store (`MemoryStore`).
 *
 * A store serves the kinds of reference it knows and fails any other with
 * {@link UnsupportedSessionRefError}, which names the reference and the store.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** A JSONL file, by its path (absolute once a store resolved it). */
export interface FileRef {
  readonly _tag: "File"
  readonly path: string
}

/** A session in an SQLite database. */
export interface SqliteRef {
  readonly _tag: "Sqlite"
  /** The database file. */
  readonly path: string
  /** The session id. */
  readonly id: string
}

/** A session in a PostgreSQL database. */
export interface PostgresRef {
  readonly _tag: "Postgres"
  /** The connection URL without the `#ID` fragment. */
  readonly url: string
  /** The session id. */
  readonly id: string
}

/** A session in the in-memory row store. */
export interface MemoryRef {
  readonly _tag: "Memory"
  /** The folder-like location it was created in (what a listing filters on); `""` for none. */
  readonly location: string
  /** The session id. */
  readonly id: string
}

/** Any session reference. */
export type SessionRef = FileRef | SqliteRef | PostgresRef | MemoryRef

/** A reference string that names no session. */
export class InvalidSessionRefError extends Schema.TaggedError<InvalidSessionRefError>()("InvalidSessionRefError", {
  input: Schema.String,
  reason: Schema.String
}) {
  /** Names the input and why it is no reference. */
  override get message(): string {
    return `not a session reference: ${JSON.stringify(this.input)} (${this.reason})`
  }
}

/** A store was given a kind of reference it does not serve (e.g. `sqlite:…` with no SQLite backend present). */
export class UnsupportedSessionRefError
  extends Schema.TaggedError<UnsupportedSessionRefError>()("UnsupportedSessionRefError", {
    ref: Schema.String,
    store: Schema.String
  })
{
  /** Names the reference, the store, and what is missing. */
  override get message(): string {
    return `the ${this.store} store cannot open ${this.ref}: no backend for this kind of reference is present`
  }
}

/** A JSONL file reference. */
export const file = (path: string): FileRef => ({ _tag: "File", path })

/** A memory-store reference. */
export const memory = (location: string, id: string): MemoryRef => ({ _tag: "Memory", location, id })

const splitId = (
  input: string,
  rest: string
): Either.Either<{ before: string; id: string }, InvalidSessionRefError> => {
  const hash = rest.lastIndexOf("#")
  if (hash === -1 || hash === rest.length - 1) {
    return Either.left(new InvalidSessionRefError({ input, reason: "the session id after `#` is missing" }))
  }
  if (hash === 0) {
    return Either.left(new InvalidSessionRefError({ input, reason: "the location before `#` is missing" }))
  }
  return Either.right({ before: rest.slice(0, hash), id: decodeURIComponent(rest.slice(hash + 1)) })
}

/** Parses a reference's string form; anything without a known scheme is a file path. */
export const parse = (input: string): Either.Either<SessionRef, InvalidSessionRefError> => {
  if (input.length === 0) return Either.left(new InvalidSessionRefError({ input, reason: "empty" }))
  if (input.startsWith("sqlite:")) {
    return Either.map(splitId(input, input.slice("sqlite:".length)), ({ before, id }) => ({
      _tag: "Sqlite" as const,
      path: before,
      id
    }))
  }
  if (input.startsWith("postgres://") || input.startsWith("postgresql://")) {
    return Either.map(splitId(input, input), ({ before, id }) => ({ _tag: "Postgres" as const, url: before, id }))
  }
  if (input.startsWith("memory:")) {
    const rest = input.slice("memory:".length)
    const hash = rest.lastIndexOf("#")
    if (hash === -1 || hash === rest.length - 1) {
      return Either.left(new InvalidSessionRefError({ input, reason: "the session id after `#` is missing" }))
    }
    return Either.right(memory(rest.slice(0, hash), decodeURIComponent(rest.slice(hash + 1))))
  }
  if (input.startsWith("file://")) return Either.right(file(decodeURIComponent(new URL(input).pathname)))
  if (input.startsWith("file:")) return Either.right(file(input.slice("file:".length)))
  return Either.right(file(input))
}

/** A reference given as its string form (parsed) or as it is. */
export const from = (input: string | SessionRef): Either.Either<SessionRef, InvalidSessionRefError> =>
  typeof input === "string" ? parse(input) : Either.right(input)

/** The string form: a file's path as it is, the others with their scheme and `#ID`. */
export const format = (ref: SessionRef): string => {
  switch (ref._tag) {
    case "File":
      return ref.path
    case "Sqlite":
      return `sqlite:${ref.path}#${encodeURIComponent(ref.id)}`
    case "Postgres":
      return `${ref.url}#${encodeURIComponent(ref.id)}`
    case "Memory":
      return `memory:${ref.location}#${encodeURIComponent(ref.id)}`
  }
}

/** The file path of a file reference, else `undefined`. */
export const pathOf = (ref: SessionRef | undefined): string | undefined => ref?._tag === "File" ? ref.path : undefined

/** `true` when two references name the same session (same string form). */
export const equals = (a: SessionRef, b: SessionRef): boolean => format(a) === format(b)
