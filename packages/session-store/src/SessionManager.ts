/**
 * The public facade over one session transcript (spec §§4-8): the factories `create`, `open`,
 * `continueRecent`, `inMemory` and `forkFrom`; the append API; branching; and every read of
 * §6, answered by session-core from the in-memory state.
 *
 * Reads are synchronous (they are pure queries of the state); everything that may touch the file
 * returns an `Effect`. A manager is single-owner: use it from one fiber at a time. Several
 * managers (in this process or others) may write one file: each write takes the transcript lock,
 * folds what others appended (without moving this manager's leaf) and appends whole lines.
 *
 * Beyond the references: `flush()` is public and `eagerFlush` writes at once (the default keeps
 * their order: nothing until the first assistant message, then header and entries in one write);
 * the header is never written twice; `branch` / `resetLeaf` / `branchWithSummary` persist the
 * position as a leaf-control row; a corrupt header is recovered with every byte kept in a backup;
 * reopening a file that only grew parses only the new bytes. Every destructive rewrite (migration
 * and header recovery on a writable open, `rewrite`, `resetTranscript`) runs under the transcript
 * lock after re-reading what changed, on the file a path names (a symlink's target).
 *
 * @since 0.1.0
 */
import type { AgentMessage, Entry, SessionContext as Context, SessionState, Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Appends from "./internal/manager/appends.js"
import { makeCore } from "./internal/manager/core.js"
import * as Factories from "./internal/manager/factories.js"
import { make } from "./internal/manager/instance.js"
import { newHeader, startNew } from "./internal/manager/load.js"
import * as Persist from "./internal/manager/persist.js"
import * as Resume from "./internal/manager/resume.js"
import type {
  AppendBatchError,
  InvalidSessionFileError,
  ReadOnlySessionError,
  SessionFileConflictError
} from "./SessionError.js"
import { ContextEditRefusedError, EntryNotFoundError, SessionNotLoadedError } from "./SessionError.js"
import type * as SessionRef from "./SessionRef.js"
import { TranscriptStore } from "./TranscriptStore.js"
import type { HoldOptions, LoadReport as StoreLoadReport, StaleCursorError, StoreFailure } from "./TranscriptStore.js"

/** What opening found: corrupt lines, a torn tail, migration, header recovery, backups, bytes read. */
export type LoadReport = StoreLoadReport

/** Options of every factory: `eagerFlush`, `durability` (`"none"` | `"fsync"`), lock options. */
export interface Options {
  /** Write every row at once instead of waiting for the first assistant message (default false). */
  readonly eagerFlush?: boolean
  /** `"fsync"` makes every append durable before it returns (default `"none"`). */
  readonly durability?: "none" | "fsync"
  /**
   * Options of the exclusive hold taken for each write, passed to the store as they are: the
   * interface's {@link HoldOptions}, and any of a backend's own (the JSONL transcript lock's
   * `graceMs`, say).
   */
  readonly lock?: HoldOptions & { readonly [backendOption: string]: unknown }
}

/** Options of `open`: also `readOnly` (migrate and recover in memory only, never write). */
export interface OpenOptions extends Options {
  readonly readOnly?: boolean
  /** Use the in-process cache of loaded transcripts (default true). */
  readonly cache?: boolean
}

/** Errors of a write. */
export type WriteError = StoreFailure | StaleCursorError | SessionFileConflictError | ReadOnlySessionError

/**
 * Errors of opening a file (a writable open that migrates or recovers the file takes the lock; a
 * folder, a FIFO or a device given as the file: `NotRegularFileError`).
 */
export type OpenError = StoreFailure | SessionRef.InvalidSessionRefError

/**
 * The one service the factories need: a store (`@branchlog/store-jsonl`'s `SessionStore.layerNode`
 * gives the JSONL one over real files, `MemoryStore.layer` one in memory).
 */
export type StoreRequirement = TranscriptStore

/**
 * A session: reads are synchronous, writes are Effects. A session opened bounded (`resume`) holds
 * only its active path until `loadFull()`: each read says below what it answers then; a read it
 * cannot answer exactly throws `SessionNotLoadedError` (it never loads, and never guesses).
 */
export interface SessionManager {
  /** The working folder the session belongs to. */
  readonly getCwd: () => string
  /** The folder new session files go to (`""` in memory). */
  readonly getSessionDir: () => string
  /** The header's id. */
  readonly getSessionId: () => string
  /** The session file, or `undefined` in memory (and for sessions of a store that is not files). */
  readonly getSessionFile: () => string | undefined
  /** The session's reference, or `undefined` in memory. */
  readonly getSessionRef: () => SessionRef.SessionRef | undefined
  /** `false` for in-memory sessions. */
  readonly isPersisted: () => boolean
  /** `true` when opened with `readOnly`. */
  readonly isReadOnly: () => boolean
  /** The visible leaf (bounded: answers). */
  readonly getLeafId: () => string | null
  /** The entry at the visible leaf (bounded: answers; the leaf is on the loaded path). */
  readonly getLeafEntry: () => Entry.Entry | undefined
  /**
   * An entry by id. Bounded: answers for an entry of the loaded path (or appended since) and
   * `undefined` for an id the session certainly does not hold; any other id throws `SessionNotLoadedError`.
   */
  readonly getEntry: (id: string) => Entry.Entry | undefined
  /**
   * The children of an entry (`null`: the roots), in file order. Bounded: `[]` for an id the
   * session certainly does not hold; else throws `SessionNotLoadedError` (any entry may have
   * children off the loaded path).
   */
  readonly getChildren: (parentId: string | null) => Array<Entry.Entry>
  /** The label of an entry (bounded: answers; the labels of the whole session are loaded). */
  readonly getLabel: (id: string) => string | undefined
  /**
   * The root-first path to `fromId` (default: the leaf). Bounded: answers when that path is whole
   * in the loaded state (the session has no compaction on the loaded path, or the path starts at a
   * root appended since) and `[]` for an id the session certainly does not hold; else (a path
   * from behind the last compaction) throws `SessionNotLoadedError`.
   */
  readonly getBranch: (fromId?: string | null) => Array<Entry.Entry>
  /** The header, or `null` (bounded: answers). */
  readonly getHeader: () => Entry.SessionHeader | null
  /** Every canonical entry in file order. Bounded: throws `SessionNotLoadedError`. */
  readonly getEntries: () => ReadonlyArray<Entry.Entry>
  /** The whole forest. Bounded: throws `SessionNotLoadedError`. */
  readonly getTree: () => Array<Tree.TreeNode>
  /** The session name (latest `session_info`; bounded: answers, the name is the whole session's). */
  readonly getSessionName: () => string | undefined
  /**
   * The LLM context at the leaf (or at `leafId`). Bounded: always answers at the leaf (a write that
   * moves the leaf where it could not loads the rest first); at another `leafId`, answers when its
   * path holds what the context takes (the loaded path from the last compaction's kept entry, or a
   * path from a root appended since), else throws `SessionNotLoadedError`.
   */
  readonly buildSessionContext: (leafId?: string | null) => Context.SessionContext
  /**
   * `true` when the path to the leaf (or to `leafId`) holds a `thinking_level_change`. Bounded:
   * answers for the leaf and every entry loaded (from the path and the settings rows before it)
   * and `false` for an id the session certainly does not hold; else throws `SessionNotLoadedError`.
   */
  readonly hasThinkingLevelChange: (leafId?: string | null) => boolean
  /**
   * The live state (for session-core queries such as `JsonView`): do not `apply` to it; `clone` to
   * keep it. Bounded: throws `SessionNotLoadedError` (`getBoundedState` gives the partial state).
   */
  readonly getState: () => SessionState.SessionState
  /**
   * A bounded session's partial state (`SessionState.fromActivePath`: the header and the active path
   * since the last compaction, with the whole session's leaf, labels and name); `undefined` once whole.
   */
  readonly getBoundedState: () => SessionState.SessionState | undefined
  /** `true` when any message on any branch is an assistant message. */
  readonly hasAssistantMessage: () => boolean
  /** `true` when the header was missing or not first and was recovered on open. */
  readonly wasRecoveredFromCorruptHeader: () => boolean
  /** What the last open (or reload) found. */
  readonly loadReport: () => LoadReport
  /** Rows applied but not yet written (waiting for the first assistant message). */
  readonly pendingCount: () => number
  /**
   * `true` while a `resume`d session holds only its active path (`getBoundedState`): the reads that
   * need the rest (`getState`, `getTree`, `getEntries`, …) throw `SessionNotLoadedError` until
   * `loadFull()`; the writes that need it load it themselves.
   */
  readonly isBounded: () => boolean
  /**
   * Loads the rest of a bounded session now, keeping the leaf and what this manager wrote (nothing
   * to do otherwise): `yield* manager.loadFull()` before a read that needs the whole session.
   */
  readonly loadFull: () => Effect.Effect<void, StoreFailure>

  /** Appends a message; returns its id. */
  readonly appendMessage: (message: AgentMessage.AgentMessage) => Effect.Effect<string, WriteError>
  /** Appends messages in order as ONE commit (each its own row, all stored or none: `AppendBatchError.written` 0). */
  readonly appendMessages: (
    messages: ReadonlyArray<AgentMessage.AgentMessage>
  ) => Effect.Effect<ReadonlyArray<string>, AppendBatchError>
  /** Appends a thinking-level change. */
  readonly appendThinkingLevelChange: (level: string) => Effect.Effect<string, WriteError>
  /** Appends a model change. */
  readonly appendModelChange: (provider: string, modelId: string) => Effect.Effect<string, WriteError>
  /** Appends a compaction (`firstKeptEntryId` `null`: keep nothing before it, stored as its own id; pi 1.6's `usage`). */
  readonly appendCompaction: (
    summary: string,
    firstKeptEntryId: string | null,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
    usage?: Entry.UsageEntry["usage"]
  ) => Effect.Effect<string, WriteError>
  /** Appends pi 1.6's `usage` entry (a model call that is not a message); returns the entry. */
  readonly appendUsage: (
    kind: string,
    provider: string,
    model: string,
    usage: Entry.UsageEntry["usage"],
    note?: string
  ) => Effect.Effect<Entry.UsageEntry, WriteError>
  /**
   * Appends pi 1.6's `context_edit` of `targetId` (`null` removes its contribution, `{content}`
   * swaps its content); returns its id. The target must be on the active branch and a user,
   * assistant or tool result message or a custom message.
   */
  readonly appendContextEdit: (
    targetId: string,
    replacement: Appends.ContextEditReplacement
  ) => Effect.Effect<string, WriteError | EntryNotFoundError | ContextEditRefusedError>
  /** Appends extension state (never in the LLM context). */
  readonly appendCustomEntry: (customType: string, data?: unknown) => Effect.Effect<string, WriteError>
  /** Appends an extension message (in the context as a `custom` message). */
  readonly appendCustomMessageEntry: (
    customType: string,
    content: Entry.CustomMessageEntry["content"],
    display: boolean,
    details?: unknown
  ) => Effect.Effect<string, WriteError>
  /** Sets (or with `undefined` / `""` clears) a label; `EntryNotFoundError` for an unknown target. */
  readonly appendLabelChange: (
    targetId: string,
    label: string | undefined
  ) => Effect.Effect<string, WriteError | EntryNotFoundError>
  /** Sets the session name (trimmed). */
  readonly appendSessionInfo: (name: string) => Effect.Effect<string, WriteError>
  /** Moves the leaf to `id`; a persisted session writes a leaf control. */
  readonly branch: (id: string) => Effect.Effect<void, WriteError | EntryNotFoundError>
  /** Moves the leaf before the first entry: the next append is a new root. */
  readonly resetLeaf: () => Effect.Effect<void, WriteError>
  /** Moves the leaf to `fromId` and appends a branch summary there (with pi 1.6's `usage`); returns its id. */
  readonly branchWithSummary: (
    fromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
    usage?: Entry.UsageEntry["usage"]
  ) => Effect.Effect<string, WriteError | EntryNotFoundError>
  /** Replaces this session by a new one holding the path to `leafId`; returns the new file. */
  readonly createBranchedSession: (leafId: string) => Effect.Effect<string | undefined, WriteError | EntryNotFoundError>
  /** Starts a fresh session; returns its file. */
  readonly newSession: (
    options?: { readonly id?: string; readonly parentSession?: string }
  ) => Effect.Effect<string | undefined, WriteError>
  /** Writes pending rows now (header included for a new file). */
  readonly flush: () => Effect.Effect<void, WriteError>
  /** Folds what other writers did to the file since this manager last saw it. */
  readonly refresh: () => Effect.Effect<void, WriteError>
  /** Holds the transcript lock across `effect` (e.g. one agent turn). */
  readonly withWriteLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | WriteError, R>
  /**
   * Sets the header's id and cwd in memory (written with the next rewrite or first flush); returns
   * whether it changed. A bounded session loads the rest first (the store's failures).
   */
  readonly setIdentity: (
    identity: { readonly sessionId: string; readonly cwd: string }
  ) => Effect.Effect<boolean, StoreFailure>
  /** Rewrites the file from the state atomically, after a backup labelled `label`; returns the backups. */
  readonly rewrite: (label?: string) => Effect.Effect<ReadonlyArray<string>, WriteError>
  /**
   * Backs the file up, empties it, and keeps only the header (pending): prepareForRun's case 2.
   * Under the lock, after folding what changed: refused (`InvalidSessionFileError`) when the file
   * meanwhile holds an assistant message.
   */
  readonly resetTranscript: () => Effect.Effect<string | undefined, WriteError | InvalidSessionFileError>
}

/**
 * A new session for `cwd`: its file is chosen in `sessionDir` (default per spec §6). Nothing is
 * written yet, unless `eagerFlush` is set: then the header is written at once, and that write
 * may fail (`WriteError`: the store's failures, or `SessionFileConflictError` when rows are
 * already stored where the new session's reference points).
 */
export const create = (
  cwd: string,
  sessionDir?: string,
  options: Options = {}
): Effect.Effect<SessionManager, WriteError, StoreRequirement> =>
  Effect.gen(function*() {
    const services = yield* Factories.servicesOf
    const dir = services.store.resolveLocation(yield* Factories.resolveDir(services.store, sessionDir, cwd))
    const core = makeCore(services, options, { cwd, sessionDir: dir, ref: undefined, persist: true })
    const header = yield* newHeader(core)
    startNew(core, [{ _tag: "Header", header }], services.store.refFor(dir, header))
    if (Persist.flushes(core)) yield* Persist.flush(core)
    return make(core)
  })

/**
 * Opens a session: a file path, a reference string (`sqlite:PATH#ID`, …) or a `SessionRef` (a
 * missing or empty session starts a new session there).
 */
export const open = (
  session: string | SessionRef.SessionRef,
  sessionDir?: string,
  cwdOverride?: string,
  options: OpenOptions = {}
): Effect.Effect<SessionManager, OpenError, StoreRequirement> =>
  Factories.open(session, sessionDir, cwdOverride, options)

/** Options of `resume`: those of `open`, and whether the store may write its index. */
export interface ResumeOptions extends Options {
  readonly readOnly?: boolean
  /**
   * May write the sidecar index (files: `<file>.index`) when it is missing, damaged or behind;
   * default: unless `readOnly` (a read-only resume uses a valid index and writes nothing).
   */
  readonly writeIndex?: boolean
}

/**
 * Opens a session bounded (issue 16): through the store's index, only the active path from the
 * last compaction's kept entry (or from the root) to the leaf is read, so resuming costs that
 * path, not the session. The leaf, the header, the name, the labels and the context at the leaf
 * are exactly `open`'s, and so are the reads of entries on that path; appends, labels and names,
 * and branching on that path work at once. The writes that need the rest (a branch elsewhere, a
 * fork, a rewrite, rows that other writers appended) load it first, as an effect. The synchronous
 * reads never load: those the loaded path cannot answer exactly (`getTree`, `getEntries`,
 * `getState`, `getChildren`, `getBranch` from behind the last compaction, a context or an entry
 * off the path) throw `SessionNotLoadedError`; run `yield* manager.loadFull()` before them (each
 * read's documentation says what it answers bounded). A store without a bounded open
 * (`loadActive`) opens fully, and every read answers.
 */
export const resume = (
  session: string | SessionRef.SessionRef,
  sessionDir?: string,
  cwdOverride?: string,
  options: ResumeOptions = {}
): Effect.Effect<SessionManager, OpenError, StoreRequirement> =>
  Factories.opening(session, sessionDir, cwdOverride, options, (core, ref) =>
    Resume.resumeInto(core, ref, {
      readOnly: options.readOnly ?? false,
      writeIndex: options.writeIndex ?? options.readOnly !== true
    }))

/**
 * `read(manager)` as an effect that a bounded session answers too: from what it holds when the
 * read can be answered from that (nothing loaded), else after `manager.loadFull()` (the read
 * threw `SessionNotLoadedError`; reads have no side effects, so it is asked again). Any other
 * throw is a defect.
 */
export const reading = <A>(
  manager: SessionManager,
  read: (manager: SessionManager) => A
): Effect.Effect<A, StoreFailure> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(read(manager))
    } catch (error) {
      if (!(error instanceof SessionNotLoadedError)) return Effect.die(error)
      return Effect.zipRight(manager.loadFull(), Effect.sync(() => read(manager)))
    }
  })

