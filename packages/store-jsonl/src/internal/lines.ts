/**
 * The lines of a file, decoded: the lines `rawLines.ts`'s splitter cuts from Buffers read in
 * chunks, each decoded on its own (no whole-file string is ever built). A line longer than the
 * ceiling (`maxLineBytes`, default the longest string V8 can build) is never decoded nor held:
 * only its head is kept, and it is given as an `oversized` line with its number, offset and length.
 */
import type { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { constants } from "node:buffer"
import type { Backend, SyncReadHandle } from "./backend.js"
import { openRead, withSyncRead } from "./backend.js"
import * as RawLines from "./rawLines.js"

/** One line of a file. */
export interface Line {
  /** The line's text, decoded as UTF-8, without its `\n` (`""` for an oversized line). */
  readonly text: string
  /** 1-based line number. */
  readonly line: number
  /** Byte offset of the line's first byte. */
  readonly offset: number
  /** Length in bytes, without the `\n`. */
  readonly byteLength: number
  /** `false` for a final segment without `\n`: a possibly torn tail. */
  readonly terminated: boolean
  /**
   * Set for a line longer than the ceiling (`maxLineBytes`): it was not decoded (nor held in
   * memory); `head` is its first bytes (at most {@link HEAD_BYTES}, and at most the ceiling).
   */
  readonly oversized?: { readonly head: Uint8Array }
}

/** Where to start and how much to read at a time. */
export interface ReadOptions {
  /** Byte offset to start at (a line boundary); default 0. */
  readonly fromOffset?: number
  /** The line number of the line at `fromOffset`; default 1. */
  readonly firstLine?: number
  /** Bytes per read; default 1 MiB. */
  readonly chunkSize?: number
  /**
   * The longest line, in bytes, that is decoded into a string (default
   * {@link DEFAULT_MAX_LINE_BYTES}); a longer one is passed over as bytes and given as an
   * `oversized` line.
   */
  readonly maxLineBytes?: number
}

/** The default read size. */
export const DEFAULT_CHUNK_SIZE = 1024 * 1024

/**
 * The default ceiling of a line: the longest string V8 can build (`buffer.constants.MAX_STRING_LENGTH`,
 * 2^29 - 24 characters on 64-bit Node 20). UTF-8 never decodes to more UTF-16 units than it has
 * bytes, so every line up to this many bytes can be a string.
 */
export const DEFAULT_MAX_LINE_BYTES: number = constants.MAX_STRING_LENGTH

/** How many of an oversized line's first bytes are kept (to tell its type, id and parent). */
export const HEAD_BYTES = 64 * 1024

const chunkSizeOf = (options: ReadOptions): number => Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE)

/** The splitter's limits for `options`: lines past the ceiling held by their head, the read buffer reused. */
const limitsOf = (options: ReadOptions): RawLines.Limits => {
  const max = Math.max(0, Math.min(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES))
  return { max, head: Math.min(HEAD_BYTES, max), reused: true }
}

/** Lines decoded as the splitter cuts them: one inside a read straight from it, one held from its pieces. */
const decoded = (max: number): RawLines.Build<Line> => ({
  inRead: (buffer, start, end, line, offset) => ({
    text: buffer.toString("utf8", start, end),
    line,
    offset,
    byteLength: end - start,
    terminated: true
  }),
  held: ({ byteLength, line, offset, pieces, terminated }) =>
    byteLength > max
      ? { text: "", line, offset, byteLength, terminated, oversized: { head: Uint8Array.from(pieces[0]!) } }
      : { text: Buffer.concat(pieces).toString("utf8"), line, offset, byteLength, terminated }
})

/** A stream of the lines of `path`; `onRead` is told how many bytes every read returned. */
export const lines = (
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void
): Stream.Stream<Line, FileNotFoundError | FileSystemError | NotRegularFileError> => {
  const limits = limitsOf(options)
  return RawLines.splitLines(backend, path, options, limits, decoded(limits.max), onRead)
}

/** What a reading of a file's lines by chunks takes: the file, how, a counter of bytes read, what takes the lines. */
type ChunkReading = [
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void,
  onLines: (lines: ReadonlyArray<Line>) => boolean | void
]

