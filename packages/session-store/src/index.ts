/**
 * `@branchlog/session-store`: Effect persistence for session transcripts. The storage interface
 * (`TranscriptStore`, with the `JsonlStore` and `MemoryStore` backends and `SessionRef`), the file-level services
 * (`TranscriptFile`, `FileSnapshot`, `TranscriptLock`), the public facade `SessionManager`, the
 * listing `SessionCatalog`, `prepareForRun`, and their errors and layers.
 *
 * @since 0.1.0
 */

/** Errors of the file-level services (path, offset, lock holder). */
export * as StoreError from "./StoreError.js"

/** Errors of the session manager and the catalog. */
export * as SessionError from "./SessionError.js"

/** The bytes of a transcript: streamed lines with offsets, tail reads, one-write appends, atomic rewrites, backups. */
export * as TranscriptFile from "./TranscriptFile.js"

/** The fingerprint of a transcript and its classification: unchanged, appended, replaced, missing. */
export * as FileSnapshot from "./FileSnapshot.js"

/** The exclusive cross-process lock per transcript. */
export * as TranscriptLock from "./TranscriptLock.js"

/** Where entry ids and session ids come from (injectable; deterministic for tests). */
export * as IdSource from "./IdSource.js"

/** The optional observer of verified appends. */
export * as TranscriptObserver from "./TranscriptObserver.js"

/** The public facade over one session: factories, appends, branching, reads. */
export * as SessionManager from "./SessionManager.js"

/** Finding sessions on disk: default folders, list, listAll, findMostRecent. */
export * as SessionCatalog from "./SessionCatalog.js"

/** The one rule of what is a session file and what is a side file (backups, temporaries, locks, indexes). */
export * as SessionFiles from "./SessionFiles.js"

/** Lines longer than the line ceiling: opaque rows that keep where their bytes are. */
export * as OversizedLine from "./OversizedLine.js"

/** `fsck` and `repair` as a library: typed findings, a pure plan, a streamed repair with a backup. */
export * as Repair from "./Repair.js"

/** spec §12's preparation of a manager for an agent run. */
export * as PrepareForRun from "./PrepareForRun.js"

/** The Node and memory layers of every file-level service. */
export * as SessionStore from "./SessionStore.js"

/** The one storage interface under SessionManager: sessions and rows, an opaque cursor, exclusive holds. */
export * as TranscriptStore from "./TranscriptStore.js"

/** The errors every store raises, whatever its backend: a schema too new, a backend's failure, a stale cursor, no such session, no search, a conflicting create. */
export * as TranscriptStoreError from "./TranscriptStoreError.js"

/** The JSONL file backend of the storage interface. */
export * as JsonlStore from "./JsonlStore.js"

/** The in-memory row backend of the storage interface. */
export * as MemoryStore from "./MemoryStore.js"

/** For row backends of the storage interface: row positions, a generation cursor, folding, recovery, summaries. */
export * as StoreRows from "./StoreRows.js"

/** The address of a session, with a string form (a path, `sqlite:PATH#ID`, `postgres://…#ID`, `memory:LOC#ID`). */
export * as SessionRef from "./SessionRef.js"

/** One storage interface over several backends: a driver per kind of reference, the JSONL files for the rest. */
export * as StoreRouter from "./StoreRouter.js"

/** Copying sessions between any two stores, row for row (file → database → file is byte-identical). */
export * as SessionCopy from "./SessionCopy.js"

/** Following a session: the rows others append, in order, none twice, driven by the store's `watch` or a poll. */
export * as SessionFollow from "./SessionFollow.js"

/** A JSONL session's counts and tree from its sidecar index, without reading the session. */
export * as SessionOutline from "./SessionOutline.js"
