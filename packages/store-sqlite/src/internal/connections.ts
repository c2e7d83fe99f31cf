/**
 * The databases a store has open: one writable connection per database path, opened on first use
 * (folder created, WAL, `synchronous=NORMAL`, busy timeout, schema migrated) and kept until the
 * store's scope closes; a read-only load of a database not open yet gets a read-only connection
 * (never created, never migrated). A database whose schema is newer than this code's is refused
 * with the storage interface's `SchemaTooNewError`, before anything is written to it. Creating the
 * folder and opening the file fail with `FileSystemError`; every other failure of SQLite is a
 * `BackendFailureError` carrying SQLite's code and error.
 */
import { FileSystemError } from "@branchlog/session-store/StoreError"
import { BackendFailureError, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Db } from "./database.js"
import * as Schema from "./schema.js"

/** The code the `FileSystemError` refusing a database of a newer schema carried before `SchemaTooNewError` replaced it. */
export const SCHEMA_TOO_NEW = "SQLITE_SCHEMA_TOO_NEW"

/** What opening a database may fail with. */
export type OpenFailure = FileSystemError | BackendFailureError | SchemaTooNewError

/** SQLite's primary result codes by number: node:sqlite reports `ERR_SQLITE_ERROR` and the number (`errcode`). */
const PRIMARY: Readonly<Record<number, string>> = {
  1: "SQLITE_ERROR",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  19: "SQLITE_CONSTRAINT",
  26: "SQLITE_NOTADB"
}

/** SQLite's code of a driver's error, the same under better-sqlite3 (`code`) and node:sqlite (`errcode`). */
const codeOf = (cause: unknown): { readonly code?: string } => {
  const e = cause as { readonly code?: unknown; readonly errcode?: unknown }
  if (typeof e?.errcode === "number" && PRIMARY[e.errcode & 0xff] !== undefined) {
    return { code: PRIMARY[e.errcode & 0xff]! }
  }
  return typeof e?.code === "string" ? { code: e.code } : {}
}

const detailOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** A failure of SQLite as the store's error (one the store raised already passes as it is). */
export const toError = (path: string, operation: string, cause: unknown): BackendFailureError =>
  cause instanceof BackendFailureError ? cause : new BackendFailureError({
    store: "sqlite",
    location: path,
    operation,
    ...codeOf(cause),
    detail: detailOf(cause),
    cause
  })

/** Runs a synchronous database call, its failure as a `BackendFailureError`. */
export const attempt = <A>(path: string, operation: string, f: () => A): Effect.Effect<A, BackendFailureError> =>
  Effect.try({ try: f, catch: (cause) => toError(path, operation, cause) })

/** Runs a file operation (the database's folder, opening its file), its failure as a `FileSystemError`. */
const onFile = <A>(path: string, operation: string, f: () => A): Effect.Effect<A, FileSystemError> =>
  Effect.try({
    try: f,
    catch: (cause) => new FileSystemError({ path, operation, ...codeOf(cause), detail: detailOf(cause) })
  })

const tooNew = (path: string, version: number) =>
  new SchemaTooNewError({ store: "sqlite", location: path, found: version, supported: Schema.LATEST })

/** The open databases of one store. */
export interface Connections {
  /** The writable connection of `path` (opened, created and migrated on first use). */
  readonly writable: (path: string) => Effect.Effect<Db, OpenFailure>
  /** A connection to read `path` with (the writable one if open); `undefined`: no database there. */
  readonly readable: (path: string) => Effect.Effect<Db | undefined, OpenFailure>
  /** Every writable connection open now. */
  readonly open: () => ReadonlyArray<Db>
  /** Closes every connection. */
  readonly close: () => void
}

/** The connections of one store (close them with `close`). */
export const make = (options: { readonly busyTimeoutMs: number }): Effect.Effect<Connections> =>
  Effect.sync(() => {
    const writable = new Map<string, Db>()
    const readOnly = new Map<string, Db>()
    const opening = Effect.unsafeMakeSemaphore(1)

    const openWritable = (path: string) =>
      Effect.gen(function*() {
        yield* onFile(path, "open", () => fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 }))
        const db = yield* onFile(path, "open", () => new Db(path, false, options.busyTimeoutMs))
        const ok = yield* Effect.gen(function*() {
          for (let tries = 0;; tries++) {
            const version = yield* attempt(path, "open", () => Schema.versionOf(db.handle))
            if (version > Schema.LATEST) return yield* tooNew(path, version)
            if (tries === 0) yield* attempt(path, "open", () => db.configure())
            if (version === Schema.LATEST) return db.ready()
            if (tries >= 50) {
              return yield* new BackendFailureError({
                store: "sqlite",
                location: path,
                operation: "migrate",
                detail: `the schema stayed at version ${version} after migrating`
              })
            }
            // another process may be migrating it now: the migrator then reports it "locked"
            yield* Schema.migrate(path).pipe(
              Effect.catchAll((error) => tries < 40 ? Effect.sleep(20) : Effect.fail(toError(path, "migrate", error)))
            )
          }
        }).pipe(Effect.tapError(() => Effect.sync(() => db.close())))
        writable.set(path, ok)
        const stale = readOnly.get(path)
        if (stale !== undefined) {
          readOnly.delete(path)
          stale.close()
        }
        return ok
      })

    const openReadOnly = (path: string) =>
      Effect.gen(function*() {
        if (!fs.existsSync(path)) return undefined
        const db = yield* onFile(path, "open", () => new Db(path, true, options.busyTimeoutMs))
        const version = yield* attempt(path, "open", () => Schema.versionOf(db.handle)).pipe(
          Effect.tapError(() => Effect.sync(() => db.close()))
        )
        if (version < Schema.READABLE_FROM || version > Schema.LATEST) {
          db.close()
          if (version > Schema.LATEST) return yield* tooNew(path, version)
          if (version === 0) return undefined
          return yield* new BackendFailureError({
            store: "sqlite",
            location: path,
            operation: "open",
            code: "SQLITE_SCHEMA_OLD",
            detail:
              `the database's schema version ${version} is older than this branchlog's (${Schema.LATEST}) and a read-only open never migrates: open it once for writing`
          })
        }
        readOnly.set(path, db.ready())
        return db
      })

    return {
      writable: (path) =>
        Effect.suspend(() => {
          const db = writable.get(path)
          return db !== undefined
            ? Effect.succeed(db)
            : opening.withPermits(1)(Effect.suspend(() => {
              const again = writable.get(path)
              return again !== undefined ? Effect.succeed(again) : openWritable(path)
            }))
        }),
      readable: (path) =>
        Effect.suspend(() => {
          const db = writable.get(path) ?? readOnly.get(path)
          return db !== undefined ? Effect.succeed(db) : opening.withPermits(1)(Effect.suspend(() => {
            const again = writable.get(path) ?? readOnly.get(path)
            return again !== undefined ? Effect.succeed(again) : openReadOnly(path)
          }))
        }),
      open: () => [...writable.values()],
      close: () => {
        for (const db of [...writable.values(), ...readOnly.values()]) db.close()
        writable.clear()
        readOnly.clear()
      }
    }
  })
