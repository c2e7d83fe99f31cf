/**
 * The one storage interface under `SessionManager`: a store speaks sessions and rows, not bytes.
 * Modelled on `@effect/cluster`'s `MessageStorage` (one tag, several drivers): the in-memory row
 * backend (`MemoryStore`, here) and the backend packages implement it: `@branchlog/store-jsonl`
 * (the JSONL files), `@branchlog/store-sqlite`, `@branchlog/store-postgres` (a cursor there is a
 * generation and the last sequence number; nothing here is a file, an inode or a byte count).
 *
 * A session is addressed by a `SessionRef`. Its rows are `Line.ParsedLine`s of session-core:
 * every row keeps its text (`Line.serialize` gives it back byte for byte, opaque, corrupt and
 * blank lines included). A load hands the rows over folded into a `SessionState` (whose
 * `SessionState.rows` lists them again in order) with an opaque {@link Cursor}: what the manager
 * last saw. Writes happen on a {@link Held} session (`exclusive`), which checks the cursor it is
 * given; every position (`line`, `offset`) is the store's own (files: line number and byte offset).
 *
 * @since 0.1.0
 */
import type { Entry, Line, SessionState } from "@branchlog/session-core"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { ActiveOptions, ActiveResult } from "./internal/store/boundedOpen.js"
import type * as SessionRef from "./SessionRef.js"
import type {
  FileNotFoundError,
  FileSystemError,
  LockTimeoutError,
  LockUnusableError,
  NotRegularFileError
} from "./StoreError.js"
import type {
  BackendFailureError,
  SchemaTooNewError,
  SearchUnsupportedError,
  SessionFileConflictError,
  SessionNotFoundError,
  StaleCursorError
} from "./TranscriptStoreError.js"

/** What a store last showed of a session; opaque to its callers, only given back to the same store. */
export interface Cursor {
  readonly [CursorBrand]: "Cursor"
}

declare const CursorBrand: unique symbol

/** Where a row sits: its 1-based line (sequence) number and the store's offset of its first byte. */
export interface Position {
  readonly line: number
  readonly offset: number
}

/** A store was handed a cursor that no longer matches the session (see `TranscriptStoreError`). */
export { StaleCursorError } from "./TranscriptStoreError.js"

/** A session was asked for that is not in the store (see `TranscriptStoreError`). */
export { SessionNotFoundError } from "./TranscriptStoreError.js"

/** A search was asked of a store that cannot search (see `TranscriptStoreError`). */
export { SearchUnsupportedError } from "./TranscriptStoreError.js"

/**
 * The failures every store operation may have: a file operation's (`StoreError`), a reference no
 * store here serves, a schema newer than this code, and any other failure of the backend
 * (`TranscriptStoreError`).
 */
export type StoreFailure =
  | FileSystemError
  | FileNotFoundError
  | NotRegularFileError
  | LockTimeoutError
  | LockUnusableError
  | SessionRef.UnsupportedSessionRefError
  | SchemaTooNewError
  | BackendFailureError

/** One unparseable row: where it is and why. */
export interface CorruptReport {
  readonly line: number
  readonly offset: number
  readonly reason: string
}

/** One row longer than the store's ceiling: where it is and how long. */
export interface OversizedReport {
  readonly line: number
  readonly offset: number
  readonly byteLength: number
}

/** What a load found. */
export interface LoadReport {
  /** Rows that are not JSON objects (a torn tail among them), with line number and offset. */
  readonly corrupt: ReadonlyArray<CorruptReport>
  /** Rows longer than the line ceiling: never decoded, kept byte for byte, opaque in the state. */
  readonly oversized: ReadonlyArray<OversizedReport>
  /** The last row when the session did not end with `\n` (a crash mid-write); kept as it is. */
  readonly tornTail: CorruptReport | undefined
  /** The version the session declared when it was migrated on load. */
  readonly migratedFrom: number | undefined
  /** `true` when the header was missing or not the first row, and was recovered. */
  readonly recoveredCorruptHeader: boolean
  /** Backups written before a rewrite (migration, header recovery). */
  readonly backups: ReadonlyArray<string>
  /** `true` when the session was rewritten on load (writable loads only). */
  readonly rewritten: boolean
  /** Bytes this load read (a cache hit reads only the new tail). */
  readonly bytesRead: number
  /** `true` when the state came from the store's cache (plus the new tail, if any). */
  readonly fromCache: boolean
}

