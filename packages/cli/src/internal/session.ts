/**
 * Opening sessions for the commands: a session is given as a file path or as a reference
 * (`sqlite:PATH#ID`, `postgres://…#ID`; session-store's `SessionRef`), which the store in context
 * serves or refuses clearly. Read commands open read-only (an old version is migrated in memory,
 * nothing is written); write commands open for writing.
 */
import { FileSnapshot, SessionManager, SessionRef } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { FileMissing, UsageError } from "../CliError.js"

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

/** Opens an existing session (a file or a reference) without ever writing to it. */
export const openReadOnly = (path: string) =>
  requireFile(path).pipe(
    Effect.zipRight(SessionManager.open(path, undefined, undefined, { readOnly: true, cache: false }))
  )

/**
 * Opens an existing session bounded (`SessionManager.resume`: through the sidecar index, only the
 * active path since the last compaction is read), or whole with `full`. Read-only: a valid index
 * is used, none is written (read commands write nothing beside a file).
 */
export const resumeReadOnly = (path: string, full: boolean) =>
  full
    ? openReadOnly(path)
    : requireFile(path).pipe(
      Effect.zipRight(SessionManager.resume(path, undefined, undefined, { readOnly: true }))
    )

/** Opens an existing session (a file or a reference) for writing (appends, branches, labels). */
export const openWritable = (path: string) =>
  requireFile(path).pipe(Effect.zipRight(SessionManager.open(path, undefined, undefined, { cache: false })))

/** Fails with a usage error unless the session has this entry. */
export const requireEntry = (session: SessionManager.SessionManager, path: string, id: string) =>
  session.getEntry(id) === undefined && !session.getState().opaqueParents.has(id)
    ? Effect.fail(new UsageError({ path, detail: `no entry ${id}` }))
    : Effect.void
