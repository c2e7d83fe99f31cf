/**
 * `@branchlog/store-jsonl`: the JSONL file backend of `@branchlog/session-store`'s storage
 * interface, the pi / OpenClaw session format on disk. The file-level services (`TranscriptFile`,
 * `FileSnapshot`, `TranscriptLock`), the store over them (`JsonlStore`), the Node and memory layers
 * (`SessionStore`), the listing of session folders (`SessionCatalog`), the sidecar index's
 * `SessionOutline`, `fsck` / `repair` of files, and oversized lines.
 *
 * @since 0.2.0
 */

/** The bytes of a transcript: streamed lines with offsets, tail reads, one-write appends, atomic rewrites, backups. */
export * as TranscriptFile from "./TranscriptFile.js"

/** The fingerprint of a transcript and its classification: unchanged, appended, replaced, missing. */
export * as FileSnapshot from "./FileSnapshot.js"

/** The exclusive cross-process lock per transcript. */
export * as TranscriptLock from "./TranscriptLock.js"

/** Finding sessions on disk: default folders, list, listAll, findMostRecent. */
export * as SessionCatalog from "./SessionCatalog.js"

/** The one rule of what is a session file and what is a side file (backups, temporaries, locks, indexes). */
export * as SessionFiles from "./SessionFiles.js"

/** Lines longer than the line ceiling: opaque rows that keep where their bytes are. */
export * as OversizedLine from "./OversizedLine.js"

/** The Node and memory layers of every file-level service. */
export * as SessionStore from "./SessionStore.js"

/** The JSONL file backend of the storage interface. */
export * as JsonlStore from "./JsonlStore.js"

/** A JSONL session's counts and tree from its sidecar index, without reading the session. */
export * as SessionOutline from "./SessionOutline.js"

/** `fsck` and `repair` of session files: the pure half re-exported, and `check`, `scan`, `repair` of a file under its lock. */
export * as Repair from "./Repair.js"

/** `@branchlog/session-store`'s `StoreRouter` with the layers whose default store is the JSONL files. */
export * as StoreRouter from "./StoreRouter.js"

/** The in-memory filesystem and process table behind every `layerMemory` (fast tests). */
export * as MemoryFileSystem from "./MemoryFileSystem.js"