/** An empty report. */
export const emptyReport: LoadReport = {
  corrupt: [],
  oversized: [],
  tornTail: undefined,
  migratedFrom: undefined,
  recoveredCorruptHeader: false,
  backups: [],
  rewritten: false,
  bytesRead: 0,
  fromCache: false
}

/** A loaded session. */
export interface Loaded {
  /** `false` when there is no session (or an empty one) there: the caller starts a new one. */
  readonly exists: boolean
  /** Every row (recovered and migrated when needed), folded; `SessionState.rows` lists them (blank lines aside). */
  readonly state: SessionState.SessionState
  /**
   * Every row in order, blank lines included (a fresh array, built on demand from the state and the
   * blank lines the store kept): with `report.tornTail` telling whether the last one ended with a
   * newline, what an exact copy of the session writes (`Line.serialize` of each).
   */
  readonly rows: () => Array<Line.ParsedLine>
  /** What the state matches; `undefined` when nothing exists. */
  readonly cursor: Cursor | undefined
  /** The position after the last row (line = rows so far). */
  readonly end: Position
  /** Id of the last row in order (the `parentId` of a leaf control). */
  readonly tailId: string | null
  /** `true` when any message is an assistant message. */
  readonly hasAssistant: boolean
  readonly report: LoadReport
}

/** Options of a load. */
export interface LoadOptions {
  /** Never write (migration and header recovery happen in memory only); default `false`. */
  readonly readOnly?: boolean
  /** May use the store's cache of loaded sessions (default `true`). */
  readonly cache?: boolean
  /** The working folder a recovered header gets. */
  readonly cwd: string
  /** Options of the exclusive hold a rewrite on load takes. */
  readonly lock?: HoldOptions
}

/** What changed since a cursor. */
export type Changes =
  | { readonly _tag: "Unchanged" }
  | {
    readonly _tag: "Appended"
    /** The rows appended since, in order, at their positions. */
    readonly rows: ReadonlyArray<Line.ParsedLine>
    readonly cursor: Cursor
    readonly end: Position
  }
  | { readonly _tag: "Replaced" }
  | { readonly _tag: "Missing" }

/** The result of a write of rows. */
export interface Appended {
  readonly cursor: Cursor
  /** Where each written row landed. */
  readonly positions: ReadonlyArray<Position>
  readonly end: Position
}

/** One stored row as {@link TranscriptStoreShape.streamRows} gives it: its text, and `false` for a last row written without its end (a torn tail). */
export interface StoredRow {
  readonly text: string
  readonly terminated: boolean
}

/** Options of a write. */
export interface WriteOptions {
  /** `"fsync"`: durable before it returns (default `"none"`). */
  readonly durability?: "none" | "fsync"
  /**
   * `create` only: the last row ends without its newline, as in a session whose last write was
   * torn (`report.tornTail` of its load), so that a copy of it is exact. A later append to such a
   * session starts on a new line, as it does after any torn row.
   */
  readonly unterminated?: boolean
}

/** A session held exclusively (against every writer of every process or host the store serves). */
export interface Held {
  readonly ref: SessionRef.SessionRef
  /** What changed since `cursor` (no I/O when this hold wrote `cursor` last and nobody else wrote since). */
  readonly changes: (cursor: Cursor) => Effect.Effect<Changes, StoreFailure>
  /** `true` when this hold vouches for `cursor` (it wrote it last): an append needs no check. */
  readonly vouches: (cursor: Cursor) => boolean
  /**
   * Optional fast path: appends at once, synchronously, when this hold vouches for `cursor` and can
   * write without waiting (files: through the descriptor it holds open); `undefined` when it cannot
   * (the caller then uses `append`). A store without such a path leaves it out.
   */
  readonly unsafeAppendVouched?: (
    cursor: Cursor,
    rows: ReadonlyArray<string>,
    options?: WriteOptions
  ) => Either.Either<Appended, StoreFailure> | undefined
  /** Writes the first rows of a new session (its header first); fails if the session has rows. */
  readonly create: (
    rows: ReadonlyArray<string>,
    options?: WriteOptions
  ) => Effect.Effect<Appended, StoreFailure | SessionFileConflictError>
  /** Appends rows' texts (no `\n` inside) after the rows `cursor` saw; `StaleCursorError` if it is not current. */
  readonly append: (
    cursor: Cursor,
    rows: ReadonlyArray<string>,
    options?: WriteOptions
  ) => Effect.Effect<Appended, StoreFailure | StaleCursorError>
  /**
   * Replaces every row (`[]`: empties the session), keeping a backup labelled `backup` (a lower-case
   * word) when given, and loads the result. Returns the backup's name.
   */
  readonly replace: (
    rows: ReadonlyArray<Line.ParsedLine>,
    options: { readonly backup?: string; readonly cwd: string }
  ) => Effect.Effect<{ readonly backup: string | undefined; readonly loaded: Loaded }, StoreFailure>
}

