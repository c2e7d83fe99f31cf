/**
 * The narrow primitive filesystem + process interface that the file-level services are written
 * against. Two implementations: `nodeBackend.ts` (node:fs, bigint stat, fsync, O_APPEND) and
 * `memoryBackend.ts` (an in-memory volume for tests).
 */
import type { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Context from "effect/Context"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

/** What the services need from a stat. */
export interface StatInfo {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: number
  readonly mtimeNs: bigint
  readonly mode: number
  /** Owner and group (0 where the platform has none). */
  readonly uid: number
  readonly gid: number
}

/** What a name is, without following a symlink at it. */
export type PathKind = "file" | "symlink" | NotRegularFileError["kind"]

/** An `lstat`: the kind of the name itself and its identity. */
export interface LinkInfo {
  readonly kind: PathKind
  readonly ino: bigint
  readonly mtimeNs: bigint
}

/** A file opened for positional reads. */
export interface ReadHandle {
  /** Reads up to `length` bytes at `position`; an empty result means end of file. */
  readonly read: (position: number, length: number) => Effect.Effect<Uint8Array, FileSystemError>
  /**
   * Reads up to `into.length` bytes at `position` into `into` (a buffer the caller reuses from
   * read to read: no fresh memory per read); gives how many, fewer only at the end of file.
   */
  readonly readInto: (position: number, into: Uint8Array) => Effect.Effect<number, FileSystemError>
}

/**
 * A file opened for synchronous positional reads (`Backend.unsafeOpenRead`): what answers the
 * synchronous questions of a bounded session (its sidecar index's id set, an outline's rows, a
 * listing's lazy text) without running an effect synchronously. Close it once, when done.
 */
export interface SyncReadHandle {
  /** Reads up to `length` bytes at `position`; an empty result means end of file. */
  readonly unsafeRead: (position: number, length: number) => Either.Either<Uint8Array, FileSystemError>
  /** Reads up to `into.length` bytes at `position` into `into`; gives how many, fewer only at the end of file. */
  readonly unsafeReadInto: (position: number, into: Uint8Array) => Either.Either<number, FileSystemError>
  /** Closes the file; idempotent, never throws. */
  readonly unsafeClose: () => void
}

/** Opens a file for reads in a scope (closed with it): `unsafeOpenRead` as effects. */
export const openRead = (
  backend: Backend,
  path: string
): Effect.Effect<ReadHandle, FileNotFoundError | FileSystemError | NotRegularFileError, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(Effect.suspend(() => backend.unsafeOpenRead(path)), (handle) =>
      Effect.sync(handle.unsafeClose)),
    (handle): ReadHandle => ({
      read: (position, length) =>
        Effect.suspend(() => handle.unsafeRead(position, length)),
      readInto: (position, into) => Effect.suspend(() => handle.unsafeReadInto(position, into))
    })
  )

/**
 * Opens `path` for synchronous reads, gives the handle to `use` and closes it after, whatever
 * `use` returns or throws; a failed open is `use`'s `Left`.
 */
export const withSyncRead = <A, E>(
  backend: Backend,
  path: string,
  use: (handle: SyncReadHandle) => Either.Either<A, E>
): Either.Either<A, E | FileNotFoundError | FileSystemError | NotRegularFileError> => {
  const opened = backend.unsafeOpenRead(path)
  if (Either.isLeft(opened)) return Either.left(opened.left)
  try {
    return use(opened.right)
  } finally {
    opened.right.unsafeClose()
  }
}

/**
 * Reads the bytes `[offset, offset + length)` of each range through one descriptor into one buffer
 * (`into` when long enough); `onRead` counts the bytes. What `TranscriptFile.unsafeReadRanges` is.
 */
export const unsafeReadRanges = (
  backend: Backend,
  path: string,
  ranges: ReadonlyArray<readonly [offset: number, length: number]>,
  into: Uint8Array | undefined,
  onRead: (bytes: number) => void
): Either.Either<Array<Uint8Array>, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  withSyncRead(backend, path, (handle) => {
    // one allocation for every range (a read of thousands of small ranges allocated each apart)
    let size = 0
    for (const [, length] of ranges) size += Math.max(0, length)
    const memory = into !== undefined && into.length >= size ? into : new Uint8Array(size)
    const out: Array<Uint8Array> = []
    let at = 0
    for (const [offset, length] of ranges) {
      if (length <= 0) {
        out.push(memory.subarray(at, at))
        continue
      }
      const read = handle.unsafeReadInto(offset, memory.subarray(at, at + length))
      if (Either.isLeft(read)) return Either.left(read.left)
      onRead(read.right)
      out.push(memory.subarray(at, at + read.right))
      at += length
    }
    return Either.right(out)
  })