/**
 * One read of a file split into lines: reads the next chunk at `state` through `handle` into
 * `buffer`, hands its lines to `onLines`; gives the state to go on from, `None` at the end of file
 * or when `onLines` returned `false`.
 */
const chunkStep = (
  path: string,
  handle: SyncReadHandle,
  buffer: Buffer,
  options: ReadOptions,
  onRead: (bytes: number) => void,
  onLines: (lines: ReadonlyArray<Line>) => boolean | void
) => {
  const limits = limitsOf(options)
  const build = decoded(limits.max)
  return (state: RawLines.SplitState): Either.Either<Option.Option<RawLines.SplitState>, FileSystemError> => {
    const read = handle.unsafeReadInto(state.position, buffer)
    if (Either.isLeft(read)) return Either.left(read.left)
    onRead(read.right)
    return Either.map(RawLines.step(path, state, buffer.subarray(0, read.right), limits, build), ([lines, next]) => {
      const more = lines.length === 0 ? true : onLines(lines) !== false
      return more ? next : Option.none()
    })
  }
}

/**
 * Hands the lines of `path` to `onLines` one read at a time, synchronously, until the end of file
 * or until `onLines` returns `false`. The same lines as {@link lines}, without a stream: for
 * callers that fold every line at once (opening, listing), where a stream's machinery costs more
 * than the reading. Every read goes into ONE buffer of `chunkSize` bytes (what a line keeps is
 * copied out of it): fresh memory costs a page fault per 4 KiB touched, more than the read itself.
 * Each read is one step of an effect: other fibers run between them.
 */
export const forEachChunk = (
  ...[backend, path, options, onRead, onLines]: ChunkReading
): Effect.Effect<void, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Effect.acquireUseRelease(
    Effect.suspend(() => backend.unsafeOpenRead(path)),
    (handle) => {
      const next = chunkStep(path, handle, Buffer.allocUnsafe(chunkSizeOf(options)), options, onRead, onLines)
      const loop = (state: RawLines.SplitState): Effect.Effect<void, FileSystemError> =>
        Effect.flatMap(Effect.suspend(() => next(state)), Option.match({ onNone: () => Effect.void, onSome: loop }))
      return loop(RawLines.initialState(options))
    },
    (handle) => Effect.sync(handle.unsafeClose)
  )

/**
 * {@link forEachChunk} in one synchronous loop (a `Left` instead of a failure): for what must
 * answer synchronously (a listing's lazily read `allMessagesText`).
 */
export const unsafeForEachChunk = (
  ...[backend, path, options, onRead, onLines]: ChunkReading
): Either.Either<void, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  withSyncRead(backend, path, (handle) => {
    const next = chunkStep(path, handle, Buffer.allocUnsafe(chunkSizeOf(options)), options, onRead, onLines)
    let state = RawLines.initialState(options)
    for (;;) {
      const stepped = next(state)
      if (Either.isLeft(stepped)) return Either.left(stepped.left)
      if (Option.isNone(stepped.right)) return Either.void
      state = stepped.right.value
    }
  })

/** The bytes `[offset, offset + length)` of `path`, in reads of at most 1 MiB; fewer when the file ends first. */
export const bytes = (
  backend: Backend,
  path: string,
  offset: number,
  length: number,
  onRead: (bytes: number) => void
): Stream.Stream<Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Stream.unwrapScoped(
    Effect.map(openRead(backend, path), (handle) =>
      Stream.paginateEffect(offset, (position) => {
        const left = offset + length - position
        if (left <= 0) return Effect.succeed([new Uint8Array(0), Option.none<number>()] as const)
        return Effect.map(handle.read(position, Math.min(left, DEFAULT_CHUNK_SIZE)), (read) => {
          onRead(read.length)
          return [read, read.length === 0 ? Option.none<number>() : Option.some(position + read.length)] as const
        })
      }).pipe(Stream.filter((piece) => piece.length > 0)))
  )

/** The offset just past a line (and its `\n`). */
export const endOf = (line: Line): number => line.offset + line.byteLength + (line.terminated ? 1 : 0)
