/**
 * The primitive backend over a `MemoryVolume`.
 */
import { FileNotFoundError, FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as posix from "node:path/posix"
import type { Backend, LockRegistry, StatInfo } from "./backend.js"
import { makeLockRegistry } from "./backend.js"
import type { Inode, MemoryVolume } from "./memoryVolume.js"
import { VolumeError } from "./memoryVolume.js"

const fsError = (path: string, operation: string, error: unknown, offset?: number): FileSystemError =>
  new FileSystemError({
    path,
    operation,
    detail: error instanceof Error ? error.message : String(error),
    ...(error instanceof VolumeError ? { code: error.code } : {}),
    ...(offset === undefined ? {} : { offset })
  })

const orNotFound = (path: string, operation: string) => (error: unknown): FileNotFoundError | FileSystemError =>
  error instanceof VolumeError && error.code === "ENOENT"
    ? new FileNotFoundError({ path, operation })
    : fsError(path, operation, error)

/** A folder is refused as a file to read, as on disk. */
const readFailure = (path: string, operation: string) => (error: unknown) =>
  error instanceof NotRegularFileError ? error : orNotFound(path, operation)(error)

const requireFile = (volume: MemoryVolume, path: string, operation: string): Inode => {
  if (volume.isDirectory(path)) throw new NotRegularFileError({ path, operation, kind: "directory" })
  return volume.require(path, operation)
}

const toStat = (inode: Inode): StatInfo => ({
  dev: 1n,
  ino: inode.ino,
  size: inode.size,
  mtimeNs: inode.mtimeNs,
  mode: inode.mode,
  uid: 0,
  gid: 0
})

const NEWLINE = new Uint8Array([0x0a])
const encoder = new TextEncoder()

const registries = new WeakMap<MemoryVolume, LockRegistry>()

/** The backend over an in-memory volume (the in-process lock state is per volume). */
export const memoryBackend = (volume: MemoryVolume): Backend => {
  const held = new Map<string, string>()
  let temporaries = 0
  let locks = registries.get(volume)
  if (locks === undefined) {
    locks = makeLockRegistry()
    registries.set(volume, locks)
  }
  return {
    resolve: (path) => volume.resolve(path),
    dirname: (path) => posix.dirname(path),
    basename: (path) => posix.basename(path),
    join: (dir, name) => posix.join(dir, name),
    canonical: (path) => volume.resolve(path),
    stat: (path) =>
      Effect.sync(() => {
        const inode = volume.inode(path)
        return inode === undefined ? Option.none() : Option.some(toStat(inode))
      }),
    lstat: (path) =>
      Effect.sync(() => {
        const inode = volume.inode(path)
        if (inode !== undefined) return Option.some({ kind: "file" as const, ino: inode.ino, mtimeNs: inode.mtimeNs })
        return volume.isDirectory(path)
          ? Option.some({ kind: "directory" as const, ino: 0n, mtimeNs: 0n })
          : Option.none()
      }),
    readTail: (path, length, end) =>
      Effect.try({
        try: () => {
          const inode = requireFile(volume, path, "read")
          const stop = Math.min(end ?? inode.size, inode.size)
          const start = Math.max(0, stop - length)
          return { stat: toStat(inode), bytes: inode.data.slice(start, stop) }
        },
        catch: readFailure(path, "read")
      }),
    unsafeOpenRead: (path) =>
      Either.map(
        Either.try({ try: () => requireFile(volume, path, "open"), catch: readFailure(path, "open") }),
        (inode) => ({
          unsafeRead: (position: number, length: number) =>
            Either.right(inode.data.slice(Math.min(position, inode.size), Math.min(position + length, inode.size))),
          unsafeReadInto: (position: number, into: Uint8Array) => {
            const piece = inode.data.subarray(
              Math.min(position, inode.size),
              Math.min(position + into.length, inode.size)
            )
            into.set(piece, 0)
            return Either.right(piece.length)
          },
          unsafeClose: () => {}
        })
      ),
    append: (path, bytes, options) =>
      Effect.try({
        try: () => {
          let inode = volume.inode(path)
          if (inode === undefined) {
            if (!options.create) throw new VolumeError("ENOENT", path, "append")
            volume.mkdir(posix.dirname(volume.resolve(path)))
            inode = volume.create(path, "append")
          }
          const prefixedNewline = inode.size > 0 && inode.data[inode.size - 1] !== 0x0a
          if (prefixedNewline) {
            const joined = new Uint8Array(bytes.length + 1)
            joined.set(NEWLINE, 0)
            joined.set(bytes, 1)
            volume.write(inode, joined)
          } else {
            volume.write(inode, bytes)
          }
          return {
            offset: inode.size - bytes.length,
            bytesWritten: bytes.length + (prefixedNewline ? 1 : 0),
            prefixedNewline,
            size: inode.size
          }
        },
        catch: orNotFound(path, "append")
      }),
    openAppend: (path) =>
      Effect.try({
        try: () => {
          // like an open file descriptor: bound to the inode, not to the name
          const inode = volume.require(path, "open")
          let closed = false
          return {
            unsafeAppend: (data: string | Uint8Array) => {
              if (closed) return Either.left(fsError(path, "append", new VolumeError("EBADF", path, "append")))
              const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
              try {
                volume.write(inode, bytes)
              } catch (error) {
                return Either.left(fsError(path, "append", error))
              }
              return Either.right(bytes.length)
            },
            close: Effect.sync(() => {
              closed = true
            })
          }
        },
        catch: orNotFound(path, "open")
      }),
    createLockFile: (path, content) => {
      try {
        if (volume.exists(path) || volume.isDirectory(path)) return Either.right(false)
        volume.mkdir(posix.dirname(volume.resolve(path)))
        volume.write(volume.create(path, "create"), encoder.encode(content))
        // the volume keeps no descriptors: the text decides (unchanged, it is ours)
        return Either.right({
          removeIfOurs: () => {
            if (volume.readText(path) === content) volume.remove(path)
          }
        })
      } catch (e) {
        return Either.left(fsError(path, "create", e))
      }
    },
    createExclusive: (path) =>
      Effect.try({
        try: () => {
          const inode = volume.create(path, "create")
          return {
            write: (bytes: Uint8Array) => Effect.sync(() => volume.write(inode, bytes)),
            sync: Effect.void,
            chmod: (mode: number) =>
              Effect.sync(() => {
                inode.mode = mode & 0o7777
              }),
            chown: () => Effect.void,
            close: Effect.void
          }
        },
        catch: (e) => fsError(path, "create", e)
      }),
    readFile: (path) =>
      Effect.sync(() => {
        const inode = volume.inode(path)
        return inode === undefined
          ? Option.none()
          : Option.some({ bytes: inode.data.slice(0, inode.size), ino: inode.ino, mtimeNs: inode.mtimeNs })
      }),
    rename: (from, to) => Effect.try({ try: () => volume.rename(from, to), catch: orNotFound(from, "rename") }),
    remove: (path) => Effect.sync(() => void volume.remove(path)),
    link: (existing, to) =>
      Effect.try({
        try: () => {
          const inode = volume.require(existing, "link")
          volume.linkInode(inode, to)
        },
        catch: orNotFound(existing, "link")
      }),
    copyExclusive: (from, to) =>
      Effect.try({
        try: () => {
          const source = volume.require(from, "backup")
          volume.write(volume.create(to, "backup"), source.data.slice(0, source.size))
        },
        catch: orNotFound(from, "backup")
      }),
    makeDirectory: (dir) => Effect.sync(() => volume.mkdir(dir)),
    listDirectory: (dir, keep) =>
      Effect.sync(() => {
        if (!volume.isDirectory(dir)) return []
        return volume.list(dir).filter((name) => keep === undefined || keep(name)).map((name) => {
          const full = posix.join(volume.resolve(dir), name)
          const inode = volume.inode(full)
          return {
            name,
            isFile: inode !== undefined,
            isDirectory: inode === undefined && volume.isDirectory(full),
            mtimeMs: inode === undefined ? 0 : Number(inode.mtimeNs / 1_000_000n),
            size: inode?.size ?? 0,
            ...(inode === undefined ? {} : { mtimeNs: String(inode.mtimeNs), dev: "0", ino: String(inode.ino) })
          }
        })
      }),
    syncDirectory: () => Effect.void,
    hostname: volume.hostname,
    pid: volume.pid,
    isAlive: (pid) => volume.isAlive(pid),
    starttime: (pid) => volume.starttime(pid),
    startedAtMs: () => undefined,
    nextTemporary: () => temporaries++,
    registerHeld: (lockPath, token) => void held.set(lockPath, token),
    unregisterHeld: (lockPath) => void held.delete(lockPath),
    locks
  }
}
