/**
 * Splits a file into lines from Buffers read in chunks: no whole-file string is ever built, each
 * line is decoded on its own with `buf.toString("utf8", start, end)`.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type FileNotFoundError, FileSystemError, type NotRegularFileError } from "../StoreError.js"
import type { Backend, ReadHandle } from "./backend.js"

/** One line of a file. */
export interface Line {
  /** The line's text, decoded as UTF-8, without its `\n`. */
  readonly text: string
  /** 1-based line number. */
  readonly line: number
  /** Byte offset of the line's first byte. */
  readonly offset: number
  /** Length in bytes, without the `\n`. */
  readonly byteLength: number
  /** `false` for a final segment without `\n`: a possibly torn tail. */
  readonly terminated: boolean
}

/** Where to start and how much to read at a time. */
export interface ReadOptions {
  /** Byte offset to start at (a line boundary); default 0. */
  readonly fromOffset?: number
  /** The line number of the line at `fromOffset`; default 1. */
  readonly firstLine?: number
  /** Bytes per read; default 1 MiB. */
  readonly chunkSize?: number
}

/** The default read size. */
export const DEFAULT_CHUNK_SIZE = 1024 * 1024

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

interface State {
  readonly position: number
  readonly line: number
  /** Bytes of the current, unfinished line (it started in an earlier chunk). */
  readonly pending: ReadonlyArray<Buffer>
  readonly pendingLength: number
}

/** The lines that end in `buffer` (read at `position`), and what is left of an unfinished line. */
const splitChunk = (state: State, buffer: Buffer): { readonly lines: Array<Line>; readonly next: State } => {
  const out: Array<Line> = []
  let line = state.line
  let start = 0
  let pending = state.pending
  let pendingLength = state.pendingLength
  let newline = buffer.indexOf(0x0a, 0)
  while (newline !== -1) {
    const offset = state.position + start - pendingLength
    if (pendingLength === 0) {
      out.push({
        text: buffer.toString("utf8", start, newline),
        line,
        offset,
        byteLength: newline - start,
        terminated: true
      })
    } else {
      const joined = Buffer.concat([...pending, buffer.subarray(start, newline)])
      out.push({ text: joined.toString("utf8"), line, offset, byteLength: joined.length, terminated: true })
      pending = []
      pendingLength = 0
    }
    line += 1
    start = newline + 1
    newline = buffer.indexOf(0x0a, start)
  }
  if (start < buffer.length) {
    // copied: the read buffer may be reused by the next read
    pending = [...pending, Buffer.from(buffer.subarray(start))]
    pendingLength += buffer.length - start
  }
  return { lines: out, next: { position: state.position + buffer.length, line, pending, pendingLength } }
}

/** The unterminated last line of a file. */
const lastLine = (state: State): Line => {
  const buffer = Buffer.concat(state.pending as Array<Buffer>, state.pendingLength)
  return {
    text: buffer.toString("utf8"),
    line: state.line,
    offset: state.position - state.pendingLength,
    byteLength: buffer.length,
    terminated: false
  }
}

/** One read at `state.position`: the lines it completes, and the next state (`None` at the end of file). */
const step = (
  path: string,
  handle: ReadHandle,
  chunkSize: number,
  state: State,
  onRead: (bytes: number) => void
): Effect.Effect<readonly [Array<Line>, Option.Option<State>], FileSystemError> =>
  Effect.flatMap(handle.read(state.position, chunkSize), (bytes) => {
    onRead(bytes.length)
    // decoding a line only throws when it is longer than a string can be (about 512 MiB)
    return Effect.try({
      try: () => {
        if (bytes.length === 0) {
          return [state.pendingLength === 0 ? [] : [lastLine(state)], Option.none<State>()] as const
        }
        const { lines, next } = splitChunk(state, asBuffer(bytes))
        return [lines, Option.some(next)] as const
      },
      catch: (error) =>
        new FileSystemError({
          path,
          operation: "decode line",
          offset: state.position - state.pendingLength,
          detail: error instanceof Error ? error.message : String(error)
        })
    })
  })

const initialState = (options: ReadOptions): State => ({
  position: options.fromOffset ?? 0,
  line: options.firstLine ?? 1,
  pending: [],
  pendingLength: 0
})

const chunkSizeOf = (options: ReadOptions): number => Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE)

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
          step(path, handle, chunkSizeOf(options), state, onRead),
          ([lines, next]) =>
            [Chunk.unsafeFromArray(lines), next] as const
        )))
  )

/**
 * Hands the lines of `path` to `onLines` one read at a time, synchronously, until the end of file
 * or until `onLines` returns `false`. The same lines as {@link lines}, without a stream: for
 * callers that fold every line at once (opening, listing), where a stream's machinery costs more
 * than the reading.
 */
export const forEachChunk = (
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void,
  onLines: (lines: ReadonlyArray<Line>) => boolean | void
): Effect.Effect<void, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Effect.scoped(Effect.flatMap(backend.openRead(path), (handle) => {
    const chunkSize = chunkSizeOf(options)
    const loop = (state: State): Effect.Effect<void, FileSystemError> =>
      Effect.flatMap(step(path, handle, chunkSize, state, onRead), ([lines, next]) => {
        const more = lines.length === 0 ? true : onLines(lines) !== false
        return more && Option.isSome(next) ? loop(next.value) : Effect.void
      })
    return loop(initialState(options))
  }))

/** The offset just past a line (and its `\n`). */
export const endOf = (line: Line): number => line.offset + line.byteLength + (line.terminated ? 1 : 0)
