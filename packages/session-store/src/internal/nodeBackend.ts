/**
 * The Node implementation of the primitive backend: node:fs directly, because
 * `@effect/platform`'s `FileSystem` has no bigint/ns stat, no O_APPEND read-back of the last byte
 * and no folder fsync. Operations are synchronous (like the references' appendFileSync); streamed
 * reads go chunk by chunk, so other fibers run between chunks.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { FileNotFoundError, FileSystemError, NotRegularFileError } from "../StoreError.js"
import type { AppendHandle, Backend, FileContent, LinkInfo, StatInfo, WriteHandle } from "./backend.js"
import { FileBackend, hasCode, makeLockRegistry } from "./backend.js"
import { bootTime, canonicalOf, CLOCK_TICKS, kindOf, openForRead } from "./nodePaths.js"

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const fsError = (path: string, operation: string, error: unknown, offset?: number): FileSystemError => {
  const code = codeOf(error)
  return new FileSystemError({
    path,
    operation,
    detail: error instanceof Error ? error.message : String(error),
    ...(code === undefined ? {} : { code }),
    ...(offset === undefined ? {} : { offset })
  })
}

const orNotFound = (path: string, operation: string) => (error: unknown): FileNotFoundError | FileSystemError =>
  hasCode(error, "ENOENT") ? new FileNotFoundError({ path, operation }) : fsError(path, operation, error)

const readFailure = (path: string, operation: string) => (error: unknown) =>
  error instanceof NotRegularFileError ? error : orNotFound(path, operation)(error)

const toStat = (st: fs.BigIntStats): StatInfo => ({
  dev: st.dev,
  ino: st.ino,
  size: Number(st.size),
  mtimeNs: st.mtimeNs,
  mode: Number(st.mode),
  uid: Number(st.uid),
  gid: Number(st.gid)
})

const writeFully = (fd: number, bytes: Uint8Array): void => {
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

const readFully = (fd: number, length: number, position: number): Uint8Array => {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const n = fs.readSync(fd, buffer, read, length - read, position + read)
    if (n === 0) break
    read += n
  }
  return buffer.subarray(0, read)
}

const syncDirectory = (dir: string): void => {
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

// ---- locks held by this process, removed synchronously on exit and on SIGINT/SIGTERM ----

const held = new Map<string, string>()
const signals = ["SIGINT", "SIGTERM"] as const

const removeHeldLocks = (): void => {
  for (const [lockPath, token] of held) {
    try {
      const payload = JSON.parse(fs.readFileSync(lockPath, "utf8")) as { token?: unknown }
      if (payload.token === token) fs.unlinkSync(lockPath)
    } catch {
      // gone or not ours any more
    }
  }
  held.clear()
}

const onSignal = (signal: NodeJS.Signals): void => {
  // only when nobody else handles the signal: then the default action (exit) is ours to keep
  if (process.listenerCount(signal) === 1) {
    removeHeldLocks()
    uninstall()
    process.kill(process.pid, signal)
  }
}

let installed = false
const install = (): void => {
  if (installed) return
  installed = true
  process.on("exit", removeHeldLocks)
  for (const signal of signals) process.on(signal, onSignal)
}
const uninstall = (): void => {
  if (!installed) return
  installed = false
  process.removeListener("exit", removeHeldLocks)
  for (const signal of signals) process.removeListener(signal, onSignal)
}

/**
 * Uninstalls the handlers a moment after the last lock is let go, not at once: a writer that
 * takes the lock for each append would otherwise start and stop the signal watchers every time
 * (about a tenth of each append's cost). Until then the handlers change nothing: with no lock
 * held, a signal nobody else handles still ends the process by its default action.
 */
let uninstallTimer: ReturnType<typeof setTimeout> | undefined
const UNINSTALL_AFTER_MS = 1000
const uninstallSoon = (): void => {
  if (!installed || uninstallTimer !== undefined) return
  uninstallTimer = setTimeout(() => {
    uninstallTimer = undefined
    if (held.size === 0) uninstall()
  }, UNINSTALL_AFTER_MS)
  uninstallTimer.unref()
}

