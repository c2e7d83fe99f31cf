/**
 * The node:fs pieces the Node backend is made of: its errors (with the path, the operation and
 * the code), stat conversion, full reads and writes, and the write and append handles over a
 * descriptor.
 */
import { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"
import type { AppendHandle, StatInfo, WriteHandle } from "./backend.js"
import { hasCode } from "./backend.js"

/** The `code` of a Node error, if it has one. */
const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** A `FileSystemError` of an operation on `path` (its code kept). */
export const fsError = (path: string, operation: string, error: unknown, offset?: number): FileSystemError => {
  const code = codeOf(error)
  return new FileSystemError({
    path,
    operation,
    detail: error instanceof Error ? error.message : String(error),
    ...(code === undefined ? {} : { code }),
    ...(offset === undefined ? {} : { offset })
  })
}

/** `ENOENT` as `FileNotFoundError`, anything else as `FileSystemError`. */
export const orNotFound = (path: string, operation: string) => (error: unknown): FileNotFoundError | FileSystemError =>
  hasCode(error, "ENOENT") ? new FileNotFoundError({ path, operation }) : fsError(path, operation, error)

/** A read's failure: a `NotRegularFileError` as it is, else `orNotFound`. */
export const readFailure = (path: string, operation: string) => (error: unknown) =>
  error instanceof NotRegularFileError ? error : orNotFound(path, operation)(error)

/** A bigint stat as the backend's `StatInfo`. */
export const toStat = (st: fs.BigIntStats): StatInfo => ({
  dev: st.dev,
  ino: st.ino,
  size: Number(st.size),
  mtimeNs: st.mtimeNs,
  mode: Number(st.mode),
  uid: Number(st.uid),
  gid: Number(st.gid)
})

/** Writes all of `bytes` (again after a short write). */
export const writeFully = (fd: number, bytes: Uint8Array): void => {
  let written = 0
  while (written < bytes.length) {
    written += fs.writeSync(fd, bytes, written, bytes.length - written)
  }
}

/** Writes a string as UTF-8 (no intermediate Buffer in the common case of one full write); gives its byte length. */
const writeStringFully = (fd: number, text: string): number => {
  const length = Buffer.byteLength(text)
  const written = fs.writeSync(fd, text)
  if (written < length) writeFully(fd, Buffer.from(text).subarray(written))
  return length
}

/** Reads up to `length` bytes at `position` (fewer at the end of the file). */
export const readFully = (fd: number, length: number, position: number): Uint8Array => {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, position + read)
    if (n === 0) break
    read += n
  }
  return buffer.subarray(0, read)
}

/** Reads up to `into.length` bytes at `position` into `into`; gives how many (fewer at the end of the file). */
export const readFullyInto = (fd: number, into: Uint8Array, position: number): number => {
  let read = 0
  while (read < into.length) {
    const n = fs.readSync(fd, into, read, into.length - read, position + read)
    if (n === 0) break
    read += n
  }
  return read
}

/** Syncs a folder's entries (ignored where the platform refuses). */
export const syncDirectory = (dir: string): void => {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, "r")
    fs.fsyncSync(fd)
  } catch {
    // some platforms (Windows, some network filesystems) refuse to sync a folder
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** `close` closes `fd` the first time it runs and does nothing after; `isClosed` tells whether it ran. */
const closeOnce = (fd: number): { readonly close: Effect.Effect<void>; readonly isClosed: () => boolean } => {
  let closed = false
  return {
    close: Effect.sync(() => {
      if (closed) return
      closed = true
      try {
        fs.closeSync(fd)
      } catch {
        // already closed
      }
    }),
    isClosed: () => closed
  }
}

/** A `WriteHandle` over an open descriptor. */
export const makeWriteHandle = (path: string, fd: number): WriteHandle => ({
  write: (bytes) => Effect.try({ try: () => writeFully(fd, bytes), catch: (e) => fsError(path, "write", e) }),
  sync: Effect.try({ try: () => fs.fsyncSync(fd), catch: (e) => fsError(path, "fsync", e) }),
  chmod: (mode) => Effect.try({ try: () => fs.fchmodSync(fd, mode & 0o7777), catch: (e) => fsError(path, "chmod", e) }),
  chown: (uid, gid) => Effect.try({ try: () => fs.fchownSync(fd, uid, gid), catch: (e) => fsError(path, "chown", e) }),
  close: closeOnce(fd).close
})

/** An `AppendHandle` over a descriptor open for appends. */
export const makeAppendHandle = (path: string, fd: number): AppendHandle => {
  const { close, isClosed } = closeOnce(fd)
  return {
    unsafeAppend: (data, fsync) => {
      if (isClosed()) return Either.left(fsError(path, "append", new Error("append handle is closed")))
      try {
        const written = typeof data === "string" ? writeStringFully(fd, data) : (writeFully(fd, data), data.length)
        if (fsync) fs.fsyncSync(fd)
        return Either.right(written)
      } catch (error) {
        return Either.left(fsError(path, "append", error))
      }
    },
    close
  }
}
