/**
 * The whole texts of a listed session's messages (`allMessagesText`, and `firstMessage` in a database
 * of schema 5 or older), read from its rows when the `sessions` row holds only a prefix of them
 * (`summary.ts`): a connection of its own, read-only and
 * closed right after, so a summary can be read after the store that listed it has closed. The rows
 * are read through `StoreRows.summary`, the same reader as every store's listing.
 */
// the package ships no types: its declaration here, reachable from other packages' type checks too
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type Database from "better-sqlite3"
import * as Option from "effect/Option"
import * as SqliteEngine from "../SqliteEngine.js"

/** The two texts of a listing that a `sessions` row may hold only the start of. */
export interface Texts {
  readonly firstMessage: string
  readonly allMessagesText: string
}

/**
 * The first user message and the text of every user and assistant message of session `refId` of
 * the database at `path`, as a listing gives them; `fallback` when they cannot be read (the
 * database or the session is gone).
 */
export const read = (path: string, refId: string, fallback: Texts): Texts => {
  let db: Database.Database | undefined
  try {
    db = SqliteEngine.open(path, { readonly: true, fileMustExist: true }) as Database.Database
    const texts = db.prepare(
      `SELECT r.text FROM sessions s JOIN rows r
         ON r.rowid > (s.sid << 32) AND r.rowid <= (s.sid << 32) + 4294967295
       WHERE s.id = ? AND r.type IN ('session', 'message')
       ORDER BY r.rowid`
    ).pluck().all(refId) as Array<string>
    const info = StoreRows.summary({ _tag: "Sqlite", path, id: refId }, refId, texts, 0)
    return Option.match(info, {
      onNone: () => fallback,
      onSome: ({ allMessagesText, firstMessage }) => ({ allMessagesText, firstMessage })
    })
  } catch {
    return fallback
  } finally {
    db?.close()
  }
}