/**
 * Hands the bytes `[offset, offset + length)` to `onPiece` in pieces of at most `pieceSize` bytes,
 * all read into one reused buffer; gives how many bytes were read. What `TranscriptFile.unsafeScanBytes` is.
 */
export const unsafeScanBytes = (
  backend: Backend,
  path: string,
  offset: number,
  length: number,
  pieceSize: number,
  onPiece: (piece: Uint8Array, at: number) => void,
  onRead: (bytes: number) => void
): Either.Either<number, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  withSyncRead(backend, path, (handle) => {
    const buffer = new Uint8Array(Math.max(1, Math.min(pieceSize, length)))
    let done = 0
    while (done < length) {
      const want = Math.min(buffer.length, length - done)
      const read = handle.unsafeReadInto(offset + done, want === buffer.length ? buffer : buffer.subarray(0, want))
      if (Either.isLeft(read)) return Either.left(read.left)
      const n = read.right
      onRead(n)
      if (n > 0) onPiece(buffer.subarray(0, n), offset + done)
      done += n
      if (n < want) break
    }
    return Either.right(done)
  })

/** A file opened for sequential writes (a rewrite's temporary file). */
export interface WriteHandle {
  readonly write: (bytes: Uint8Array) => Effect.Effect<void, FileSystemError>
  readonly sync: Effect.Effect<void, FileSystemError>
  /** Sets the permission bits (a rewrite keeps the original's). */
  readonly chmod: (mode: number) => Effect.Effect<void, FileSystemError>
  /** Sets owner and group (a rewrite keeps the original's); fails (EPERM) where not allowed. */
  readonly chown: (uid: number, gid: number) => Effect.Effect<void, FileSystemError>
  readonly close: Effect.Effect<void>
}

/**
 * A file as a writer last verified it under the lock, ending with `\n` there: when the file an
 * append opens still has this identity, size and mtime, its last byte is not read back.
 */
export interface KnownEnd {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: number
  readonly mtimeNs: bigint
}

/** The result of one append. */
export interface AppendOutcome {
  /** Offset at which the appended lines begin (after the newline prefix, if any). */
  readonly offset: number
  /** Bytes written, including the newline prefix. */
  readonly bytesWritten: number
  /** Whether a `\n` had to be written first because the file did not end with one. */
  readonly prefixedNewline: boolean
  /** Size of the file after the write. */
  readonly size: number
  /** The file's stat right after the write (through the descriptor written), when the backend gives it (Node does). */
  readonly stat?: StatInfo
}

/** A file held open for appends (O_APPEND) by a writer that knows it ends with `\n` (it wrote last, under the lock). */
export interface AppendHandle {
  /**
   * ONE write of `data` (whole lines; a string as UTF-8) at the end, no read-back of the last
   * byte; synced when `fsync`. Synchronous (so a caller can write and record in one step); gives
   * the bytes written, or the `FileSystemError` (never throws).
   */
  readonly unsafeAppend: (data: string | Uint8Array, fsync: boolean) => Either.Either<number, FileSystemError>
  /** Closes the file; idempotent. */
  readonly close: Effect.Effect<void>
}

/** A file opened by `unsafeOpenKnown`, exactly as known: one append, then close. */
export interface KnownAppendHandle {
  /** ONE write of `bytes` (whole lines) at the end, and the file's stat right after it (never throws). */
  readonly unsafeAppend: (bytes: Uint8Array) => Either.Either<AppendOutcome, FileSystemError>
  /** Lets go of the handle (a backend may keep its descriptor open for the next append); idempotent, never throws. */
  readonly unsafeClose: () => void
}

/**
 * A lock file this backend created, as it created it. Files keep it open until it is removed: the
 * release then compares the inode at the lock path with its own (an inode cannot be reused while
 * it is open, so a match is this very file) instead of opening and reading the file back.
 */
export interface CreatedLockFile {
  /** Removes the lock file if the lock path still names it; lets go of it either way (once; never throws). */
  readonly removeIfOurs: () => void
}