/**
 * What a listing says of one session, whatever the store (the same fields for every backend: the
 * conformance suite's listing group holds them to it); `SessionListing.infoReader` reads it from rows.
 */
export interface SessionInfo {
  /** Where the session is, as the store names it (files: the file's path; SQL: the reference). */
  readonly path: string
  readonly id: string
  /** The header's cwd (`""` if absent). */
  readonly cwd: string
  readonly name?: string
  readonly parentSessionPath?: string
  readonly created: Date
  /** Time of the latest user or assistant message (else the header's time, else the store's write time). */
  readonly modified: Date
  /** Every `message` entry. */
  readonly messageCount: number
  /** The first user message's text, or `"(no messages)"`. */
  readonly firstMessage: string
  /**
   * The text of every user and assistant message, joined by spaces (the first
   * `SessionListing.MAX_ALL_MESSAGES_TEXT` characters of it: a transcript of gigabytes has more text
   * than a string can hold).
   */
  readonly allMessagesText: string
}

/** Progress of a listing: sessions done so far, of how many. */
export type OnProgress = (loaded: number, total: number) => void

/**
 * How a hold waits, whatever the store: every backend reads these (the JSONL store's transcript
 * lock takes more, `TranscriptLock.LockOptions`, which extends them).
 */
export interface HoldOptions {
  /** How long to wait for the hold (default 60 s; `Infinity` waits for ever), then `LockTimeoutError`. */
  readonly timeoutMs?: number
  /** Age after which a holder whose liveness cannot be confirmed (another host's) is taken over (default 30 min). */
  readonly staleMs?: number
  /** Delay between attempts while another holds it (the store's default). */
  readonly retryMs?: number
}

/** One session of a listing. */
export interface SessionSummary extends SessionInfo {
  readonly ref: SessionRef.SessionRef
}

/**
 * Which sessions a listing covers: one location (a folder, for files), or all of the store's
 * (where "all" is for a store to say: the JSONL store's agent folder is one of its options).
 */
export interface ListQuery {
  /** The location (files: a folder); absent: every session the store holds. */
  readonly location?: string
  /** Sessions read at once, for stores that read them one by one (default 8). */
  readonly concurrency?: number
  readonly onProgress?: OnProgress
}

/** A text search over the messages of a store's sessions. */
export interface SearchQuery {
  /** The words to find (the store's own query syntax: FTS5 for SQLite, `websearch_to_tsquery` for PostgreSQL). */
  readonly text: string
  /** The location searched (files: a folder, SQL: the database); absent: every session the store holds. */
  readonly location?: string
  /** At most this many hits, best first (default 20). */
  readonly limit?: number
}

/** One message found by a search. */
export interface SearchHit {
  readonly ref: SessionRef.SessionRef
  /** The id of the message entry. */
  readonly entryId: string
  /** The message's role (`user`, `assistant`, `toolResult`, …). */
  readonly role: string
  readonly timestamp: string | undefined
  /** A short excerpt around the match, the matched words between `[` and `]`. */
  readonly snippet: string
  /** Higher is better; comparable only within one search. */
  readonly score: number
}

// the bounded open's types (`loadActive`): in a module of their own, part of this one's API
export type { ActiveLoaded, ActiveOptions, ActiveResult, IndexFollower } from "./internal/store/boundedOpen.js"

