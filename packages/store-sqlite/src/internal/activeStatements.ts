/**
 * The statements of the bounded open's summary (`internal/active.ts`): the columns `active*` of
 * `sessions` (schema version 3), prepared only on a database that has them.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import type Database from "better-sqlite3"

/** The stored summary of the bounded open, as a read gives it. */
export interface StoredActive {
  readonly active: string | null
  readonly active_filter: Uint8Array | null
  readonly active_generation: number | null
  readonly active_seq: number | null
}

/** Prepares the summary's statements. */
export const prepareActive = (db: Database.Database) => ({
  read: db.prepare("SELECT active, active_filter, active_generation, active_seq FROM sessions WHERE sid = ?"),
  // a summary replaces another of the same generation only when it covers as many rows or more
  // (as many: the stored one may be damaged; both are of the same rows), or one past the rows
  save: db.prepare(
    `UPDATE sessions SET active = ?, active_filter = ?, active_generation = ?, active_seq = ?
     WHERE sid = ? AND generation = ? AND seq >= ?
       AND (active_seq IS NULL OR active_generation IS NOT ? OR active_seq <= ? OR active_seq > seq)`
  )
})
