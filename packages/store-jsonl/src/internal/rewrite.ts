/**
 * The one way a transcript is replaced (migration, header recovery, repair, reset, a rewrite from
 * the state): the new bytes go to a temporary file in the target's folder, which takes the
 * original's owner and mode (or the rewrite is refused), is synced, then, after a backup of the
 * original bytes, renamed over the file a path names (through a symlink: its target; the link
 * stays a link). A read-only file is refused and kept. The backup is a hard link to the original
 * inode (a copy where links are refused), or an existing backup holding the same bytes. Whatever
 * fails, nothing is left behind: the temporary file and a backup made by this call are removed
 * (the original is untouched until the rename). Temporary files of dead processes are removed.
 * Callers hold the transcript lock.
 */
import { type FileNotFoundError, FileSystemError } from "@branchlog/session-store/StoreError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Stream from "effect/Stream"
import * as SessionFiles from "../SessionFiles.js"
import type { Backend, DirEntry, StatInfo } from "./backend.js"
import { openRead } from "./backend.js"

/** The new content: bytes, a string, or a stream of pieces (for files beyond a string's size). */
export type Content<E, R> = string | Uint8Array | Stream.Stream<string | Uint8Array, E, R>

/** What a replace did: the file written (the resolved target) and the backup of its old bytes. */
export interface Replaced {
  readonly path: string
  readonly backup: string | undefined
}

const encoder = new TextEncoder()

const hex8 = Effect.map(Random.nextIntBetween(0, 0x7fffffff), (n) => n.toString(16).padStart(8, "0"))

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0")

