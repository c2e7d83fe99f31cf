/**
 * The one line splitter of the file backend, and the lines of a file as bytes: each line is
 * handed over as the pieces of the reads it spans (never joined, never decoded), so a rewrite
 * that keeps lines byte for byte holds at most one read of the file at a time, whatever the size
 * of the file or of one line. `lines.ts` decodes what this splitter cuts, under a ceiling past
 * which only a line's head is held (`Limits`).
 */
import { type FileNotFoundError, FileSystemError, type NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Backend } from "./backend.js"
import { openRead } from "./backend.js"

/** One line as bytes. */
export interface RawLine {
  /** 1-based line number. */
  readonly line: number
  /** Byte offset of the line's first byte. */
  readonly offset: number
  /** Length in bytes, without the `\n`. */
  readonly byteLength: number
  /** `false` for a final segment without `\n`. */
  readonly terminated: boolean
  /**
   * The line's bytes (without the `\n`), as the pieces of the reads it spans (each at most one
   * read); for a line longer than the splitter's `max`, only its first `head` bytes.
   */
  readonly pieces: ReadonlyArray<Uint8Array>
}

/** Where to start and how much to read at a time. */
export interface RawReadOptions {
  readonly fromOffset?: number
  readonly firstLine?: number
  /** Bytes per read (the largest piece handed over); default 1 MiB. */
  readonly chunkSize?: number
}

/** How much of a line the splitter holds, and whether a read's bytes outlive the read. */
export interface Limits {
  /** A line longer than this many bytes is held only by its head. */
  readonly max: number
  /** How many of such a line's first bytes are held (at most `max`). */
  readonly head: number
  /** `true` when the read buffer is reused by the next read: an unfinished line's bytes are copied out of it. */
  readonly reused: boolean
}

/** Every line held whole, reads never reused (each read is a fresh array). */
export const WHOLE: Limits = { max: Infinity, head: 0, reused: false }

/** Where the splitter is in a file. */
export interface SplitState {
  readonly position: number
  readonly line: number
  /** Bytes held of the current, unfinished line (it started in an earlier read): all of it, or its head. */
  readonly pending: ReadonlyArray<Uint8Array>
  readonly pendingLength: number
  /** Bytes of the current, unfinished line so far (more than `pendingLength` once it is past `max`). */
  readonly lineLength: number
}

/** The state at `fromOffset` (default 0), line `firstLine` (default 1). */
export const initialState = (options: { readonly fromOffset?: number; readonly firstLine?: number }): SplitState => ({
  position: options.fromOffset ?? 0,
  line: options.firstLine ?? 1,
  pending: [],
  pendingLength: 0,
  lineLength: 0
})

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** The first `length` bytes of `pieces`, as one piece (no copy when the first piece has them all). */
const headOf = (pieces: ReadonlyArray<Uint8Array>, length: number): Uint8Array =>
  pieces.length > 0 && pieces[0]!.length >= length ? pieces[0]!.subarray(0, length) : Buffer.concat(pieces, length)

/**
 * How the splitter builds a line: one wholly inside the read (`buffer[start, end)`, the common
 * case, built without a view of its own), or one held as pieces (it spans reads, or it is past
 * `max` and only its head is held).
 */
export interface Build<L> {
  readonly inRead: (buffer: Buffer, start: number, end: number, line: number, offset: number) => L
  readonly held: (line: RawLine) => L
}

/** Lines as bytes: a line inside a read is a view of it. */
export const asRaw: Build<RawLine> = {
  inRead: (buffer, start, end, line, offset) => ({
    line,
    offset,
    byteLength: end - start,
    terminated: true,
    pieces: [buffer.subarray(start, end)]
  }),
  held: (line) => line
}

