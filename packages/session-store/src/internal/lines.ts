/**
 * Splits a file into lines from Buffers read in chunks: no whole-file string is ever built, each
 * line is decoded on its own with `buf.toString("utf8", start, end)`. A line longer than the
 * ceiling (`maxLineBytes`, default the longest string V8 can build) is never decoded nor held:
 * only its head is kept, and it is given as an `oversized` line with its number, offset and length.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { constants } from "node:buffer"
import { type FileNotFoundError, FileSystemError, type NotRegularFileError } from "../StoreError.js"
import type { Backend } from "./backend.js"

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

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

interface State {
  readonly position: number
  readonly line: number
  /** Bytes held of the current, unfinished line (it started in an earlier chunk): all of it, or its head. */
  readonly pending: ReadonlyArray<Buffer>
  readonly pendingLength: number
  /** Bytes of the current, unfinished line so far (more than `pendingLength` once it is oversized). */
  readonly lineLength: number
}

const oversizedLine = (
  head: Buffer,
  line: number,
  offset: number,
  byteLength: number,
  terminated: boolean
): Line => ({ text: "", line, offset, byteLength, terminated, oversized: { head: Uint8Array.from(head) } })

/** The lines that end in `buffer` (read at `position`), and what is left of an unfinished line. */
const splitChunk = (
  state: State,
  buffer: Buffer,
  max: number
): { readonly lines: Array<Line>; readonly next: State } => {
  const out: Array<Line> = []
  const headBytes = Math.min(HEAD_BYTES, max)
  let line = state.line
  let start = 0
  let pending = state.pending
  let pendingLength = state.pendingLength
  let lineLength = state.lineLength
  let newline = buffer.indexOf(0x0a, 0)
  while (newline !== -1) {
    const offset = state.position + start - lineLength
    const length = lineLength + newline - start
    if (length > max) {
      const segment = buffer.subarray(start, Math.min(newline, start + headBytes))
      // Buffer.concat with a total length copies only that many bytes
      const head = lineLength === 0
        ? segment
        : Buffer.concat([...pending, segment], Math.min(headBytes, pendingLength + segment.length))
      out.push(oversizedLine(head, line, offset, length, true))
    } else if (lineLength === 0) {
      out.push({ text: buffer.toString("utf8", start, newline), line, offset, byteLength: length, terminated: true })
    } else {
      const joined = Buffer.concat([...pending, buffer.subarray(start, newline)])
      out.push({ text: joined.toString("utf8"), line, offset, byteLength: length, terminated: true })
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
    if (lineLength <= max) {
      // copied: the read buffer may be reused by the next read
      pending = [...pending, Buffer.from(buffer.subarray(start))]
      pendingLength += rest
    } else if (pendingLength < headBytes || pendingLength > headBytes) {
      // past the ceiling only the head is held
      const segment = buffer.subarray(start, start + headBytes)
      const head = Buffer.concat([...pending, segment], Math.min(headBytes, pendingLength + segment.length))
      pending = [head]
      pendingLength = head.length
    }
  }
  return {
    lines: out,
    next: { position: state.position + buffer.length, line, pending, pendingLength, lineLength }
  }
}

/** The unterminated last line of a file. */
const lastLine = (state: State, max: number): Line => {
  const buffer = Buffer.concat(state.pending as Array<Buffer>, state.pendingLength)
  const offset = state.position - state.lineLength
  if (state.lineLength > max) {
    return oversizedLine(buffer.subarray(0, Math.min(HEAD_BYTES, max)), state.line, offset, state.lineLength, false)
  }
  return { text: buffer.toString("utf8"), line: state.line, offset, byteLength: buffer.length, terminated: false }
}

/** One read at `state.position`: the lines it completes, and the next state (`None` at the end of file). */
const step = (
  path: string,
  read: (position: number) => Effect.Effect<Uint8Array, FileSystemError>,
  max: number,
  state: State,
  onRead: (bytes: number) => void
): Effect.Effect<readonly [Array<Line>, Option.Option<State>], FileSystemError> =>
  Effect.flatMap(read(state.position), (bytes) => {
    onRead(bytes.length)
    // decoding a line within the ceiling does not throw; this is a last guard (out of memory)
    return Effect.try({
      try: () => {
        if (bytes.length === 0) {
          return [state.lineLength === 0 ? [] : [lastLine(state, max)], Option.none<State>()] as const
        }
        const { lines, next } = splitChunk(state, asBuffer(bytes), max)
        return [lines, Option.some(next)] as const
      },
      catch: (error) =>
        new FileSystemError({
          path,
          operation: "decode line",
          offset: state.position - state.lineLength,
          detail: error instanceof Error ? error.message : String(error)
        })
    })
  })

const initialState = (options: ReadOptions): State => ({
  position: options.fromOffset ?? 0,
  line: options.firstLine ?? 1,
  pending: [],
  pendingLength: 0,
  lineLength: 0
})

const chunkSizeOf = (options: ReadOptions): number => Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE)

const maxOf = (options: ReadOptions): number =>
  Math.max(0, Math.min(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES))

/** A stream of the lines of `path`; `onRead` is told how many bytes every read returned. */
export const lines = (
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void
): Stream.Stream<Line, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Stream.unwrapScoped(
    Effect.map(backend.openRead(path), (handle) =>
      Stream.paginateChunkEffect(initialState(options), (state) =>
        Effect.map(
          step(
            path,
            (position) =>
              handle.read(position, chunkSizeOf(options)),
            maxOf(options),
            state,
            onRead
          ),
          ([lines, next]) => [Chunk.unsafeFromArray(lines), next] as const
        )))
  )

/**
 * Hands the lines of `path` to `onLines` one read at a time, synchronously, until the end of file
 * or until `onLines` returns `false`. The same lines as {@link lines}, without a stream: for
 * callers that fold every line at once (opening, listing), where a stream's machinery costs more
 * than the reading. Every read goes into ONE buffer of `chunkSize` bytes (what a line keeps is
 * copied out of it): fresh memory costs a page fault per 4 KiB touched, more than the read itself.
 */
export const forEachChunk = (
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void,
  onLines: (lines: ReadonlyArray<Line>) => boolean | void
): Effect.Effect<void, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Effect.scoped(Effect.flatMap(backend.openRead(path), (handle) => {
    const buffer = Buffer.allocUnsafe(chunkSizeOf(options))
    const read = (position: number) => Effect.map(handle.readInto(position, buffer), (n) => buffer.subarray(0, n))
    const max = maxOf(options)
    const loop = (state: State): Effect.Effect<void, FileSystemError> =>
      Effect.flatMap(step(path, read, max, state, onRead), ([lines, next]) => {
        const more = lines.length === 0 ? true : onLines(lines) !== false
        return more && Option.isSome(next) ? loop(next.value) : Effect.void
      })
    return loop(initialState(options))
  }))

/** The bytes `[offset, offset + length)` of `path`, in reads of at most 1 MiB; fewer when the file ends first. */
export const bytes = (
  backend: Backend,
  path: string,
  offset: number,
  length: number,
  onRead: (bytes: number) => void
): Stream.Stream<Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Stream.unwrapScoped(
    Effect.map(backend.openRead(path), (handle) =>
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
