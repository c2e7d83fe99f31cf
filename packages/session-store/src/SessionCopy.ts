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
import { Entry, Line } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { SessionFileConflictError } from "./SessionError.js"
import * as SessionRef from "./SessionRef.js"
import type { Cursor, StoreFailure, TranscriptStoreShape } from "./TranscriptStore.js"
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

/** Rows written at once by a streamed copy (one `append` each after the first). */
const BATCH = 2_000

/** Copies the session `from` to `to` (which must not hold a session yet); `cwd` is what a recovered header gets. */
export const copy = (
  from: string | SessionRef.SessionRef,
  to: Destination,
  options: { readonly cwd?: string; readonly durability?: "none" | "fsync" } = {}
): Effect.Effect<Copied, CopyError, TranscriptStore> =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const source = yield* store.resolve(yield* SessionRef.from(from))
    if (store.streamRows !== undefined) {
      const streamed = yield* copyStreamed(store, source, to, options)
      if (streamed !== undefined) return streamed
    }
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

/**
 * The copy of a session whose rows need nothing done to them (a current-version header is its
 * first row, and its last row is whole), streamed from the store's rows in batches: created with
 * the first batch, appended with each next one, so that nothing but a batch is held. `undefined`
 * for any other session (an old version, a header to recover, a torn tail, no rows): the caller
 * loads it whole.
 */
const copyStreamed = (
  store: TranscriptStoreShape,
  source: SessionRef.SessionRef,
  to: Destination,
  options: { readonly durability?: "none" | "fsync" }
): Effect.Effect<Copied | undefined, CopyError> =>
  Effect.gen(function*() {
    const rows = store.streamRows!(source)
    // the first row that is neither blank nor corrupt decides (what a load recovers or migrates)
    const first = yield* rows.pipe(
      Stream.zipWithIndex,
      Stream.map(([row, i]) => ({ row, parsed: Line.parse(row.text, i + 1, i) })),
      Stream.filter(({ parsed }) => parsed._tag !== "Blank" && parsed._tag !== "Corrupt"),
      Stream.runHead,
      // a missing session: the whole load says so
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(Option.none()))
    )
    if (Option.isNone(first)) return undefined
    const { parsed } = first.value
    if (parsed._tag !== "Header" || parsed.line !== 1) return undefined
    if ((parsed.header.version ?? 1) < Entry.CURRENT_SESSION_VERSION) return undefined
    // a torn last row is written by `create` alone (`unterminated`): such a session is loaded whole
    const last = yield* Stream.runLast(rows)
    if (Option.isSome(last) && !last.value.terminated) return undefined
    const target = yield* store.resolve(
      to._tag === "Session" ? to.ref : store.refFor(store.resolveLocation(to.location), parsed.header)
    )
    const write = { ...(options.durability === undefined ? {} : { durability: options.durability }) }
    return yield* store.exclusive(target, (held) =>
      Effect.gen(function*() {
        let cursor: Cursor | undefined
        let count = 0
        yield* Stream.runForEach(Stream.grouped(rows, BATCH), (batch) =>
          Effect.gen(function*() {
            const texts = Array.from(batch, (row) => row.text)
            count += texts.length
            cursor = cursor === undefined
              ? (yield* held.create(texts, write)).cursor
              : (yield* held.append(cursor, texts, write)).cursor
          }))
        return { from: source, to: target, rows: count }
      })).pipe(
        // the session is held, and each append follows the cursor of the one before: never stale
        Effect.catchTag("StaleCursorError", Effect.die)
      )
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