/** The lines that end in `bytes` (read at `state.position`), built by `build`, and the state after it. */
export const split = <L>(
  state: SplitState,
  bytes: Uint8Array,
  limits: Limits,
  build: Build<L>
): { readonly lines: Array<L>; readonly next: SplitState } => {
  const buffer = asBuffer(bytes)
  const out: Array<L> = []
  let line = state.line
  let start = 0
  let pending = state.pending
  let pendingLength = state.pendingLength
  let lineLength = state.lineLength
  let newline = buffer.indexOf(0x0a, 0)
  while (newline !== -1) {
    const offset = state.position + start - lineLength
    const byteLength = lineLength + newline - start
    if (byteLength > limits.max) {
      const piece = buffer.subarray(start, newline)
      const head = headOf(
        lineLength === 0 ? [piece] : [...pending, piece],
        Math.min(limits.head, pendingLength + piece.length)
      )
      out.push(build.held({ line, offset, byteLength, terminated: true, pieces: [head] }))
    } else if (lineLength === 0) {
      out.push(build.inRead(buffer, start, newline, line, offset))
    } else {
      const pieces = [...pending, buffer.subarray(start, newline)]
      out.push(build.held({ line, offset, byteLength, terminated: true, pieces }))
    }
    pending = []
    pendingLength = 0
    lineLength = 0
    line += 1
    start = newline + 1
    newline = buffer.indexOf(0x0a, start)
  }
  if (start < buffer.length) {
    const rest = buffer.length - start
    lineLength += rest
    if (lineLength <= limits.max) {
      const piece = buffer.subarray(start)
      pending = [...pending, limits.reused ? Buffer.from(piece) : piece]
      pendingLength += rest
    } else if (pendingLength !== limits.head) {
      // past the ceiling only the head is held (copied: it outlives the read)
      const segment = buffer.subarray(start, start + limits.head)
      const length = Math.min(limits.head, pendingLength + segment.length)
      pending = [Buffer.concat([...pending, segment], length)]
      pendingLength = length
    }
  }
  return { lines: out, next: { position: state.position + buffer.length, line, pending, pendingLength, lineLength } }
}

/** The unterminated last line at the end of the file (`undefined` when the file ends with `\n`). */
export const last = <L>(state: SplitState, limits: Limits, build: Build<L>): L | undefined => {
  if (state.lineLength === 0) return undefined
  const pieces = state.lineLength > limits.max
    ? [headOf(state.pending, Math.min(limits.head, state.pendingLength))]
    : state.pending
  return build.held({
    line: state.line,
    offset: state.position - state.lineLength,
    byteLength: state.lineLength,
    terminated: false,
    pieces
  })
}

/**
 * One read's lines: `split`, or at the end of the file (`bytes` empty) the unterminated last line;
 * `None` once the file ended. Building a line within the ceiling does not throw: the guard is for
 * running out of memory, a `FileSystemError` at the offset of the read's first line.
 */
export const step = <L>(
  path: string,
  state: SplitState,
  bytes: Uint8Array,
  limits: Limits,
  build: Build<L>
): Either.Either<readonly [Array<L>, Option.Option<SplitState>], FileSystemError> =>
  Either.try({
    try: () => {
      if (bytes.length > 0) {
        const { lines, next } = split(state, bytes, limits, build)
        return [lines, Option.some(next)] as const
      }
      const tail = last(state, limits, build)
      return [tail === undefined ? [] : [tail], Option.none<SplitState>()] as const
    },
    catch: (error) =>
      new FileSystemError({
        path,
        operation: "decode line",
        offset: state.position - state.lineLength,
        detail: error instanceof Error ? error.message : String(error)
      })
  })

/** A line's bytes joined in one array (for lines known to be small). */
export const bytesOf = (line: RawLine): Uint8Array => {
  if (line.pieces.length === 1) return line.pieces[0]!
  const out = new Uint8Array(line.byteLength)
  let at = 0
  for (const piece of line.pieces) {
    out.set(piece, at)
    at += piece.length
  }
  return out
}

/**
 * The lines of `path` cut by {@link split} under `limits`, built by `build`; `onRead` is told how
 * many bytes every read returned. Each read is a fresh array (`handle.read`); each read's lines are
 * one chunk.
 */
export const splitLines = <L>(
  backend: Backend,
  path: string,
  options: RawReadOptions,
  limits: Limits,
  build: Build<L>,
  onRead: (bytes: number) => void
): Stream.Stream<L, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Stream.unwrapScoped(Effect.map(openRead(backend, path), (handle) => {
    const chunkSize = Math.max(1, options.chunkSize ?? 1024 * 1024)
    return Stream.paginateChunkEffect(
      initialState(options),
      (state) =>
        Effect.flatMap(handle.read(state.position, chunkSize), (bytes) => {
          onRead(bytes.length)
          return Effect.map(
            step(path, state, bytes, limits, build),
            ([lines, next]) => [Chunk.unsafeFromArray(lines), next] as const
          )
        })
    )
  }))

/** The lines of `path` as bytes; `onRead` is told how many bytes every read returned. */
export const rawLines = (
  backend: Backend,
  path: string,
  options: RawReadOptions,
  onRead: (bytes: number) => void
): Stream.Stream<RawLine, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  splitLines(backend, path, options, WHOLE, asRaw, onRead)