const readStarttime = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // fields after the command name "(...)" start at field 3; starttime is field 22
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const value = Number(fields[19])
    return Number.isFinite(value) ? value : undefined
  } catch {
    return undefined
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

const makeWriteHandle = (path: string, fd: number): WriteHandle => ({
  write: (bytes) => Effect.try({ try: () => writeFully(fd, bytes), catch: (e) => fsError(path, "write", e) }),
  sync: Effect.try({ try: () => fs.fsyncSync(fd), catch: (e) => fsError(path, "fsync", e) }),
  chmod: (mode) => Effect.try({ try: () => fs.fchmodSync(fd, mode & 0o7777), catch: (e) => fsError(path, "chmod", e) }),
  chown: (uid, gid) => Effect.try({ try: () => fs.fchownSync(fd, uid, gid), catch: (e) => fsError(path, "chown", e) }),
  close: closeOnce(fd).close
})

const makeAppendHandle = (path: string, fd: number): AppendHandle => {
  const { close, isClosed } = closeOnce(fd)
  return {
    unsafeAppend: (data, fsync) => {
      try {
        if (isClosed()) throw new Error("append handle is closed")
        const written = typeof data === "string" ? writeStringFully(fd, data) : (writeFully(fd, data), data.length)
        if (fsync) fs.fsyncSync(fd)
        return written
      } catch (error) {
        throw fsError(path, "append", error)
      }
    },
    close
  }
}

/** The node:fs backend. */
export const nodeBackend: Backend = {
  resolve: (path) => nodePath.resolve(path),
  dirname: (path) => nodePath.dirname(path),
  basename: (path) => nodePath.basename(path),
  join: (dir, name) => nodePath.join(dir, name),
  canonical: canonicalOf,
  stat: (path) =>
    Effect.try({
      try: () => {
        const st = fs.statSync(path, { bigint: true, throwIfNoEntry: false })
        return st === undefined ? Option.none() : Option.some(toStat(st))
      },
      catch: (e) => fsError(path, "stat", e)
    }),
  lstat: (path) =>
    Effect.try({
      try: () => {
        const st = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false })
        return st === undefined
          ? Option.none()
          : Option.some<LinkInfo>({ kind: kindOf(st), ino: st.ino, mtimeNs: st.mtimeNs })
      },
      catch: (e) => fsError(path, "lstat", e)
    }),
  readTail: (path, length, end) =>
    Effect.try({
      try: () => {
        const fd = openForRead(path, "read")
        try {
          const stat = toStat(fs.fstatSync(fd, { bigint: true }))
          const stop = Math.min(end ?? stat.size, stat.size)
          const start = Math.max(0, stop - length)
          return { stat, bytes: readFully(fd, stop - start, start) }
        } finally {
          fs.closeSync(fd)
        }
      },
      catch: readFailure(path, "read")
    }),
  openRead: (path) =>
    // synchronous positional reads: parsing what is read blocks the thread anyway, and a
    // thread-pool round trip per chunk costs more than the read itself (tail reads of a few KiB
    // took 25-130 ms through fs.promises on a loaded machine); fibers still interleave between chunks
    Effect.acquireRelease(
      Effect.try({ try: () => openForRead(path, "open"), catch: readFailure(path, "open") }),
      (fd) => Effect.sync(() => fs.closeSync(fd)).pipe(Effect.ignore)
    ).pipe(Effect.map((fd) => ({
      read: (position: number, length: number) =>
        Effect.try({
          try: () => readFully(fd, length, position),
          catch: (e) => fsError(path, "read", e, position)
        })
    }))),
  append: (path, bytes, options) =>
    Effect.try({
      try: () => {
        const flags = fs.constants.O_APPEND | fs.constants.O_RDWR | (options.create ? fs.constants.O_CREAT : 0)
        let created = false
        let fd: number
        try {
          fd = fs.openSync(path, flags, 0o600)
        } catch (error) {
          if (!options.create || !hasCode(error, "ENOENT")) throw error
          fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 })
          fd = fs.openSync(path, flags, 0o600)
          created = true
        }
        try {
          const before = Number(fs.fstatSync(fd).size)
          created ||= before === 0
          let prefixedNewline = false
          if (before > 0) {
            const last = readFully(fd, 1, before - 1)
            prefixedNewline = last[0] !== 0x0a
          }
          const payload = prefixedNewline ? Buffer.concat([Buffer.from([0x0a]), bytes]) : bytes
          writeFully(fd, payload)
          if (options.fsync) fs.fsyncSync(fd)
          const size = Number(fs.fstatSync(fd).size)
          if (options.fsync && created) syncDirectory(nodePath.dirname(path))
          return { offset: size - bytes.length, bytesWritten: payload.length, prefixedNewline, size }
        } finally {
          fs.closeSync(fd)
        }
      },
      catch: orNotFound(path, "append")
    }),
  openAppend: (path) =>
    Effect.try({
      try: () => makeAppendHandle(path, fs.openSync(path, fs.constants.O_APPEND | fs.constants.O_WRONLY)),
      catch: orNotFound(path, "open")
    }),
  createExclusive: (path) =>
    Effect.try({
      try: () => makeWriteHandle(path, fs.openSync(path, "wx", 0o600)),
      catch: (e) => fsError(path, "create", e)
    }),
  readFile: (path) =>
    Effect.try({
      try: (): Option.Option<FileContent> => {
        let fd: number
        try {
          fd = fs.openSync(path, "r")
        } catch (error) {
          if (hasCode(error, "ENOENT")) return Option.none()
          throw error
        }
        try {
          const st = fs.fstatSync(fd, { bigint: true })
          return Option.some({ bytes: readFully(fd, Number(st.size), 0), ino: st.ino, mtimeNs: st.mtimeNs })
        } finally {
          fs.closeSync(fd)
        }
      },
      catch: (e) => fsError(path, "read", e)
    }),
  rename: (from, to) => Effect.try({ try: () => fs.renameSync(from, to), catch: orNotFound(from, "rename") }),
  remove: (path) =>
    Effect.try({
      try: () => {
        try {
          fs.unlinkSync(path)
        } catch (error) {
          if (!hasCode(error, "ENOENT")) throw error
        }
      },
      catch: (e) => fsError(path, "remove", e)
    }),
  link: (existing, to) => Effect.try({ try: () => fs.linkSync(existing, to), catch: orNotFound(existing, "link") }),
  copyExclusive: (from, to) =>
    Effect.try({
      try: () => {
        fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
        fs.chmodSync(to, 0o600)
        const fd = fs.openSync(to, "r")
        try {
          fs.fsyncSync(fd)
        } finally {
          fs.closeSync(fd)
        }
      },
      catch: orNotFound(from, "backup")
    }),
  makeDirectory: (dir) =>
    Effect.try({
      try: () => void fs.mkdirSync(dir, { recursive: true, mode: 0o700 }),
      catch: (e) => fsError(dir, "mkdir", e)
    }),
  listDirectory: (dir) =>
    Effect.try({
      try: () => {
        let names: Array<fs.Dirent>
        try {
          names = fs.readdirSync(dir, { withFileTypes: true })
        } catch (error) {
          if (hasCode(error, "ENOENT") || hasCode(error, "ENOTDIR")) return []
          throw error
        }
        return names.map((dirent) => {
          let st: fs.Stats | undefined
          try {
            st = dirent.isFile() || dirent.isSymbolicLink() ? fs.statSync(nodePath.join(dir, dirent.name)) : undefined
          } catch {
            st = undefined
          }
          return {
            name: dirent.name,
            isFile: st?.isFile() ?? false,
            isDirectory: dirent.isDirectory() || (st?.isDirectory() ?? false),
            mtimeMs: st?.mtimeMs ?? 0,
            size: st?.size ?? 0
          }
        })
      },
      catch: (e) => fsError(dir, "readdir", e)
    }),
  syncDirectory: (dir) => Effect.sync(() => syncDirectory(dir)),
  hostname: os.hostname(),
  pid: process.pid,
  isAlive: (pid) => {
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      if (hasCode(error, "ESRCH")) return false
      if (hasCode(error, "EPERM")) return true
      return undefined
    }
  },
  starttime: readStarttime,
  startedAtMs: (pid) => {
    const ticks = readStarttime(pid)
    const boot = bootTime()
    return ticks === undefined || boot === undefined ? undefined : boot * 1000 + (ticks * 1000) / CLOCK_TICKS
  },
  registerHeld: (lockPath, token) => {
    held.set(lockPath, token)
    install()
  },
  unregisterHeld: (lockPath) => {
    held.delete(lockPath)
    if (held.size === 0) uninstallSoon()
  },
  locks: makeLockRegistry()
}

/** The Node backend as a layer. */
export const layer: Layer.Layer<FileBackend> = Layer.succeed(FileBackend, nodeBackend)