/** The bytes of a small file plus its identity (for remove-if-unchanged). */
export interface FileContent {
  readonly bytes: Uint8Array
  readonly ino: bigint
  readonly mtimeNs: bigint
}

/** One name in a folder. */
export interface DirEntry {
  readonly name: string
  readonly isFile: boolean
  readonly isDirectory: boolean
  /** Modification time in milliseconds (files only; 0 when unknown). */
  readonly mtimeMs: number
  readonly size: number
  /** Files, when the backend knows them: the mtime in nanoseconds, the device and the inode, as decimal strings (the catalog index's watermark). */
  readonly mtimeNs?: string
  readonly dev?: string
  readonly ino?: string
}

/** The primitive backend. Paths given to it are absolute (see `resolve`). */
export interface Backend {
  readonly resolve: (path: string) => string
  readonly dirname: (path: string) => string
  readonly basename: (path: string) => string
  readonly join: (dir: string, name: string) => string
  readonly stat: (path: string) => Effect.Effect<Option.Option<StatInfo>, FileSystemError>
  /** The name itself (a symlink is not followed); `None` when nothing is there. */
  readonly lstat: (path: string) => Effect.Effect<Option.Option<LinkInfo>, FileSystemError>
  /**
   * Opens, fstats and reads `[max(0, end - length), end)` where `end` defaults to the size. Only a
   * regular file (or a symlink to one) is opened: anything else fails with `NotRegularFileError`.
   */
  readonly readTail: (
    path: string,
    length: number,
    end?: number
  ) => Effect.Effect<
    { readonly stat: StatInfo; readonly bytes: Uint8Array },
    FileNotFoundError | FileSystemError | NotRegularFileError
  >
  /**
   * Opens a regular file (or a symlink to one) for synchronous reads; anything else fails with
   * `NotRegularFileError`, unopened. As effects in a scope: {@link openRead}.
   */
  readonly unsafeOpenRead: (
    path: string
  ) => Either.Either<SyncReadHandle, FileNotFoundError | FileSystemError | NotRegularFileError>
  /** One write of `bytes` at the end (O_APPEND), prefixed by `\n` if the file does not end with one. */
  readonly append: (
    path: string,
    bytes: Uint8Array,
    options: { readonly fsync: boolean; readonly create: boolean; readonly known?: KnownEnd | undefined }
  ) => Effect.Effect<AppendOutcome, FileNotFoundError | FileSystemError>
  /**
   * Optional: opens the existing file at `path` for ONE append, synchronously, only if it is
   * still exactly `known` (a regular file with that dev, inode, size and mtime: no read-back of
   * its last byte); `undefined` when it is not or cannot be opened (the caller takes `append`).
   * Never throws; the caller lets go of the handle (`unsafeClose`).
   */
  readonly unsafeOpenKnown?: (path: string, known: KnownEnd) => KnownAppendHandle | undefined
  /** Opens an existing file for appends (O_APPEND, no create); the caller closes the handle. */
  readonly openAppend: (path: string) => Effect.Effect<AppendHandle, FileNotFoundError | FileSystemError>
  /**
   * A lock file: creates `path` exclusively (mode 0600, its folder too if missing) holding
   * `content`, in one step. `false` when something is already there (a file, a symlink, a
   * folder); if the write fails, the half-made file is removed and the error given. Synchronous
   * (never throws), like its `removeIfOurs`: an uncontended lock is taken and let go in one step.
   * On success, the lock file as created (files: still open), to remove if it is still ours.
   */
  readonly createLockFile: (path: string, content: string) => Either.Either<CreatedLockFile | false, FileSystemError>
  /** Creates `path` exclusively (mode 0600) and returns a handle, or fails with code EEXIST. */
  readonly createExclusive: (path: string) => Effect.Effect<WriteHandle, FileSystemError>
  readonly readFile: (path: string) => Effect.Effect<Option.Option<FileContent>, FileSystemError>
  readonly rename: (from: string, to: string) => Effect.Effect<void, FileNotFoundError | FileSystemError>
  /** Removes a file; a missing file is not an error. */
  readonly remove: (path: string) => Effect.Effect<void, FileSystemError>
  /** Hard-links `existing` to the new name `to`; fails with code EEXIST if `to` exists. */
  readonly link: (existing: string, to: string) => Effect.Effect<void, FileNotFoundError | FileSystemError>
  /** Copies the exact bytes of `from` to the new file `to` (exclusive create, 0600, synced). */
  readonly copyExclusive: (from: string, to: string) => Effect.Effect<void, FileNotFoundError | FileSystemError>
  /** Creates a folder and its parents (mode 0700). */
  readonly makeDirectory: (dir: string) => Effect.Effect<void, FileSystemError>
  /**
   * The names in a folder with their kind, mtime and size; a missing folder is empty. With
   * `keep`, only the names it accepts (the others are not stat-ed).
   */
  readonly listDirectory: (
    dir: string,
    keep?: (name: string) => boolean
  ) => Effect.Effect<ReadonlyArray<DirEntry>, FileSystemError>
  /** Syncs a folder's entries where the platform allows it. */
  readonly syncDirectory: (dir: string) => Effect.Effect<void>
  /**
   * The canonical path of a file: the file a path names, symlinks at the name and in its folders
   * followed (a dangling link gives the path it points to); the lock, the snapshot, the cache and
   * rewrites are keyed on it, so a link and its target are one transcript.
   */
  readonly canonical: (path: string) => string
  readonly hostname: string
  readonly pid: number
  /** `true` alive, `false` dead, `undefined` unknown. */
  readonly isAlive: (pid: number) => boolean | undefined
  /** The process start time (`/proc/<pid>/stat` field 22) where the platform has it. */
  readonly starttime: (pid: number) => number | undefined
  /** When the process started, in ms since the epoch, where the platform tells (Linux: /proc). */
  readonly startedAtMs: (pid: number) => number | undefined
  /** The next number of this backend's temporary files (a counter of the layer, not of the process). */
  readonly nextTemporary: () => number
  /** Registers a held lock file for synchronous removal on exit / SIGINT / SIGTERM (by this backend's handlers). */
  readonly registerHeld: (lockPath: string, token: string) => void
  readonly unregisterHeld: (lockPath: string) => void
  /**
   * The in-process lock state shared by every TranscriptLock over this backend: the process's
   * (`LockRegistry`'s default, since a lock file names a pid, two layers of one process must see
   * each other's locks) or the volume's.
   */
  readonly locks: LockRegistry
}

