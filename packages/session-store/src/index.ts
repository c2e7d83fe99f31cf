/**
 * `@branchlog/session-store`: Effect persistence for session transcripts. This release holds the
 * file-level services (`TranscriptFile`, `FileSnapshot`, `TranscriptLock`) and their errors;
 * `SessionManager`, `SessionCatalog` and `Repair` build on them.
 *
 * @since 0.1.0
 */

/** Errors of the file-level services (path, offset, lock holder). */
export * as StoreError from "./StoreError.js"

/** The bytes of a transcript: streamed lines with offsets, tail reads, one-write appends, atomic rewrites, backups. */
export * as TranscriptFile from "./TranscriptFile.js"

/** The fingerprint of a transcript and its classification: unchanged, appended, replaced, missing. */
export * as FileSnapshot from "./FileSnapshot.js"

/** The exclusive cross-process lock per transcript. */
export * as TranscriptLock from "./TranscriptLock.js"
