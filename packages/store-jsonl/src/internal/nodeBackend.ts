/**
 * The Node implementation of the primitive backend: node:fs directly, because
 * `@effect/platform`'s `FileSystem` has no bigint/ns stat, no O_APPEND read-back of the last byte
 * and no folder fsync. Operations are synchronous (like the references' appendFileSync); streamed
 * reads go chunk by chunk, so other fibers run between chunks.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import type { Backend, DirEntry, FileContent, LinkInfo, LockRegistry } from "./backend.js"
import { FileBackend, hasCode, ProcessLocks } from "./backend.js"
import {
  fsError,
  makeAppendHandle,
  makeWriteHandle,
  orNotFound,
  readFailure,
  readFully,
  readFullyInto,
  syncDirectory,
  toStat,
  writeFully
} from "./nodeHandles.js"
import { makeKnownAppends } from "./nodeKnownAppends.js"
import type { ExitCleanup } from "./nodeLockFiles.js"
import { createLockFile, makeExitCleanup } from "./nodeLockFiles.js"
import type { ProcReader } from "./nodePaths.js"
import {
  canonicalOf,
  CLOCK_TICKS,
  kindOf,
  memoizedResolve,
  openForRead,
  openForReadWithStat,
  readBootTime,
  readProc as nodeReadProc,
  readStarttime
} from "./nodePaths.js"

/** Options of `make` (for tests: where /proc is read from). */
export interface Options {
  readonly readProc?: ProcReader
}

/**
 * A node:fs backend with its own state: the lock files it holds for the exit and signal
 * handlers (and those handlers), the descriptors it keeps for appends (`nodeKnownAppends.ts`), its
 * count of temporary files and its cached boot time. The
 * in-process lock state (held locks, gates) is the process's, from `ProcessLocks`.
 */
