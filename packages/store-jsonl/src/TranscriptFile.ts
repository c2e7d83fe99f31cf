/**
 * The bytes of a transcript: stream its lines with their offsets (never a whole-file string),
 * read a tail from an offset, append whole lines in one write, rewrite atomically, back up.
 *
 * @since 0.1.0
 */
import type { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type * as Backend from "./internal/backend.js"
import type { AppendOutcome, DirEntry } from "./internal/backend.js"
import { FileBackend } from "./internal/backend.js"
import * as Lines from "./internal/lines.js"
import * as NodeBackend from "./internal/nodeBackend.js"
import type * as RawLines from "./internal/rawLines.js"
import type * as Rewrite from "./internal/rewrite.js"
import { makeService } from "./internal/transcriptFileService.js"
import type { MemoryFileSystem } from "./MemoryFileSystem.js"
import { backendLayer } from "./MemoryFileSystem.js"

/** One line of a file: text, 1-based number, byte offset, byte length, and whether it ends with `\n`. */
export type Line = Lines.Line

/** Where a read starts (`fromOffset`, `firstLine`) and its chunk size (default 1 MiB). */
export type ReadOptions = Lines.ReadOptions

/** `"none"`: write and return; `"fsync"`: sync the file (and a new file's folder) before returning. */
export type Durability = "none" | "fsync"

/** What an append did: where its lines start, bytes written (incl. a newline prefix), the new size. */
export type AppendResult = AppendOutcome

/** A file as a writer last verified it under the lock, ending with `\n` (dev, ino, size, mtime). */
export type KnownEnd = Backend.KnownEnd

/**
 * Options of an append: durability (default `"none"`), whether to create a missing file (default
 * true), and the file as the caller verified it under the lock, ending with `\n` (`known`: when
 * the file opened for the append is still exactly that, its last byte is not read back).
 */
export interface AppendOptions {
  readonly durability?: Durability
  readonly create?: boolean
  readonly known?: KnownEnd | undefined
}

/** A transcript opened by `unsafeOpenKnown`: one append of whole lines (no `\n` inside), then close. */
export interface KnownAppender {
  /** ONE write of the lines, each with its `\n` (never throws: a line with a `\n` or a failed write is a `Left`). */
  readonly unsafeAppend: (lines: ReadonlyArray<string>) => Either.Either<AppendResult, FileSystemError>
  /** Closes the file; idempotent, never throws. */
  readonly unsafeClose: () => void
}

/**
 * A transcript held open for appends (O_APPEND) by a writer that knows the file ends with `\n`
 * (it wrote last, under the lock it still holds): each append is ONE write, without the
 * read-back of the last byte. Close it before the lock is let go.
 */
export interface Appender {
  /**
   * Writes whole lines (a string is written as UTF-8; each line ends with `\n`) in ONE write;
   * synced for `"fsync"` durability. Gives the number of bytes written.
   */
  readonly append: (data: string | Uint8Array) => Effect.Effect<number, FileSystemError>
  /** `append`, synchronously (to write and record in one step): the bytes written or the `FileSystemError` (never throws). */
  readonly unsafeAppend: (data: string | Uint8Array) => Either.Either<number, FileSystemError>
  /** Closes the file (idempotent). */
  readonly close: Effect.Effect<void>
}

/** The lines read from an offset to the end of file, the offset after them, and the bytes read. */
export interface TailRead {
  readonly lines: ReadonlyArray<Line>
  readonly endOffset: number
  readonly bytesRead: number
}

/** The new content of a rewrite: bytes, a string, or a stream of pieces (for files beyond a string's size). */
export type RewriteContent<E = never, R = never> = string | Uint8Array | Stream.Stream<string | Uint8Array, E, R>

/** One line as bytes, in the pieces of the reads it spans (never decoded, never joined). */
export type RawLine = RawLines.RawLine

/** Where a raw read starts and its read size (the largest piece; default 1 MiB). */
export type RawReadOptions = RawLines.RawReadOptions

/** Options of `replace`: with `backup` (a label), the original's bytes are backed up first. */
export interface ReplaceOptions {
  readonly backup?: string
}

/** What `replace` did: the file written (a symlink's target) and the backup of the old bytes, if any. */
export type ReplaceResult = Rewrite.Replaced

/** Options of a backup: the label in its name, a lower-case word (default `"backup"`). */
export interface BackupOptions {
  readonly label?: string
}

/** One name in a folder: kind, modification time (ms) and size. */
export type DirectoryEntry = DirEntry

/** How a read of a file fails: not there, not a regular file, or the file system's error. */
export type ReadFailure = FileNotFoundError | FileSystemError | NotRegularFileError

/** The arguments of `forEachChunk` and `unsafeForEachChunk`: a file, what takes its lines, how it is read. */
export type ForEachChunk = [
  path: string,
  onLines: (lines: ReadonlyArray<Line>) => boolean | void,
  options?: ReadOptions
]

/** The arguments of `readRanges` and `unsafeReadRanges`: a file, its ranges, a buffer to read them into. */
export type ReadRanges = [
  path: string,
  ranges: ReadonlyArray<readonly [offset: number, length: number]>,
  into?: Uint8Array
]

/** The arguments of `scanBytes` and `unsafeScanBytes`: a file, where, how much, in what pieces, to what. */
export type ScanBytes = [
  path: string,
  offset: number,
  length: number,
  pieceSize: number,
  onPiece: (piece: Uint8Array, at: number) => void
]

/** The service. */
export interface TranscriptFileShape {
  /** The lines of a file, streamed in chunks; a final segment without `\n` has `terminated: false`. */
  readonly lines: (
    path: string,
    options?: ReadOptions
  ) => Stream.Stream<Line, FileNotFoundError | FileSystemError | NotRegularFileError>
  /**
   * The same lines as `lines`, handed to `onLines` one read (1 MiB by default) at a time,
   * synchronously, until the end of file or until `onLines` returns `false`. No stream: for
   * folding every line at once, where a stream's machinery would cost more than the reading.
   */
  readonly forEachChunk: (...each: ForEachChunk) => Effect.Effect<void, ReadFailure>
  /**
   * `forEachChunk` in one synchronous loop (a `Left` instead of a failure): for what must answer
   * synchronously (a listing's lazily read `allMessagesText`).
   */
  readonly unsafeForEachChunk: (...each: ForEachChunk) => Either.Either<void, ReadFailure>
  /**
   * The bytes `[offset, offset + length)` of a file, streamed in reads of 1 MiB (an oversized
   * line's bytes, copied into a rewrite); fewer when the file ends first.
   */
  readonly bytes: (
    path: string,
    offset: number,
    length: number
  ) => Stream.Stream<Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError>
  /** The lines from `offset` (a line boundary) to the end of file: the tail-only re-read. */
  readonly readFrom: (
    path: string,
    offset: number,
    options?: { readonly firstLine?: number }
  ) => Effect.Effect<TailRead, FileNotFoundError | FileSystemError | NotRegularFileError>
  /** Appends whole lines (no `\n` inside) in ONE write, prefixing `\n` if the file does not end with one. */
  readonly append: (
    path: string,
    lines: ReadonlyArray<string>,
    options?: AppendOptions
  ) => Effect.Effect<AppendResult, FileNotFoundError | FileSystemError>
  /**
   * Optional: opens the existing file for ONE append of whole lines, synchronously, only when it
   * is still exactly `known` (as verified under the lock); `undefined` when it is not or when the
   * backend has no synchronous path (the caller then takes `append`). The caller closes it.
   */
  readonly unsafeOpenKnown?: (path: string, known: KnownEnd) => KnownAppender | undefined
  /** Opens an existing file for appends of whole lines without a read-back per write; the caller closes it. */
  readonly openAppend: (
    path: string,
    options?: { readonly durability?: Durability }
  ) => Effect.Effect<Appender, FileNotFoundError | FileSystemError>
  /** The lines of a file as bytes (for rewrites that keep lines byte for byte, whatever their size). */
  readonly rawLines: (
    path: string,
    options?: RawReadOptions
  ) => Stream.Stream<RawLine, FileNotFoundError | FileSystemError | NotRegularFileError>
  /**
   * The one destructive rewrite (callers hold the transcript lock): the new bytes go to a temporary
   * file beside the file `path` names (a symlink's target; the link stays a link) with the
   * original's owner and mode, are synced, then — after a backup of the original when `backup`
   * names a label (a hard link, or an existing backup of the same bytes) — renamed over it. A
   * read-only file is refused and kept; on any failure the temporary file and a backup made by
   * this call are removed.
   */
  readonly replace: <E = never, R = never>(
    path: string,
    content: RewriteContent<E, R>,
    options?: ReplaceOptions
  ) => Effect.Effect<ReplaceResult, FileSystemError | FileNotFoundError | E, R>
  /** `replace` without a backup. */
  readonly rewrite: <E = never, R = never>(
    path: string,
    content: RewriteContent<E, R>
  ) => Effect.Effect<void, FileSystemError | E, R>
  /**
   * Copies the exact bytes to `<path>.<label>-<timestamp>-<8hex>.jsonl` and returns that path (an
   * existing backup holding the same bytes is returned instead of a second copy).
   */
  readonly backup: (path: string, options?: BackupOptions) => Effect.Effect<string, FileNotFoundError | FileSystemError>
  /** Removes a file (a missing file is no error); the caller holds the transcript lock. */
  readonly remove: (path: string) => Effect.Effect<void, FileSystemError>
  /**
   * The names in a folder with their kind, mtime and size (a missing folder is empty); with
   * `keep`, only the names it accepts (the others are not even stat-ed).
   */
  readonly list: (
    dir: string,
    keep?: (name: string) => boolean
  ) => Effect.Effect<ReadonlyArray<DirectoryEntry>, FileSystemError>
  /** The absolute form of a path, as this backend resolves it. */
  readonly resolve: (path: string) => string
  /** The file a path names (symlinks followed): what locks, snapshots and caches are keyed on. */
  readonly canonical: (path: string) => string
  /** Total bytes this service instance has read from files (lines, readFrom): proves tail-only reads. */
  readonly bytesRead: Effect.Effect<number>
  /**
   * The bytes `[offset, offset + length)` of each range, read through one descriptor (fewer where
   * the file ends first): the bounded open's reads of single rows and of a sidecar index. The
   * ranges are views of one buffer: `into` when it is given and long enough (valid until it is
   * used again: what reads batch after batch passes the same one), else one allocated for the
   * call (copy a small piece kept long).
   */
  readonly readRanges: (...read: ReadRanges) => Effect.Effect<Array<Uint8Array>, ReadFailure>
  /**
   * `readRanges`, synchronously (a `Left` instead of a failure): for the synchronous questions of a
   * bounded session, answered from its sidecar index (does it hold an id?), an outline's rows read
   * by offset and a listing's lazily read text, without running an effect synchronously.
   */
  readonly unsafeReadRanges: (...read: ReadRanges) => Either.Either<Array<Uint8Array>, ReadFailure>
  /**
   * Hands the bytes `[offset, offset + length)` of a file to `onPiece`, in order, in pieces of at
   * most `pieceSize` bytes all read into ONE buffer reused from piece to piece (a piece is valid
   * only during its call: copy what is kept); fewer bytes when the file ends first. Gives how many
   * bytes were read. What passes over a sidecar index's id filter without holding it.
   */
  readonly scanBytes: (...scan: ScanBytes) => Effect.Effect<number, ReadFailure>
  /** `scanBytes`, synchronously (a `Left` instead of a failure). */
  readonly unsafeScanBytes: (...scan: ScanBytes) => Either.Either<number, ReadFailure>
  /**
   * Writes a side file (a sidecar index) whole, from its pieces in order: a temporary file beside
   * it, renamed over it. No fsync and no backup: only for files that can be rebuilt from the transcript.
   */
  readonly writeSideFile: (path: string, pieces: ReadonlyArray<Uint8Array>) => Effect.Effect<void, FileSystemError>
}

/** The TranscriptFile service tag. */
export class TranscriptFile extends Context.Tag("@branchlog/session-store/TranscriptFile")<
  TranscriptFile,
  TranscriptFileShape
>() {}

/**
 * Options of the service: the ceiling of a line (default `$BRANCHLOG_MAX_LINE_BYTES`, else
 * {@link DEFAULT_MAX_LINE_BYTES}; never above it).
 */
export interface TranscriptFileOptions {
  /** Lines longer than this many bytes are not decoded: they are given as `oversized` lines. */
  readonly maxLineBytes?: number
}

/** The ceiling from `$BRANCHLOG_MAX_LINE_BYTES` (a positive integer), if set. */
const configuredCeiling: Effect.Effect<number | undefined> = Config.integer("BRANCHLOG_MAX_LINE_BYTES").pipe(
  Config.validate({ message: "a positive number of bytes", validation: (n) => n > 0 }),
  Config.option,
  Effect.map(Option.getOrUndefined),
  Effect.orElseSucceed(() => undefined)
)

/** The default ceiling of a line: the longest string V8 can build (about 512 MiB). */
export const DEFAULT_MAX_LINE_BYTES: number = Lines.DEFAULT_MAX_LINE_BYTES

/** The ceiling `makeWith` gives `make` (`undefined`: from the environment, else the default). */
const currentMaxLineBytes = FiberRef.unsafeMake<number | undefined>(undefined)

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<TranscriptFileShape, never, FileBackend> = Effect.gen(function*() {
  const backend = yield* FileBackend
  const ceiling = (yield* FiberRef.get(currentMaxLineBytes)) ?? (yield* configuredCeiling)
  return makeService(backend, ceiling)
})

/** Builds the service over the primitive backend in context, with options. */
export const makeWith = (options: TranscriptFileOptions = {}): Effect.Effect<TranscriptFileShape, never, FileBackend> =>
  Effect.locally(make, currentMaxLineBytes, options.maxLineBytes)

/** The Node layer (node:fs). */
export const layer: Layer.Layer<TranscriptFile> = Layer.effect(TranscriptFile, make).pipe(
  Layer.provide(NodeBackend.layer)
)

/** The Node layer with options (a lower line ceiling). */
export const layerWith = (options: TranscriptFileOptions): Layer.Layer<TranscriptFile> =>
  Layer.effect(TranscriptFile, makeWith(options)).pipe(Layer.provide(NodeBackend.layer))

/** The in-memory layer over the `MemoryFileSystem` in context. */
export const layerMemory: Layer.Layer<TranscriptFile, never, MemoryFileSystem> = Layer.effect(TranscriptFile, make)
  .pipe(
    Layer.provide(backendLayer)
  )
