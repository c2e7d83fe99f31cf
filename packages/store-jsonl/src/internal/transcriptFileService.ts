/**
 * The `TranscriptFile` service over a primitive backend: line streams and tail reads (with the
 * line ceiling), appends of whole lines, the held appender, atomic rewrites and backups.
 */
import { FileNotFoundError, FileSystemError } from "@branchlog/session-store/StoreError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as SessionFiles from "../SessionFiles.js"
import type {
  Appender,
  AppendOptions,
  BackupOptions,
  Durability,
  KnownAppender,
  KnownEnd,
  Line,
  RawReadOptions,
  ReadOptions,
  ReplaceOptions,
  RewriteContent,
  TailRead,
  TranscriptFileShape
} from "../TranscriptFile.js"
import type { Backend } from "./backend.js"
import { unsafeReadRanges, unsafeScanBytes } from "./backend.js"
import * as Lines from "./lines.js"
import * as RawLines from "./rawLines.js"
import * as Rewrite from "./rewrite.js"

/** The service over `backend`; `ceiling`: the longest line decoded (`undefined`: the default). */
export const makeService = (backend: Backend, ceiling: number | undefined): TranscriptFileShape => {
  let total = 0
  const withCeiling = (options: ReadOptions): ReadOptions =>
    options.maxLineBytes !== undefined || ceiling === undefined ? options : { ...options, maxLineBytes: ceiling }

  const lines = (path: string, options: ReadOptions = {}) =>
    Lines.lines(backend, backend.resolve(path), withCeiling(options), (n) => {
      total += n
    })

  const forEachChunk: TranscriptFileShape["forEachChunk"] = (path, onLines, options = {}) =>
    Lines.forEachChunk(backend, backend.resolve(path), withCeiling(options), (n) => {
      total += n
    }, onLines)

  const unsafeForEachChunk: TranscriptFileShape["unsafeForEachChunk"] = (path, onLines, options = {}) =>
    Lines.unsafeForEachChunk(backend, backend.resolve(path), withCeiling(options), (n) => {
      total += n
    }, onLines)

  const bytes = (path: string, offset: number, length: number) =>
    Lines.bytes(backend, backend.resolve(path), offset, length, (n) => {
      total += n
    })

  /** Bytes per read of a tail (through one buffer: a few pages of fresh memory, whatever the tail's length). */
  const TAIL_CHUNK_SIZE = 64 * 1024

  const readFrom = (path: string, offset: number, options: { readonly firstLine?: number } = {}) => {
    let bytesRead = 0
    const read: Array<Line> = []
    const readOptions = {
      fromOffset: offset,
      chunkSize: TAIL_CHUNK_SIZE,
      ...(options.firstLine === undefined ? {} : { firstLine: options.firstLine })
    }
    return Lines.forEachChunk(backend, backend.resolve(path), withCeiling(readOptions), (n) => {
      total += n
      bytesRead += n
    }, (lines) => {
      for (const line of lines) read.push(line)
    }).pipe(
      Effect.map((): TailRead => {
        const last = read[read.length - 1]
        return { lines: read, endOffset: last === undefined ? offset : Lines.endOf(last), bytesRead }
      })
    )
  }

  const append = (path: string, lines: ReadonlyArray<string>, options: AppendOptions = {}) =>
    Effect.suspend(() => {
      const abs = backend.resolve(path)
      const index = lines.findIndex((line) => line.includes("\n"))
      if (index !== -1) {
        return Effect.fail(
          new FileSystemError({
            path: abs,
            operation: "append",
            detail: `line ${index} of the batch contains a newline`
          })
        )
      }
      if (lines.length === 0) {
        return backend.stat(abs).pipe(Effect.map((stat) => {
          const size = Option.match(stat, { onNone: () => 0, onSome: (s) => s.size })
          return { offset: size, bytesWritten: 0, prefixedNewline: false, size }
        }))
      }
      // Buffer.from: small texts go to Node's pool (a typed array of its own costs an allocation outside the heap)
      const bytes = Buffer.from(lines.length === 1 ? lines[0]! + "\n" : lines.join("\n") + "\n")
      return backend.append(abs, bytes, {
        fsync: options.durability === "fsync",
        create: options.create ?? true,
        known: options.known
      })
    })

  const openKnown = backend.unsafeOpenKnown
  const unsafeOpenKnown = openKnown === undefined ? undefined : (
    path: string,
    known: KnownEnd
  ): KnownAppender | undefined => {
    const abs = backend.resolve(path)
    const handle = openKnown(abs, known)
    if (handle === undefined) return undefined
    return {
      unsafeAppend: (lines) => {
        const index = lines.findIndex((line) => line.includes("\n"))
        if (index !== -1) {
          return Either.left(
            new FileSystemError({
              path: abs,
              operation: "append",
              detail: `line ${index} of the batch contains a newline`
            })
          )
        }
        return handle.unsafeAppend(Buffer.from(lines.length === 1 ? lines[0]! + "\n" : lines.join("\n") + "\n"))
      },
      unsafeClose: handle.unsafeClose
    }
  }

  const openAppend = (path: string, options: { readonly durability?: Durability } = {}) =>
    Effect.suspend(() => {
      const abs = backend.resolve(path)
      const fsync = options.durability === "fsync"
      return Effect.map(backend.openAppend(abs), (handle): Appender => {
        const unsafeAppend = (data: string | Uint8Array): Either.Either<number, FileSystemError> => {
          const last = typeof data === "string" ? data.charCodeAt(data.length - 1) : data[data.length - 1]
          if (last !== 0x0a) {
            return Either.left(
              new FileSystemError({
                path: abs,
                operation: "append",
                detail: "the data does not end with a newline"
              })
            )
          }
          return handle.unsafeAppend(data, fsync)
        }
        return {
          append: (data) => Effect.suspend(() => unsafeAppend(data)),
          unsafeAppend,
          close: handle.close
        }
      })
    })

  const rawLines = (path: string, options: RawReadOptions = {}) =>
    RawLines.rawLines(backend, backend.resolve(path), options, (n) => {
      total += n
    })

  const replace = <E, R>(path: string, content: RewriteContent<E, R>, options: ReplaceOptions = {}) =>
    Rewrite.replace(backend, backend.resolve(path), content, options.backup)

  const rewrite = <E, R>(path: string, content: RewriteContent<E, R>): Effect.Effect<void, FileSystemError | E, R> =>
    Rewrite.replace(backend, backend.resolve(path), content, undefined).pipe(
      Effect.catchIf(
        (e): e is FileNotFoundError => e instanceof FileNotFoundError,
        (e) =>
          Effect.fail(new FileSystemError({ path: e.path, operation: e.operation, code: "ENOENT", detail: "vanished" }))
      ),
      Effect.asVoid
    )

  const backup = (path: string, options: BackupOptions = {}) =>
    Effect.gen(function*() {
      const abs = backend.canonical(backend.resolve(path))
      const label = options.label ?? "backup"
      if (!SessionFiles.BACKUP_LABEL.test(label)) {
        return yield* new FileSystemError({ path: abs, operation: "backup", detail: `invalid backup label: ${label}` })
      }
      const stat = yield* backend.stat(abs)
      if (Option.isNone(stat)) return yield* new FileNotFoundError({ path: abs, operation: "backup" })
      const made = yield* Rewrite.backupOf(backend, abs, label, stat.value, false)
      return made.path
    })

  const counted = (n: number) => {
    total += n
  }
  const readRangesNow: TranscriptFileShape["unsafeReadRanges"] = (path, ranges, into) =>
    unsafeReadRanges(backend, backend.resolve(path), ranges, into, counted)
  const scanBytesNow: TranscriptFileShape["unsafeScanBytes"] = (path, offset, length, pieceSize, onPiece) =>
    unsafeScanBytes(backend, backend.resolve(path), offset, length, pieceSize, onPiece, counted)

  return {
    lines,
    forEachChunk,
    unsafeForEachChunk,
    bytes,
    readFrom,
    append,
    ...(unsafeOpenKnown === undefined ? {} : { unsafeOpenKnown }),
    openAppend,
    rawLines,
    replace,
    rewrite,
    backup,
    remove: (path) => backend.remove(backend.resolve(path)),
    list: (dir, keep) => backend.listDirectory(backend.resolve(dir), keep),
    resolve: (path) => backend.resolve(path),
    canonical: (path) => backend.canonical(backend.resolve(path)),
    bytesRead: Effect.sync(() => total),
    unsafeReadRanges: readRangesNow,
    readRanges: (path, ranges, into) => Effect.suspend(() => readRangesNow(path, ranges, into)),
    unsafeScanBytes: scanBytesNow,
    scanBytes: (path, offset, length, pieceSize, onPiece) =>
      Effect.suspend(() => scanBytesNow(path, offset, length, pieceSize, onPiece)),
    writeSideFile: (path, pieces) =>
      Effect.gen(function*() {
        const abs = backend.resolve(path)
        const hex = (yield* Random.nextIntBetween(0, 0x7fffffff)).toString(16).padStart(8, "0")
        const temp = backend.join(
          backend.dirname(abs),
          SessionFiles.temporaryName(backend.basename(abs), backend.pid, backend.nextTemporary(), hex)
        )
        const handle = yield* backend.createExclusive(temp)
        const written = Effect.zipRight(
          Effect.forEach(pieces, (piece) => handle.write(piece), { discard: true }),
          backend.rename(temp, abs)
        ).pipe(
          Effect.catchTag("FileNotFoundError", (e) =>
            Effect.fail(new FileSystemError({ path: e.path, operation: "rename", code: "ENOENT", detail: "vanished" })))
        )
        yield* Effect.ensuring(written, handle.close).pipe(
          Effect.tapError(() =>
            backend.remove(temp).pipe(Effect.ignore)
          )
        )
      })
  } satisfies TranscriptFileShape
}
