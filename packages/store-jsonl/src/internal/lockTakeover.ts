/**
 * Taking over a stale lock (`TranscriptLock`): the unchanged stale file (or a symlink found at the
 * lock path) is renamed to a unique name, what was moved is checked (and linked back if a racing
 * process had replaced it), then dropped. Never a blind delete.
 */
import type { FileSystemError } from "@branchlog/session-store/StoreError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import type { Backend } from "./backend.js"
import type * as LockFile from "./lockFile.js"
import { sameBytes } from "./lockFile.js"

/** A symlink at the lock path: move the link itself (never its target) away if it is still the same link. */
const takeOverLink = (backend: Backend, info: LockFile.HolderInfo) =>
  Effect.gen(function*() {
    const again = yield* backend.lstat(info.lockPath)
    if (Option.isNone(again) || again.value.kind !== "symlink" || again.value.ino !== info.content.ino) return
    const aside = `${info.lockPath}.stale-${randomUUID().slice(0, 8)}`
    const moved = yield* backend.rename(info.lockPath, aside).pipe(
      Effect.as(true),
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(false))
    )
    if (!moved) return
    const movedInfo = yield* backend.lstat(aside)
    if (Option.isSome(movedInfo) && movedInfo.value.ino !== info.content.ino) {
      yield* backend.link(aside, info.lockPath).pipe(Effect.ignore)
    } else {
      yield* Effect.logInfo(`transcript lock: removed a symlink found at the lock path ${info.lockPath}`)
    }
    yield* backend.remove(aside)
  })

/** A stale lock file: moved away if its bytes and inode are unchanged (given back if a racer replaced it meanwhile). */
const takeOverFile = (backend: Backend, info: LockFile.HolderInfo) =>
  Effect.gen(function*() {
    const again = yield* backend.readFile(info.lockPath)
    if (Option.isNone(again)) return
    if (again.value.ino !== info.content.ino || !sameBytes(again.value.bytes, info.content.bytes)) return
    const aside = `${info.lockPath}.stale-${randomUUID().slice(0, 8)}`
    const moved = yield* backend.rename(info.lockPath, aside).pipe(
      Effect.as(true),
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(false))
    )
    if (!moved) return
    const movedContent = yield* backend.readFile(aside)
    if (Option.isSome(movedContent) && !sameBytes(movedContent.value.bytes, info.content.bytes)) {
      // someone replaced the stale file between our check and the rename: give it back
      yield* backend.link(aside, info.lockPath).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`transcript lock: could not restore a lock moved by a take-over race: ${error.message}`)
        )
      )
    } else {
      yield* Effect.logInfo(
        `transcript lock: took over a stale lock (${info.reasons.join(",")}) pid=${info.pid ?? "?"} ${info.lockPath}`
      )
    }
    yield* backend.remove(aside)
  })

/** Takes over the stale holder `info` describes (a symlink at the lock path, or a stale lock file). */
export const takeOver = (backend: Backend, info: LockFile.HolderInfo): Effect.Effect<void, FileSystemError> =>
  info.symlink === true ? takeOverLink(backend, info) : takeOverFile(backend, info)
