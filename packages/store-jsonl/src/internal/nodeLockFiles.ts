/**
 * Lock files on node:fs: the exclusive create of one, its remove-if-ours, and the exit / signal
 * cleanup of the lock files held through one Node backend (one per layer):
 * its own map of held locks, its own handlers on exit / SIGINT / SIGTERM, its own timer. A
 * handler removes its backend's lock files synchronously; on a signal that only lock handlers
 * (of any backend) listen to, the last of them raises it again, so the process still ends.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { CreatedLockFile } from "./backend.js"
import { hasCode } from "./backend.js"
import * as LockFile from "./lockFile.js"

const signals = ["SIGINT", "SIGTERM"] as const

/** Marks the signal handlers of every backend (of any layer), so that each can tell whether only lock handlers listen. */
const LOCK_HANDLER: unique symbol = Symbol.for("@branchlog/session-store/lockSignalHandler")

const isLockHandler = (listener: unknown): boolean =>
  typeof listener === "function" && (listener as { [LOCK_HANDLER]?: boolean })[LOCK_HANDLER] === true

/**
 * Uninstalls the handlers a moment after the last lock is let go, not at once: a writer that
 * takes the lock for each append would otherwise start and stop the signal watchers every time
 * (about a tenth of each append's cost). Until then the handlers change nothing: with no lock
 * held, a signal nobody else handles still ends the process by its default action.
 */
const UNINSTALL_AFTER_MS = 1000

/** The exit / signal cleanup of the locks held through one backend. */
export interface ExitCleanup {
  readonly register: (lockPath: string, token: string) => void
  readonly unregister: (lockPath: string) => void
  /** Removes the held lock files that still hold their tokens, now (what the handlers do). */
  readonly removeHeld: () => void
  /** Whether its handlers are installed. */
  readonly installed: () => boolean
  /** Stops the timer; uninstalls the handlers unless a lock is still held. */
  readonly dispose: () => void
}

/** A cleanup with nothing held and no handlers installed (they are installed with the first lock). */
export const makeExitCleanup = (): ExitCleanup => {
  const held = new Map<string, string>()
  let installed = false
  let uninstallTimer: ReturnType<typeof setTimeout> | undefined

  const removeHeld = (): void => {
    for (const [lockPath, token] of held) removeLockFile(lockPath, token)
    held.clear()
  }

  const onSignal = Object.assign((signal: NodeJS.Signals): void => {
    // only when nobody but lock handlers (of this and other layers) handles the signal: then the
    // default action (exit) is ours to keep; the last lock handler to run raises it again
    if (!process.listeners(signal).every(isLockHandler)) return
    removeHeld()
    uninstall()
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }, { [LOCK_HANDLER]: true })

  const install = (): void => {
    if (installed) return
    installed = true
    process.on("exit", removeHeld)
    for (const signal of signals) process.on(signal, onSignal)
  }
  const uninstall = (): void => {
    if (!installed) return
    installed = false
    process.removeListener("exit", removeHeld)
    for (const signal of signals) process.removeListener(signal, onSignal)
  }
  const uninstallSoon = (): void => {
    if (!installed || uninstallTimer !== undefined) return
    uninstallTimer = setTimeout(() => {
      uninstallTimer = undefined
      if (held.size === 0) uninstall()
    }, UNINSTALL_AFTER_MS)
    uninstallTimer.unref()
  }
  return {
    register: (lockPath, token) => {
      held.set(lockPath, token)
      install()
    },
    unregister: (lockPath) => {
      held.delete(lockPath)
      if (held.size === 0) uninstallSoon()
    },
    removeHeld,
    installed: () => installed,
    dispose: () => {
      if (uninstallTimer !== undefined) clearTimeout(uninstallTimer)
      uninstallTimer = undefined
      if (held.size === 0) uninstall()
    }
  }
}

/**
 * Creates a lock file: exclusive (a symlink there, dangling or not, counts as taken), 0600, one
 * write of the whole payload; the file stays open until `removeIfOurs`. `false` when the name is
 * taken.
 */
export const createLockFile = (path: string, content: string): CreatedLockFile | false => {
  let fd: number
  try {
    fd = fs.openSync(path, "wx", 0o600)
  } catch (error) {
    if (hasCode(error, "EEXIST") || hasCode(error, "EISDIR")) return false
    if (!hasCode(error, "ENOENT")) throw error
    fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 })
    try {
      fd = fs.openSync(path, "wx", 0o600)
    } catch (again) {
      if (hasCode(again, "EEXIST") || hasCode(again, "EISDIR")) return false
      throw again
    }
  }
  try {
    // one write of the text as UTF-8 (no Buffer of it); the rest if that write came back short
    const written = fs.writeSync(fd, content)
    if (written < Buffer.byteLength(content)) {
      const bytes = Buffer.from(content)
      for (let at = written; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at)
    }
  } catch (error) {
    fs.closeSync(fd)
    try {
      fs.unlinkSync(path)
    } catch {
      // already gone
    }
    throw error
  }
  return openLockFile(path, fd)
}

/**
 * The lock file created at `path`, open as `fd`: removed if the path still names this inode (its
 * descriptor open, no other file can have it), then closed. Two stats instead of opening and
 * reading it back: a lock taken for each append lets go of it every time.
 */
const openLockFile = (path: string, fd: number): CreatedLockFile => {
  let done = false
  return {
    removeIfOurs: () => {
      if (done) return
      done = true
      try {
        const own = fs.fstatSync(fd, { bigint: true })
        const there = fs.lstatSync(path, { bigint: true, throwIfNoEntry: false })
        if (there !== undefined && there.ino === own.ino && there.dev === own.dev) fs.unlinkSync(path)
      } catch {
        // gone, or not to be looked at: not ours to remove
      } finally {
        try {
          fs.closeSync(fd)
        } catch {
          // already closed
        }
      }
    }
  }
}

/** Removes the lock file at `path` if it still holds `token` (at exit: whatever this process still holds). */
const removeLockFile = (path: string, token: string): void => {
  try {
    if (LockFile.tokenOfText(readSmall(path)) === token) fs.unlinkSync(path)
  } catch {
    // gone, or not readable: not ours to remove
  }
}

/** A small file's text: open, read until a read comes back short, close (no fstat to size the buffer). */
const readSmall = (path: string): string => {
  // non-blocking: a FIFO put at the lock path must not block the release (it reads as empty: not ours)
  const fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
  try {
    // a lock payload is about 200 bytes: 1 KiB comes from Buffer's pool (no ArrayBuffer of its own to collect)
    let buffer = Buffer.allocUnsafe(1024)
    let length = 0
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, length)
      length += n
      if (length < buffer.length) break
      const bigger = Buffer.allocUnsafe(buffer.length * 2)
      buffer.copy(bigger, 0, 0, length)
      buffer = bigger
    }
    return buffer.toString("utf8", 0, length)
  } finally {
    fs.closeSync(fd)
  }
}
