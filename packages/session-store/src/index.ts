/**
 * `@branchlog/session-store`: the storage interface of session transcripts and what stands on
 * it, whatever the backend: `TranscriptStore` with `SessionRef` and the errors every store raises,
 * the public facade `SessionManager`, `prepareForRun`, the in-memory backend `MemoryStore`,
 * `StoreRows` and `PathIndex` for row backends, `StoreRouter`, `SessionCopy`, `SessionFollow`, the
 * listing's definition, the pure half of repair, and (in `/testing`) the conformance suite every
 * backend runs. The backends are packages of their own: `@branchlog/store-jsonl` (JSONL files),
 * `@branchlog/store-sqlite`, `@branchlog/store-postgres`. No Node module is imported here.
 *
 * @since 0.1.0
 */

/** Errors of file-level backends (path, offset, lock holder): part of every store's failures. */
export * as StoreError from "./StoreError.js"

/** Errors of the session manager. */
export * as SessionError from "./SessionError.js"

/** Where entry ids and session ids come from (injectable; deterministic for tests). */
export * as IdSource from "./IdSource.js"

/** The optional observer of verified appends. */
export * as TranscriptObserver from "./TranscriptObserver.js"

/** The public facade over one session: factories, appends, branching, reads. */
export * as SessionManager from "./SessionManager.js"

/** The pure half of `fsck` and `repair`: typed findings of rows, a plan, the repaired rows. */
export * as Repair from "./Repair.js"

/** spec §12's preparation of a manager for an agent run. */
export * as PrepareForRun from "./PrepareForRun.js"

/** The one storage interface under SessionManager: sessions and rows, an opaque cursor, exclusive holds. */
export * as TranscriptStore from "./TranscriptStore.js"

/** The errors every store raises, whatever its backend: a schema too new, a backend's failure, a stale cursor, no such session, no search, a conflicting create. */
export * as TranscriptStoreError from "./TranscriptStoreError.js"

/** The in-memory row backend of the storage interface. */
export * as MemoryStore from "./MemoryStore.js"

/** For row backends of the storage interface: row positions, a generation cursor, folding, recovery, summaries. */
export * as StoreRows from "./StoreRows.js"

/** The address of a session, with a string form (a path, `sqlite:PATH#ID`, `postgres://…#ID`, `memory:LOC#ID`). */
export * as SessionRef from "./SessionRef.js"

/** One storage interface over several backends: a driver per kind of reference, the store in context for the rest. */
export * as StoreRouter from "./StoreRouter.js"

/** Copying sessions between any two stores, row for row (file → database → file is byte-identical). */
export * as SessionCopy from "./SessionCopy.js"

/** Following a session: the rows others append, in order, none twice, driven by the store's `watch` or a poll. */
export * as SessionFollow from "./SessionFollow.js"

/** The one definition of a listing's `SessionInfo`, read from a session's rows by every backend. */
export * as SessionListing from "./SessionListing.js"

/** For backends: the summary of a session's active path, its row table and id set, the catch-up and view of a bounded open. */
export * as PathIndex from "./PathIndex.js"
