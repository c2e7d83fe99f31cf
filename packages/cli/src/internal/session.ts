/**
 * Opening session files for the commands: read commands open read-only (an old version is migrated
 * in memory, nothing is written); write commands open for writing.
 */
import { FileSnapshot, SessionManager } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { FileMissing, UsageError } from "../CliError.js"

/**
 * Fails with `FileMissing` unless the file exists; a folder, a FIFO or a device fails with the
 * store's `NotRegularFileError` ("is a directory", "not a regular file (a fifo)") without being
 * opened, and any other failure to read it (permissions) as itself.
 */
export const requireFile = (path: string) =>
  Effect.gen(function*() {
    const snapshots = yield* FileSnapshot.FileSnapshot
    const snapshot = yield* snapshots.capture(path)
    if (Option.isNone(snapshot)) return yield* new FileMissing({ path })
  })

/** Opens an existing file without ever writing to it. */
export const openReadOnly = (path: string) =>
  requireFile(path).pipe(
    Effect.zipRight(SessionManager.open(path, undefined, undefined, { readOnly: true, cache: false }))
  )

/** Opens an existing file for writing (appends, branches, labels). */
export const openWritable = (path: string) =>
  requireFile(path).pipe(Effect.zipRight(SessionManager.open(path, undefined, undefined, { cache: false })))

/** Fails with a usage error unless the session has this entry. */
export const requireEntry = (session: SessionManager.SessionManager, path: string, id: string) =>
  session.getEntry(id) === undefined && !session.getState().opaqueParents.has(id)
    ? Effect.fail(new UsageError({ path, detail: `no entry ${id}` }))
    : Effect.void