export const make = (
  locks: LockRegistry,
  options: Options = {}
): { readonly backend: Backend; readonly cleanup: ExitCleanup; readonly release: () => void } => {
  const readProc = options.readProc ?? nodeReadProc
  const cleanup = makeExitCleanup()
  const knownAppends = makeKnownAppends()
  let temporaries = 0
  let bootTimeS: number | undefined | null = null
  const bootTime = (): number | undefined => {
    if (bootTimeS === null) bootTimeS = readBootTime(readProc)
    return bootTimeS
  }
  const starttime = (pid: number) => readStarttime(readProc, pid)
  const resolve = memoizedResolve()
  const backend: Backend = {
    resolve,
    dirname: (path) => nodePath.dirname(path),
    basename: (path) => nodePath.basename(path),
    join: (dir, name) => nodePath.join(dir, name),
    canonical: (path) => canonicalOf(path, resolve),
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
          const opened = openForReadWithStat(path, "read")
          const fd = opened.fd
          try {
            const stat = toStat(opened.stat)
            const stop = Math.min(end ?? stat.size, stat.size)
            const start = Math.max(0, stop - length)
            return { stat, bytes: readFully(fd, stop - start, start) }
          } finally {
            fs.closeSync(fd)
          }
        },
        catch: readFailure(path, "read")
      }),
    unsafeOpenRead: (path) =>
      // synchronous positional reads: parsing what is read blocks the thread anyway, and a
      // thread-pool round trip per chunk costs more than the read itself (tail reads of a few KiB
      // took 25-130 ms through fs.promises on a loaded machine); fibers still interleave between chunks
      Either.map(
        Either.try({ try: () => openForRead(path, "open"), catch: readFailure(path, "open") }),
        (fd) => {
          let open = true
          return {
            unsafeRead: (position: number, length: number) =>
              Either.try({
                try: () => readFully(fd, length, position),
                catch: (e) => fsError(path, "read", e, position)
              }),
            unsafeReadInto: (position: number, into: Uint8Array) =>
              Either.try({
                try: () => readFullyInto(fd, into, position),
                catch: (e) => fsError(path, "read", e, position)
              }),
            unsafeClose: () => {
              if (!open) return
              open = false
              try {
                fs.closeSync(fd)
              } catch {
                // closing a descriptor only fails when it is already gone
              }
            }
          }
        }
      ),
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
            const known = options.known
            const opened = known === undefined ? undefined : fs.fstatSync(fd, { bigint: true })
            const before = Number(opened === undefined ? fs.fstatSync(fd).size : opened.size)
            created ||= before === 0
            // the file as verified (same inode, size and mtime), ending with `\n`: no read-back of its last byte
            const asKnown = opened !== undefined && opened.dev === known!.dev && opened.ino === known!.ino &&
              before === known!.size && opened.mtimeNs === known!.mtimeNs
            let prefixedNewline = false
            if (before > 0 && !asKnown) {
              const last = readFully(fd, 1, before - 1)
              prefixedNewline = last[0] !== 0x0a
            }
            const payload = prefixedNewline ? Buffer.concat([Buffer.from([0x0a]), bytes]) : bytes
            writeFully(fd, payload)
            if (options.fsync) fs.fsyncSync(fd)
            const stat = toStat(fs.fstatSync(fd, { bigint: true }))
            const size = stat.size
            if (options.fsync && created) syncDirectory(nodePath.dirname(path))
            return { offset: size - bytes.length, bytesWritten: payload.length, prefixedNewline, size, stat }
          } finally {
            fs.closeSync(fd)
          }
        },
        catch: orNotFound(path, "append")
      }),
    unsafeOpenKnown: (path, known) => {
      const fd = knownAppends.take(path, known)
      if (fd === undefined) return undefined
      return {
        unsafeAppend: (bytes) => {
          try {
            writeFully(fd, bytes)
            const stat = toStat(fs.fstatSync(fd, { bigint: true }))
            return Either.right({
              offset: stat.size - bytes.length,
              bytesWritten: bytes.length,
              prefixedNewline: false,
              size: stat.size,
              stat
            })
          } catch (error) {
            knownAppends.forget(path)
            return Either.left(fsError(path, "append", error))
          }
        },
        // the descriptor stays open for the next append (`KnownAppends`)
        unsafeClose: () => {}
      }
    },
    openAppend: (path) =>
      Effect.try({
        try: () => makeAppendHandle(path, fs.openSync(path, fs.constants.O_APPEND | fs.constants.O_WRONLY)),
        catch: orNotFound(path, "open")
      }),
    createLockFile: (path, content) => {
      try {
        return Either.right(createLockFile(path, content))
      } catch (error) {
        return Either.left(fsError(path, "create", error))
      }
    },
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
    rename: (from, to) =>
      Effect.try({
        try: () => {
          fs.renameSync(from, to)
          knownAppends.forget(from)
          knownAppends.forget(to)
        },
        catch: orNotFound(from, "rename")
      }),
    remove: (path) =>
      Effect.try({
        try: () => {
          knownAppends.forget(path)
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
    listDirectory: (dir, keep) =>
      Effect.try({
        try: () => {
          let names: Array<fs.Dirent>
          try {
            names = fs.readdirSync(dir, { withFileTypes: true })
          } catch (error) {
            if (hasCode(error, "ENOENT") || hasCode(error, "ENOTDIR")) return []
            throw error
          }
          // one readdir with the types, then a stat only of the files (and links) kept: the
          // listing of a folder of 10,000 sessions is these stats (see the catalog benchmark)
          const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep
          const out: Array<DirEntry> = []
          // the device is the folder's for nearly every file: one string, not one per file
          let dev: bigint | undefined
          let devText = ""
          for (const dirent of names) {
            if (keep !== undefined && !keep(dirent.name)) continue
            let st: fs.BigIntStats | undefined
            try {
              st = dirent.isFile() || dirent.isSymbolicLink()
                ? fs.statSync(prefix + dirent.name, { bigint: true, throwIfNoEntry: false })
                : undefined
            } catch {
              st = undefined
            }
            const isFile = st?.isFile() ?? false
            if (st !== undefined && isFile && st.dev !== dev) {
              dev = st.dev
              devText = String(dev)
            }
            out.push(
              st === undefined || !isFile
                ? {
                  name: dirent.name,
                  isFile,
                  isDirectory: dirent.isDirectory() || (st?.isDirectory() ?? false),
                  mtimeMs: st === undefined ? 0 : Number(st.mtimeNs) / 1e6,
                  size: st === undefined ? 0 : Number(st.size)
                }
                : {
                  name: dirent.name,
                  isFile,
                  isDirectory: false,
                  mtimeMs: Number(st.mtimeNs) / 1e6,
                  size: Number(st.size),
                  mtimeNs: String(st.mtimeNs),
                  dev: devText,
                  ino: String(st.ino)
                }
            )
          }
          return out
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
    starttime,
    startedAtMs: (pid) => {
      const ticks = starttime(pid)
      const boot = bootTime()
      return ticks === undefined || boot === undefined ? undefined : boot * 1000 + (ticks * 1000) / CLOCK_TICKS
    },
    nextTemporary: () => temporaries++,
    registerHeld: cleanup.register,
    unregisterHeld: cleanup.unregister,
    locks
  }
  return {
    backend,
    cleanup,
    release: () => {
      knownAppends.closeAll()
      cleanup.dispose()
    }
  }
}

/**
 * The Node backend as a layer: each build has its own state (see `make`); its exit and signal
 * handlers and its kept descriptors go with it when the layer is released.
 */
export const layer: Layer.Layer<FileBackend> = Layer.scoped(
  FileBackend,
  Effect.flatMap(ProcessLocks, (locks) =>
    Effect.acquireRelease(
      Effect.sync(() => make(locks)),
      ({ release }) => Effect.sync(release)
    ).pipe(Effect.map(({ backend }) => backend)))
)
