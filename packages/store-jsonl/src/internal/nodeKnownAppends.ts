/**
 * The descriptors of the Node backend's `unsafeOpenKnown`, kept open between appends. A writer
 * that takes the lock for each append would otherwise open and close its transcript every time;
 * here the next append to a file that is still exactly as its writer last saw it (the path names
 * the same inode, with the size and mtime the writer knows) reuses the descriptor, checked with
 * one stat of the path. A few descriptors, the most recently used (one per session a process
 * appends to); one that no longer matches its path (the file replaced or removed) is closed, and
 * all are closed with the backend.
 */
import * as fs from "node:fs"
import type { KnownEnd } from "./backend.js"

/** How many transcripts keep a descriptor open (the least recently used one is closed first). */
export const KEPT_DESCRIPTORS = 16

/** The kept descriptors of one backend. */
export interface KnownAppends {
  /**
   * A descriptor open for appends (O_APPEND, write only) on the regular file at `path` while it is
   * exactly `known` (dev, inode, size, mtime), kept open for the next call; `undefined` when the
   * file is not as known or cannot be opened. Never throws.
   */
  readonly take: (path: string, known: KnownEnd) => number | undefined
  /** Closes the descriptor kept for `path`, if any (a failed write, a removal, a rename there). */
  readonly forget: (path: string) => void
  /** Closes every kept descriptor (the backend is released). */
  readonly closeAll: () => void
}

interface Kept {
  readonly fd: number
  readonly dev: bigint
  readonly ino: bigint
}

const close = (fd: number): void => {
  try {
    fs.closeSync(fd)
  } catch {
    // nothing to undo: the descriptor is gone either way
  }
}

const statOf = (stat: () => fs.BigIntStats | undefined): fs.BigIntStats | undefined => {
  try {
    return stat()
  } catch {
    return undefined
  }
}

const isKnown = (st: fs.BigIntStats | undefined, known: KnownEnd): boolean =>
  st !== undefined && st.isFile() && st.dev === known.dev && st.ino === known.ino &&
  Number(st.size) === known.size && st.mtimeNs === known.mtimeNs

/** No descriptors kept yet; at most `capacity` at a time. */
export const makeKnownAppends = (capacity: number = KEPT_DESCRIPTORS): KnownAppends => {
  // in the order of their last use (a Map keeps insertion order: the first is the least recent)
  const kept = new Map<string, Kept>()

  const forget = (path: string): void => {
    const entry = kept.get(path)
    if (entry === undefined) return
    kept.delete(path)
    close(entry.fd)
  }

  const keep = (path: string, entry: Kept): void => {
    kept.delete(path)
    kept.set(path, entry)
    while (kept.size > capacity) forget(kept.keys().next().value!)
  }

  const take = (path: string, known: KnownEnd): number | undefined => {
    const entry = kept.get(path)
    if (entry !== undefined) {
      if (entry.dev === known.dev && entry.ino === known.ino) {
        // the path still names the file the descriptor is open on (it cannot be reused while open)
        const st = statOf(() => fs.statSync(path, { bigint: true, throwIfNoEntry: false }))
        if (isKnown(st, known)) {
          keep(path, entry)
          return entry.fd
        }
        // the same file, changed since `known`: nothing to append to as known, the descriptor stays
        if (st !== undefined && st.dev === entry.dev && st.ino === entry.ino) return undefined
      }
      forget(path)
    }
    let fd: number
    try {
      fd = fs.openSync(path, fs.constants.O_APPEND | fs.constants.O_WRONLY)
    } catch {
      return undefined
    }
    const opened = statOf(() => fs.fstatSync(fd, { bigint: true }))
    if (!isKnown(opened, known)) {
      close(fd)
      return undefined
    }
    keep(path, { fd, dev: known.dev, ino: known.ino })
    return fd
  }

  return {
    take,
    forget,
    closeAll: () => {
      for (const entry of kept.values()) close(entry.fd)
      kept.clear()
    }
  }
}