/** Opens the most recent session of the folder (by mtime), or creates a new one (`WriteError`: see `create`). */
export const continueRecent = (
  cwd: string,
  sessionDir?: string,
  options: Options = {}
): Effect.Effect<SessionManager, OpenError | WriteError, StoreRequirement> =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    const dir = yield* Factories.resolveDir(store, sessionDir, cwd)
    const recent = yield* store.mostRecent(dir)
    return Option.isSome(recent) ? yield* open(recent.value, dir, undefined, options) : yield* create(cwd, dir, options)
  })

/** A session that never touches disk. */
export const inMemory = (
  cwd: string = process.cwd(),
  options: Options = {}
): Effect.Effect<SessionManager, never, StoreRequirement> =>
  Effect.gen(function*() {
    const core = makeCore(yield* Factories.servicesOf, options, { cwd, sessionDir: "", ref: undefined, persist: false })
    startNew(core, [{ _tag: "Header", header: yield* newHeader(core) }], undefined)
    return make(core)
  })

/**
 * A new session in `sessionDir` (default: `targetCwd`'s folder) holding every row of
 * `sourcePath` under a fresh header (`parentSession` = the source); written at once, then opened.
 * `targetCwd` `undefined` keeps the source's working folder (read from the same open).
 */
export const forkFrom = (
  source: string | SessionRef.SessionRef,
  targetCwd: string | undefined,
  sessionDir?: string,
  options: Options = {}
): Effect.Effect<SessionManager, OpenError | InvalidSessionFileError | WriteError, StoreRequirement> =>
  Factories.fork(source, targetCwd, sessionDir, options)

/** `Entry <id> not found`. */
export { EntryNotFoundError }

/** A synchronous read of a bounded session that needs the rest of it: `yield* manager.loadFull()` first. */
export { SessionNotLoadedError }

/** `appendContextEdit` refused its target (off the active branch, not editable) or its replacement. */
export { ContextEditRefusedError }
