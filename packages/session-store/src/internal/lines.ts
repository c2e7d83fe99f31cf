/**
 * Splits a file into lines from Buffers read in chunks: no whole-file string is ever built, each
 * line is decoded on its own with `buf.toString("utf8", start, end)`.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type FileNotFoundError, FileSystemError } from "../StoreError.js"
import type { Backend } from "./backend.js"

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

const decode = (path: string, buffer: Buffer, start: number, end: number, offset: number) =>
  Effect.try({
    try: () => buffer.toString("utf8", start, end),
    catch: (error) =>
      new FileSystemError({
        path,
        operation: "decode line",
        offset,
        detail: error instanceof Error ? error.message : String(error)
      })
  })

/** A stream of the lines of `path`; `onRead` is told how many bytes every read returned. */
export const lines = (
  backend: Backend,
  path: string,
  options: ReadOptions,
  onRead: (bytes: number) => void
): Stream.Stream<Line, FileNotFoundError | FileSystemError> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const handle = yield* backend.openRead(path)
    const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE)
    const initial: State = {
      position: options.fromOffset ?? 0,
      line: options.firstLine ?? 1,
      pending: [],
      pendingLength: 0
    }
    return Stream.paginateChunkEffect(initial, (state) =>
      Effect.gen(function*() {
        const bytes = yield* handle.read(state.position, chunkSize)
        onRead(bytes.length)
        const lineStartOf = state.position - state.pendingLength
        if (bytes.length === 0) {
          if (state.pendingLength === 0) return [Chunk.empty<Line>(), Option.none<State>()] as const
          const buffer = Buffer.concat(state.pending as Array<Buffer>, state.pendingLength)
          const text = yield* decode(path, buffer, 0, buffer.length, lineStartOf)
          const last: Line = {
            text,
            line: state.line,
            offset: lineStartOf,
            byteLength: buffer.length,
            terminated: false
          }
          return [Chunk.of(last), Option.none<State>()] as const
        }
        const buffer = asBuffer(bytes)
        const out: Array<Line> = []
        let line = state.line
        let start = 0
        let pending = state.pending
        let pendingLength = state.pendingLength
        let newline = buffer.indexOf(0x0a, 0)
        while (newline !== -1) {
          const offset = state.position + start - pendingLength
          let text: string
          let byteLength: number
          if (pendingLength === 0) {
            text = yield* decode(path, buffer, start, newline, offset)
            byteLength = newline - start
          } else {
            const joined = Buffer.concat([...pending, buffer.subarray(start, newline)])
            text = yield* decode(path, joined, 0, joined.length, offset)
            byteLength = joined.length
            pending = []
            pendingLength = 0
          }
          out.push({ text, line, offset, byteLength, terminated: true })
          line += 1
          start = newline + 1
          newline = buffer.indexOf(0x0a, start)
        }
        if (start < buffer.length) {
          pending = [...pending, buffer.subarray(start)]
          pendingLength += buffer.length - start
        }
        const next: State = { position: state.position + buffer.length, line, pending, pendingLength }
        return [Chunk.unsafeFromArray(out), Option.some(next)] as const
      }))
  }))

/** The offset just past a line (and its `\n`). */
export const endOf = (line: Line): number => line.offset + line.byteLength + (line.terminated ? 1 : 0)
