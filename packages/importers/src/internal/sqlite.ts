/**
 * The few calls of better-sqlite3 (12.x) the OpenClaw reader makes, typed here (no `@types`
 * dependency), loaded when a database is first read.
 */
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

type Constructor = new(path: string, options: { readonly readonly: boolean; readonly fileMustExist: boolean }) => Database

let driver: Constructor | undefined

/** Opens `path` read-only (it must exist). */
export const openReadOnly = (path: string): Database => {
  driver ??= createRequire(import.meta.url)("better-sqlite3") as Constructor
  return new driver(path, { readonly: true, fileMustExist: true })
}