/** Whether two files of `size` bytes hold the same bytes (read side by side, 1 MiB at a time). */
const sameBytes = (backend: Backend, a: string, b: string, size: number) =>
  Effect.scoped(Effect.gen(function*() {
    const left = yield* openRead(backend, a)
    const right = yield* openRead(backend, b)
    for (let at = 0; at < size; at += 1024 * 1024) {
      const x = yield* left.read(at, 1024 * 1024)
      const y = yield* right.read(at, 1024 * 1024)
      if (x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false
      if (x.length === 0) break
    }
    return true
  })).pipe(Effect.catchAll(() => Effect.succeed(false)))

/**
 * A backup of `target`'s current bytes: an existing backup of the same bytes if there is one,
 * else a new copy, or with `link` (the target is about to be replaced by a rename) a hard link.
 * `made` tells whether this call created it.
 */
export const backupOf = (
  backend: Backend,
  target: string,
  label: string,
  stat: StatInfo,
  link: boolean,
  listed?: ReadonlyArray<DirEntry>
) =>
  Effect.gen(function*() {
    const dir = backend.dirname(target)
    const base = backend.basename(target)
    const isBackup = (name: string) => {
      const side = SessionFiles.sideFile(name)
      return side?.kind === "backup" && side.of === base && side.label !== "bak"
    }
    for (const entry of listed ?? (yield* backend.listDirectory(dir))) {
      if (!entry.isFile || entry.size !== stat.size || !isBackup(entry.name)) continue
      const candidate = backend.join(dir, entry.name)
      const info = yield* backend.stat(candidate)
      if (Option.isNone(info) || info.value.size !== stat.size) continue
      const sameInode = info.value.dev === stat.dev && info.value.ino === stat.ino
      if (sameInode || (yield* sameBytes(backend, candidate, target, stat.size))) {
        return { path: candidate, made: false }
      }
    }
    const path = SessionFiles.backupName(target, label, yield* Clock.currentTimeMillis, yield* hex8)
    // a hard link keeps the original inode as the backup once the rename replaces the name: no copy
    yield* link
      ? backend.link(target, path).pipe(
        Effect.catchAll((error) =>
          error._tag === "FileSystemError" && error.code === "EEXIST"
            ? Effect.fail(error)
            : backend.copyExclusive(target, path)
        )
      )
      : backend.copyExclusive(target, path)
    return { path, made: true }
  })

/** Removes temporary files of `base` left in `dir` by processes that are dead (killed in a rewrite). */
const removeOrphanTemps = (backend: Backend, dir: string, base: string, listed: ReadonlyArray<DirEntry>) =>
  Effect.gen(function*() {
    for (const entry of listed) {
      const side = SessionFiles.sideFile(entry.name)
      if (side?.kind !== "temporary" || side.of !== base || side.pid === undefined || !entry.isFile) continue
      if (side.pid !== backend.pid && backend.isAlive(side.pid) === false) {
        yield* backend.remove(backend.join(dir, entry.name))
      }
    }
  }).pipe(Effect.ignore)

const refused = (path: string, detail: string, code: string) =>
  new FileSystemError({ path, operation: "rewrite", code, detail })

/**
 * Replaces the file `path` names with `content`; with `backupLabel`, a non-empty original is
 * backed up first (and the backup named in the result).
 */
export const replace = <E, R>(
  backend: Backend,
  path: string,
  content: Content<E, R>,
  backupLabel: string | undefined
): Effect.Effect<Replaced, FileSystemError | FileNotFoundError | E, R> =>
  Effect.gen(function*() {
    const target = backend.canonical(path)
    const dir = backend.dirname(target)
    const base = backend.basename(target)
    const existing = Option.getOrUndefined(yield* backend.stat(target))
    if (existing !== undefined && (existing.mode & 0o222) === 0) {
      return yield* refused(
        target,
        `the file is read-only (mode ${
          octal(existing.mode)
        }), so it is kept as it is: make it writable (chmod u+w) to rewrite it`,
        "EACCES"
      )
    }
    // one listing of the folder: orphaned temporary files, and backups that may already hold these bytes
    const listed = existing === undefined
      ? []
      : yield* backend.listDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<DirEntry> => []))
    if (existing === undefined) yield* backend.makeDirectory(dir)
    else yield* removeOrphanTemps(backend, dir, base, listed)
    const temp = backend.join(dir, SessionFiles.temporaryName(base, backend.pid, backend.nextTemporary(), yield* hex8))
    const handle = yield* backend.createExclusive(temp)
    let backup: { readonly path: string; readonly made: boolean } | undefined
    let renamed = false
    const written = Effect.gen(function*() {
      if (existing !== undefined) {
        const created = yield* backend.stat(temp)
        if (Option.isSome(created) && (created.value.uid !== existing.uid || created.value.gid !== existing.gid)) {
          yield* handle.chown(existing.uid, existing.gid).pipe(
            Effect.mapError((error) =>
              refused(
                target,
                `cannot give the rewritten file the owner ${existing.uid}:${existing.gid} of the original (${
                  error.code ?? error.detail
                }), so it is kept as it is: rewrite it as its owner or as root`,
                error.code ?? "EPERM"
              )
            )
          )
        }
        yield* handle.chmod(existing.mode)
      }
      if (typeof content === "string") yield* handle.write(encoder.encode(content))
      else if (content instanceof Uint8Array) yield* handle.write(content)
      else {
        yield* Stream.runForEach(content, (piece) =>
          handle.write(typeof piece === "string" ? encoder.encode(piece) : piece))
      }
      yield* handle.sync
      yield* handle.close
      if (backupLabel !== undefined && existing !== undefined && existing.size > 0) {
        backup = yield* backupOf(backend, target, backupLabel, existing, true, listed)
      }
      yield* backend.rename(temp, target).pipe(
        Effect.catchTag("FileNotFoundError", (e) =>
          Effect.fail(new FileSystemError({ path: e.path, operation: "rename", code: "ENOENT", detail: "vanished" })))
      )
      renamed = true
      yield* backend.syncDirectory(dir)
    })
    yield* written.pipe(
      Effect.onExit((exit) =>
        exit._tag === "Success" || renamed
          ? Effect.void
          : Effect.zipRight(
            Effect.zipRight(handle.close, backend.remove(temp).pipe(Effect.ignore)),
            backup?.made === true ? backend.remove(backup.path).pipe(Effect.ignore) : Effect.void
          )
      )
    )
    return { path: target, backup: backup?.path }
  })
