/**
 * The lines of a file as bytes: each line is handed over as the pieces of the reads it spans
 * (never joined, never decoded), so a rewrite that keeps lines byte for byte holds at most one
 * read of the file at a time, whatever the size of the file or of one line.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { FileNotFoundError, FileSystemError } from "../StoreError.js"
import type { Backend } from "./backend.js"

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
  /** The line's bytes (without the `\n`), as the pieces of the reads it spans (each at most one read). */
  readonly pieces: ReadonlyArray<Uint8Array>
}

/** Where to start and how much to read at a time. */
export interface RawReadOptions {
  readonly fromOffset?: number
  readonly firstLine?: number
  /** Bytes per read (the largest piece handed over); default 1 MiB. */
  readonly chunkSize?: number
}

interface State {
  readonly position: number
  readonly line: number
  readonly pending: ReadonlyArray<Uint8Array>
  readonly pendingLength: number
}

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

/** The lines of `path` as bytes; `onRead` is told how many bytes every read returned. */
export const rawLines = (
  backend: Backend,
  path: string,
  options: RawReadOptions,
  onRead: (bytes: number) => void
): Stream.Stream<RawLine, FileNotFoundError | FileSystemError> =>
  Stream.unwrapScoped(Effect.map(backend.openRead(path), (handle) => {
    const chunkSize = Math.max(1, options.chunkSize ?? 1024 * 1024)
    const initial: State = {
      position: options.fromOffset ?? 0,
      line: options.firstLine ?? 1,
      pending: [],
      pendingLength: 0
    }
    return Stream.paginateChunkEffect(
      initial,
      (state) =>
        Effect.map(handle.read(state.position, chunkSize), (bytes) => {
          onRead(bytes.length)
          const out: Array<RawLine> = []
          if (bytes.length === 0) {
            if (state.pendingLength > 0) {
              out.push({
                line: state.line,
                offset: state.position - state.pendingLength,
                byteLength: state.pendingLength,
                terminated: false,
                pieces: state.pending
              })
            }
            return [Chunk.unsafeFromArray(out), Option.none<State>()] as const
          }
          let line = state.line
          let pending = state.pending
          let pendingLength = state.pendingLength
          let start = 0
          let newline = bytes.indexOf(0x0a, 0)
          while (newline !== -1) {
            const piece = bytes.subarray(start, newline)
            const pieces = pendingLength === 0 ? [piece] : [...pending, piece]
            out.push({
              line,
              offset: state.position + start - pendingLength,
              byteLength: pendingLength + piece.length,
              terminated: true,
              pieces
            })
            pending = []
            pendingLength = 0
            line += 1
            start = newline + 1
            newline = bytes.indexOf(0x0a, start)
          }
          if (start < bytes.length) {
            // kept as is: both backends hand out a fresh array per read, never reused
            pending = [...pending, bytes.subarray(start)]
            pendingLength += bytes.length - start
          }
          const next: State = { position: state.position + bytes.length, line, pending, pendingLength }
          return [Chunk.unsafeFromArray(out), Option.some(next)] as const
        })
    )
  }))