/** The service. */
export interface TranscriptStoreShape {
  /** The backend's name (`jsonl`, `memory`, `sqlite`, …). */
  readonly name: string
  /** The reference in its canonical form (files: an absolute path); fails for a kind this store does not serve. */
  readonly resolve: (ref: SessionRef.SessionRef) => Effect.Effect<SessionRef.SessionRef, StoreFailure>
  /**
   * Where the sessions of `cwd` go when the caller names no location: the store's own default
   * (files: the agent folder's `sessions/--<cwd>--`; memory: `cwd`; a database: the one its
   * options name, else `BackendFailureError`, operation `defaultLocation`).
   */
  readonly defaultLocation: (cwd: string) => Effect.Effect<string, StoreFailure>
  /** A location in its canonical form (files: an absolute folder). */
  readonly resolveLocation: (location: string) => string
  /** The location a session belongs to (files: its folder). */
  readonly locationOf: (ref: SessionRef.SessionRef) => string
  /** The reference a new session gets in `location` (files: `<time>_<id>.jsonl` in the folder). */
  readonly refFor: (location: string, header: Entry.SessionHeader) => SessionRef.SessionRef
  /** The position after a row of `text` at `position` (files: bytes plus the newline) in the session `ref`. */
  readonly positionAfter: (position: Position, text: string, ref?: SessionRef.SessionRef) => Position
  /** Loads a session (a missing or empty one gives `exists: false`). */
  readonly load: (ref: SessionRef.SessionRef, options: LoadOptions) => Effect.Effect<Loaded, StoreFailure>
  /**
   * Optional bounded open (`SessionManager.resume`): the active path since the last compaction,
   * in time and memory bounded by that path, not by the session (files: through a sidecar index;
   * SQL: by queries). Contract: the state's leaf, append parent, labels, name and the context at
   * the leaf (`SessionContext.fromPath(state, [...before, ...path])`) are exactly a full load's;
   * whenever the store cannot be sure of that it answers `Full` with a full load (which a
   * missing or empty session always is). A store without it is opened with `load`.
   */
  readonly loadActive?: (
    ref: SessionRef.SessionRef,
    options: ActiveOptions
  ) => Effect.Effect<ActiveResult, StoreFailure>
  /**
   * Optional: the session's rows as stored, in order, streamed (no recovery, no migration, nothing
   * held but the rows in flight): what a copy of a current session reads. A store that leaves it
   * out is read by `load`. A session with no rows is an empty stream.
   */
  readonly streamRows?: (ref: SessionRef.SessionRef) => Stream.Stream<StoredRow, StoreFailure>
  /** What changed since `cursor`, without holding the session. */
  readonly changes: (ref: SessionRef.SessionRef, cursor: Cursor) => Effect.Effect<Changes, StoreFailure>
  /** Runs `use` holding the session exclusively (re-entrant on one fiber). */
  readonly exclusive: <A, E, R>(
    ref: SessionRef.SessionRef,
    use: (held: Held) => Effect.Effect<A, E, R>,
    options?: { readonly lock?: HoldOptions }
  ) => Effect.Effect<A, E | StoreFailure, R>
  /**
   * Optional fast path for one write outside any hold: in ONE synchronous step, takes the hold if
   * nobody holds or waits for it, checks that the session is exactly as `cursor` saw it, appends
   * the texts `rows()` builds then (at most once, after the check; `[]` writes nothing) and lets
   * go. `undefined` when it cannot do so at once (contended, changed since `cursor`, durability
   * `"fsync"`, anything unusual: nothing was written, `rows` was not called or its texts were
   * dropped; the caller takes `exclusive`). A store without such a path leaves it out.
   */
  readonly unsafeAppendLocked?: (
    fiber: Fiber.RuntimeFiber<unknown, unknown>,
    ref: SessionRef.SessionRef,
    cursor: Cursor,
    rows: () => ReadonlyArray<string>,
    options?: WriteOptions & { readonly lock?: HoldOptions | undefined }
  ) => Either.Either<Appended, StoreFailure> | undefined
  /** The sessions of a location (or all), newest first, with their summary fields. */
  readonly list: (query: ListQuery) => Effect.Effect<Array<SessionSummary>, StoreFailure>
  /** The most recently modified session of a location. */
  readonly mostRecent: (location: string) => Effect.Effect<Option.Option<SessionRef.SessionRef>>
  /** Removes a session (its rows; a file store leaves its backups). */
  readonly remove: (ref: SessionRef.SessionRef) => Effect.Effect<void, StoreFailure | SessionNotFoundError>
  /** Optional: finds messages by text, best first (a store without an index of message text leaves it out). */
  readonly search?: (
    query: SearchQuery
  ) => Effect.Effect<ReadonlyArray<SearchHit>, StoreFailure | SearchUnsupportedError>
  /**
   * Optional: a signal each time the session may have changed (SQL: a notification per commit; a
   * follower then asks `changes` with its cursor, so a missed or doubled signal loses nothing). A
   * store without it is followed by polling.
   */
  readonly watch?: (ref: SessionRef.SessionRef) => Stream.Stream<void, StoreFailure>
}

/** The TranscriptStore service tag. */
export class TranscriptStore extends Context.Tag("@branchlog/session-store/TranscriptStore")<
  TranscriptStore,
  TranscriptStoreShape
>() {}