/** A lock file held by this process. */
export interface HeldLock {
  readonly lockPath: string
  readonly token: string
  /** The lock file as this process created it (removed through it at the last release). */
  readonly created: CreatedLockFile
  count: number
}

/** A fiber waiting at a gate; `handed` is set when the gate is handed to it. */
export interface GateWaiter {
  readonly deferred: Deferred.Deferred<void>
  handed: boolean
}

/**
 * The per-path in-process gate in front of the file lock: one fiber of the process at a time
 * takes (or waits for) the file lock; the others queue here, first come first served, and the
 * gate is handed from one to the next.
 */
export interface Gate {
  /** Whether a fiber holds the gate. */
  busy: boolean
  readonly waiters: Array<GateWaiter>
}

/** In-process lock state: held lock files, per-path gates, and the lock paths each fiber owns. */
export interface LockRegistry {
  readonly held: Map<string, HeldLock>
  readonly gates: Map<string, Gate>
  readonly owned: FiberRef.FiberRef<ReadonlySet<string>>
  /** The initial value of `owned` (a fiber that owns no lock). */
  readonly noneOwned: ReadonlySet<string>
}

/** A fresh registry. */
export const makeLockRegistry = (): LockRegistry => {
  const noneOwned: ReadonlySet<string> = new Set()
  return { held: new Map(), gates: new Map(), owned: FiberRef.unsafeMake(noneOwned), noneOwned }
}

/**
 * The lock state of this process for the Node backend: a reference whose default is one
 * registry per process (every Node layer built in the process sees the same held locks, as the
 * lock files name the same pid); provide another to isolate one.
 */
export class ProcessLocks extends Context.Reference<ProcessLocks>()("@branchlog/session-store/internal/ProcessLocks", {
  defaultValue: makeLockRegistry
}) {}

/** The backend tag (internal). */
export class FileBackend extends Context.Tag("@branchlog/session-store/internal/FileBackend")<FileBackend, Backend>() {}

/** Whether a failure of the filesystem carries a given code. */
export const hasCode = (error: unknown, code: string): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === code
