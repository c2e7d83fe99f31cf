/**
 * `fsck` and `repair` of JSONL session files: check a file for what is wrong with it (typed
 * findings, each with the line and byte offset it applies to) and mend what can be mended without
 * losing a byte (a backup of the original first, through the one destructive rewrite,
 * `TranscriptFile.replace`). Everything of `@branchlog/session-store`'s `Repair` (the pure half:
 * `diagnose`, `plan`, `apply` over rows) is re-exported here; this module adds the file half:
 * {@link check} reads a file and diagnoses it, {@link scan} checks one in one streamed pass
 * (memory: the longest line plus a small constant per entry, and invalid UTF-8 survives), and
 * {@link repair} repairs it under its lock, streaming its lines through as bytes. A new header
 * takes its id from `IdSource`, its time from `Clock` and its cwd from the caller, so tests get the
 * same bytes every run.
 *
 * What repair does: corrupt lines, a torn tail and extra headers move to a sidecar
 * (`<file>.removed-<time>.txt`, byte for byte), blank lines are dropped, a late header moves to
 * the top, a missing one is written, a missing final newline is added, a byte-order mark is
 * removed; every other row is kept as its bytes. Orphans, cycles, duplicate ids and the other
 * findings are reported, not changed (no entry is touched).
 *
 * @since 0.2.0
 */
import type { Finding, HeaderFix } from "@branchlog/session-store/Repair"
import type { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Files from "./internal/repair/files.js"
import type * as TranscriptLock from "./TranscriptLock.js"

export * from "@branchlog/session-store/Repair"

/** Errors of reading a session's lines. */
export type ReadError = FileNotFoundError | FileSystemError | NotRegularFileError

/** Errors of a repair: reading, taking the lock, rewriting. */
export type RepairError = ReadError | TranscriptLock.LockError

/** Options of a repair: the cwd of a header written where there is none, and how the lock is taken. */
export interface RepairOptions {
  /** The `cwd` a new header records (the session's working folder). */
  readonly cwd: string
  readonly lock?: TranscriptLock.LockOptions
}

/** What a repair did. */
export type Repaired =
  /** Nothing `repair` fixes was found (the findings are those of the check): nothing was written. */
  | { readonly _tag: "NothingToRepair"; readonly path: string; readonly findings: ReadonlyArray<Finding> }
  | {
    readonly _tag: "Repaired"
    readonly path: string
    /** The file rewritten: the file `path` names (a symlink's target). */
    readonly written: string
    /** The backup of the original bytes (`undefined`: the file was empty). */
    readonly backup: string | undefined
    /** The findings fixed, as the check reported them. */
    readonly fixed: ReadonlyArray<Finding>
    /** What became of the header (a new one is `Created`, with its fields). */
    readonly header: HeaderFix
    /** How many lines were moved out (corrupt lines, extra headers). */
    readonly moved: number
    /** The file holding the moved lines byte for byte (`<file>.removed-<time>.txt`), if any. */
    readonly removedLines: string | undefined
  }

/** A line of bytes that are not UTF-8: the line, its offset, and the file offset of its first invalid sequence. */
export type InvalidUtf8 = Extract<Finding, { readonly _tag: "InvalidUtf8" }>

/** Reads every line of a session file as it is on disk and diagnoses it (needs `TranscriptFile`; ids of an in-memory migration from `IdSource`). */
export const check = Files.check

/**
 * The findings of {@link check} in one streamed pass: memory is bounded by the longest line plus
 * a few tens of bytes per entry, never by the rows' content (an older version is checked whole).
 */
export const scan = Files.scan

/**
 * The lines of a file that hold bytes that are not UTF-8, in one raw read (what `check` adds to
 * its findings): every reader sees U+FFFD there, and a copy to another store writes it.
 */
export const invalidUtf8 = Files.invalidUtf8

/** Repairs a session file under its lock, with a backup (needs `TranscriptFile` and `TranscriptLock`; `IdSource` and `Clock`). */
export const repair = Files.repair
