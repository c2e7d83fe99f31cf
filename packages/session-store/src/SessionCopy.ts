/**
 * Copying sessions between stores, whatever they are: a session's rows go over as they are (their
 * raw text, opaque, corrupt and blank rows included, a torn last row kept torn), so a copy from a
 * file into a database and back is byte-identical. The copy keeps the session's id; where it lands
 * is the destination store's choice (`refFor`: a file named by time and id in a folder, the id
 * in a database). An old version is copied as its migrated form (what a load of it gives).
 *
 * ```ts
 * const { to } = yield* SessionCopy.copy("./s.jsonl", "sqlite:./team.db")
 * SessionRef.format(to) // "sqlite:/abs/team.db#<session id>"
 * ```
 *
 * @since 0.1.0
 */
import { Line } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { SessionFileConflictError } from "./SessionError.js"
import * as SessionRef from "./SessionRef.js"
import type { StoreFailure } from "./TranscriptStore.js"
import { SessionNotFoundError, TranscriptStore } from "./TranscriptStore.js"

/** A session that cannot be copied: it has no header to take an id from. */
export class NotASessionError extends Schema.TaggedError<NotASessionError>()("NotASessionError", {
  ref: Schema.String
}) {
  /** Names the session. */
  override get message(): string {
    return `not a session (no header to copy it by): ${this.ref}`
  }
}

/** Where a copy goes: a session reference, or a location of a store (files: a folder) it gets its name in. */
export type Destination =
  | { readonly _tag: "Session"; readonly ref: SessionRef.SessionRef }
  | { readonly _tag: "Location"; readonly location: string }

/** The failures of a copy. */
export type CopyError =
  | StoreFailure
  | SessionNotFoundError
  | SessionFileConflictError
  | NotASessionError
  | SessionRef.InvalidSessionRefError

/** What a copy did: the source and the copy, each in its canonical form. */
export interface Copied {
  readonly from: SessionRef.SessionRef
  readonly to: SessionRef.SessionRef
  /** Rows copied (blank ones included). */
  readonly rows: number
}

/** Copies the session `from` to `to` (which must not hold a session yet); `cwd` is what a recovered header gets. */
export const copy = (
  from: string | SessionRef.SessionRef,
  to: Destination,
  options: { readonly cwd?: string; readonly durability?: "none" | "fsync" } = {}
): Effect.Effect<Copied, CopyError, TranscriptStore> =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const source = yield* store.resolve(yield* SessionRef.from(from))
    const cwd = options.cwd ?? ""
    const loaded = yield* store.load(source, { readOnly: true, cache: false, cwd })
    if (!loaded.exists) return yield* new SessionNotFoundError({ ref: SessionRef.format(source) })
    const rows = loaded.rows()
    const header = rows.find((row): row is Line.ParsedLine & { _tag: "Header" } => row._tag === "Header")
    if (header === undefined) return yield* new NotASessionError({ ref: SessionRef.format(source) })
    const target = yield* store.resolve(
      to._tag === "Session" ? to.ref : store.refFor(store.resolveLocation(to.location), header.header)
    )
    const texts = rows.map(Line.serialize)
    yield* store.exclusive(target, (held) =>
      held.create(texts, {
        unterminated: loaded.report.tornTail !== undefined,
        ...(options.durability === undefined ? {} : { durability: options.durability })
      }))
    return { from: source, to: target, rows: texts.length }
  })

/** The destination a string names: a store's location (`sqlite:PATH`, `postgres://host/db`, a folder when `isFolder`), else a session. */
export const destination = (
  text: string,
  isFolder: boolean
): Either.Either<Destination, SessionRef.InvalidSessionRefError> => {
  if (isFolder) return Either.right({ _tag: "Location", location: text })
  if (!text.includes("#") && (text.startsWith("sqlite:") || /^postgres(ql)?:\/\//.test(text))) {
    return Either.right({ _tag: "Location", location: text })
  }
  return Either.map(SessionRef.parse(text), (ref) => ({ _tag: "Session" as const, ref }))
}

/** Every session of `location` copied into `to` (a location), oldest first; one failure does not stop the others. */
export const copyAll = (
  location: string,
  to: string,
  options: {
    readonly onProgress?: (done: number, total: number) => void
    readonly durability?: "none" | "fsync"
  } = {}
): Effect.Effect<
  { readonly copied: ReadonlyArray<Copied>; readonly failed: ReadonlyArray<{ ref: string; error: CopyError }> },
  StoreFailure,
  TranscriptStore
> =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const sessions = (yield* store.list({ location })).slice().reverse()
    const copied: Array<Copied> = []
    const failed: Array<{ ref: string; error: CopyError }> = []
    let done = 0
    for (const session of sessions) {
      const result = yield* Effect.either(copy(session.ref, { _tag: "Location", location: to }, {
        cwd: session.cwd,
        ...(options.durability === undefined ? {} : { durability: options.durability })
      }))
      if (Either.isRight(result)) copied.push(result.right)
      else failed.push({ ref: SessionRef.format(session.ref), error: result.left })
      options.onProgress?.(++done, sessions.length)
    }
    return { copied, failed }
  })
