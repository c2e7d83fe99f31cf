/**
 * Opening sessions for the commands: a session is given as a file path or as a reference
 * (`sqlite:PATH#ID`, `postgres://…#ID`; session-store's `SessionRef`), which the store in context
 * serves or refuses clearly. Read commands open read-only (an old version is migrated in memory,
 * nothing is written); write commands open for writing.
 */
import { SessionManager, SessionRef } from "@branchlog/session-store"
import { FileSnapshot } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { FileMissing, UsageError } from "../CliError.js"
import { noIndex } from "./globals.js"

/**
 * For a file: fails with `FileMissing` unless the file exists; a folder, a FIFO or a device fails
 * with the store's `NotRegularFileError` ("is a directory", "not a regular file (a fifo)") without
 * being opened, and any other failure to read it (permissions) as itself. A reference of another
 * store is left to the store (which fails with `UnsupportedSessionRefError` when it is not present);
 * a malformed reference fails with `InvalidSessionRefError`.
 */
export const requireFile = (session: string) =>
  Effect.gen(function*() {
    const ref = SessionRef.parse(session)
    if (Either.isLeft(ref)) return yield* ref.left
    if (ref.right._tag !== "File") return
    const path = ref.right.path
    const snapshots = yield* FileSnapshot.FileSnapshot
    const snapshot = yield* snapshots.capture(path)
    if (Option.isNone(snapshot)) return yield* new FileMissing({ path })
  })

/** Opens an existing session whole, without ever writing to it or beside it (`--full`). */
export const openFull = (path: string) =>
  requireFile(path).pipe(
    Effect.zipRight(SessionManager.open(path, undefined, undefined, { readOnly: true, cache: false }))
  )

/**
 * Opens an existing session for reading: bounded (`SessionManager.resume`: through the sidecar
 * index, only the active path since the last compaction is read; a read that needs the rest, such
 * as `getState` or `getTree`, throws `SessionNotLoadedError` until `yield* session.loadFull()`,
 * which each command runs before such reads). The session is never written. Its index is built
 * (a session no branchlog writer touched) or caught up (rows other tools appended) beside it,
 * atomically and without the session's lock, unless `--no-index` was given; a folder that cannot
 * be written leaves it unwritten, and the read answers all the same, at full-read speed.
 */
export const openReadOnly = (path: string) =>
  requireFile(path).pipe(
    Effect.zipRight(FiberRef.get(noIndex)),
    Effect.flatMap((skip) => SessionManager.resume(path, undefined, undefined, { readOnly: true, writeIndex: !skip }))
  )

/** {@link openReadOnly}, or {@link openFull} with `full`. */
export const resumeReadOnly = (path: string, full: boolean) => full ? openFull(path) : openReadOnly(path)

/** Opens an existing session (a file or a reference) for writing (appends, branches, labels). */
export const openWritable = (path: string) =>
  requireFile(path).pipe(Effect.zipRight(SessionManager.open(path, undefined, undefined, { cache: false })))

/** Fails with a usage error unless the session has this entry. */
export const requireEntry = (session: SessionManager.SessionManager, path: string, id: string) =>
  session.getEntry(id) === undefined && !session.getState().opaqueParents.has(id)
    ? Effect.fail(new UsageError({ path, detail: `no entry ${id}` }))
    : Effect.void
