/**
 * Node helpers of the backend for names and processes: what a name is, the file a path names
 * (symlinks followed), the boot time for process start times, and the one way a file is opened
 * for reading (regular files only).
 */
import { NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { PathKind } from "./backend.js"

/** What a name is: from an lstat any kind, from a stat (links followed) never `"symlink"`. */
export const kindOf = (st: fs.Stats | fs.BigIntStats): PathKind =>
  st.isFile()
    ? "file"
    : st.isDirectory()
    ? "directory"
    : st.isSymbolicLink()
    ? "symlink"
    : st.isFIFO()
    ? "fifo"
    : st.isSocket()
    ? "socket"
    : st.isCharacterDevice()
    ? "character device"
    : st.isBlockDevice()
    ? "block device"
    : "other"

/**
 * The file `path` names: symlinks followed (at the name and in its folders). A name that does
 * not exist yet keeps its base name under its folder's real path; a dangling symlink gives the
 * path it points to (so writing through it creates the target, not a second file).
 */
export const canonicalOf = (path: string, resolve: (path: string) => string = nodePath.resolve): string => {
  let current = resolve(path)
  for (let hops = 0; hops < 40; hops++) {
    try {
      // realpath(3): one call, not an lstat per folder from JavaScript (the lock takes it per write)
      return fs.realpathSync.native(current)
    } catch {
      // missing, or a dangling link: follow the link by hand, else resolve the folder only
    }
    let target: string
    try {
      target = fs.readlinkSync(current)
    } catch {
      try {
        return nodePath.join(fs.realpathSync.native(nodePath.dirname(current)), nodePath.basename(current))
      } catch {
        return current
      }
    }
    current = nodePath.resolve(nodePath.dirname(current), target)
  }
  return current
}

/**
 * `path.resolve`, remembered for absolute POSIX paths (their resolution does not depend on the
 * working folder; on Windows a rooted path still depends on the current drive): the lock, the
 * snapshot and the append each resolve the session's path on every write.
 */
export const memoizedResolve = (limit = 4096): (path: string) => string => {
  const resolved = new Map<string, string>()
  const posix = nodePath.sep === "/"
  return (path) => {
    if (!posix || !nodePath.isAbsolute(path)) return nodePath.resolve(path)
    let abs = resolved.get(path)
    if (abs === undefined) {
      abs = nodePath.resolve(path)
      if (resolved.size >= limit) resolved.clear()
      resolved.set(path, abs)
    }
    return abs
  }
}

/** Clock ticks per second of /proc/<pid>/stat's start time. */
export const CLOCK_TICKS = 100 // USER_HZ: fixed at 100 in the Linux ABI on every architecture Node runs on

/** Reads a small text file of /proc (`undefined` where there is none). */
export type ProcReader = (path: string) => string | undefined

/** The real /proc. */
export const readProc: ProcReader = (path) => {
  try {
    return fs.readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** Boot time (s since the epoch) from /proc/stat, where there is one (not cached: the backend keeps it). */
export const readBootTime = (read: ProcReader): number | undefined => {
  const text = read("/proc/stat")
  const match = text === undefined ? null : /^btime (\d+)$/m.exec(text)
  return match === null ? undefined : Number(match[1])
}

/** A process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
export const readStarttime = (read: ProcReader, pid: number): number | undefined => {
  const stat = read(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  // fields after the command name "(...)" start at field 3; starttime is field 22
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const value = Number(fields[19])
  return Number.isFinite(value) ? value : undefined
}

// ---- reads: only regular files are opened (a FIFO would block the open, and the whole process, forever) ----

/** What a stat (links followed) names when it is not a regular file (`undefined` for a regular file). */
const notRegularKindOf = (st: fs.Stats | fs.BigIntStats): NotRegularFileError["kind"] | undefined => {
  const kind = kindOf(st)
  return kind === "file" || kind === "symlink" ? undefined : kind
}

const requireRegular = (path: string, operation: string, st: fs.Stats | fs.BigIntStats): void => {
  const kind = notRegularKindOf(st)
  if (kind !== undefined) throw new NotRegularFileError({ path, operation, kind })
}

const O_READ = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)

/**
 * Opens a file for reading: a stat first (following symlinks), so that a FIFO, a device or a folder
 * is refused without being opened; then a non-blocking open (a FIFO swapped in after the stat does
 * not block it) and a check of what was opened. Throws a `NotRegularFileError` or the system error.
 */
export const openForRead = (path: string, operation: string): number => openForReadWithStat(path, operation).fd

/** `openForRead`, giving also the fstat of what was opened (bigint), which it takes anyway. */
export const openForReadWithStat = (
  path: string,
  operation: string
): { readonly fd: number; readonly stat: fs.BigIntStats } => {
  requireRegular(path, operation, fs.statSync(path))
  const fd = fs.openSync(path, O_READ)
  try {
    const stat = fs.fstatSync(fd, { bigint: true })
    requireRegular(path, operation, stat)
    return { fd, stat }
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}
