/**
 * The few calls of better-sqlite3 (12.x) the OpenClaw reader makes, typed here (no `@types`
 * dependency), loaded when a database is first read.
 *
 * Opening a WAL database read-only by its path makes SQLite create `-wal` and `-shm` files beside
 * it, which would change the source's folder. So a database without a live WAL (no `-wal` file,
 * or an empty one: everything is in the main file) is read from a copy of its bytes in memory
 * (its header's WAL flag, bytes 18-19, set back to the rollback journal in the copy); only a
 * database with a live WAL, whose sidecar files exist already, is opened by its path, read-only.
 */
import { readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"

/** A prepared statement. */
export interface Statement {
  readonly all: (...params: ReadonlyArray<unknown>) => Array<Record<string, unknown>>
  readonly iterate: (...params: ReadonlyArray<unknown>) => IterableIterator<Record<string, unknown>>
}

/** An open database. */
export interface Database {
  readonly prepare: (sql: string) => Statement
  readonly close: () => void
}

type Constructor = new(
  source: string | Buffer,
  options: { readonly readonly: boolean; readonly fileMustExist?: boolean }
) => Database

let driver: Constructor | undefined

const liveWal = (path: string): boolean => {
  try {
    return statSync(`${path}-wal`).size > 0
  } catch {
    return false
  }
}

/** Opens the database at `path` for reading without writing anything beside it (see above). */
export const openReadOnly = (path: string): Database => {
  driver ??= createRequire(import.meta.url)("better-sqlite3") as Constructor
  if (liveWal(path)) return new driver(path, { readonly: true, fileMustExist: true })
  const bytes = Buffer.from(readFileSync(path))
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1
    bytes[19] = 1
  }
  return new driver(bytes, { readonly: true })
}
