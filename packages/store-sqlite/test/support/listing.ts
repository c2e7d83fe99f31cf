/**
 * Helpers of the listing tests: sessions' rows, a store kept open across calls, a fresh store's
 * listing (cold), the listing built from the `sessions` rows alone (no snapshot: the reference a
 * cold listing must equal), and the stored snapshot of the listing as SQL sees it.
 */
import type { SessionSummary, TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { expect } from "vitest"
import { ListedDate } from "../../src/internal/listedSummary.js"
import { Listing } from "../../src/internal/listing.js"
import * as Snapshot from "../../src/internal/listingSnapshot.js"
import * as SqliteStore from "../../src/SqliteStore.js"

export const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T10:00:00.000Z", cwd: "/w" })
export const message = (id: string, at: number, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: null,
    timestamp: new Date(at).toISOString(),
    message: { role: "user", content: text, timestamp: at }
  })
export const named = (id: string, name: string) =>
  JSON.stringify({ type: "session_info", id, parentId: null, timestamp: "2026-05-01T10:00:02.000Z", name })

/** A store kept open across calls (its connections, and so its listing, live until `close`). */
export const openStore = async (options?: SqliteStore.Options) => {
  const scope = await Effect.runPromise(Scope.make())
  const store = await Effect.runPromise(Scope.extend(SqliteStore.make(options), scope))
  return { store, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
export const list = (store: TranscriptStoreShape, file: string) =>
  Effect.runPromise(store.list({ location: `sqlite:${file}` }))
/** The listing of a fresh store (nothing kept). */
export const cold = async (file: string, options?: SqliteStore.Options) => {
  const fresh = await openStore(options)
  try {
    return await list(fresh.store, file)
  } finally {
    await fresh.close()
  }
}
export const create = (store: TranscriptStoreShape, file: string, id: string, texts: ReadonlyArray<string>) =>
  Effect.runPromise(store.exclusive(SqliteStore.ref(file, id), (held) => held.create(texts)))
/** Sessions s0… with a header and a message each, the later ones newer. */
export const seed = async (store: TranscriptStoreShape, file: string, count: number) => {
  for (let i = 0; i < count; i++) {
    await create(store, file, `s${i}`, [header(`s${i}`), message(`m${i}`, 1e12 + i, `hi ${i}`)])
  }
}
export const ids = (listed: ReadonlyArray<SessionSummary>) => listed.map((s) => s.id)

/** The listing built from the `sessions` rows only (a read-only connection, no snapshot read). */
export const fromRows = (file: string): Array<SessionSummary> => {
  const db = new Database(file, { readonly: true })
  try {
    return new Listing(db, file, true).list()
  } finally {
    db.close()
  }
}

/** The stored snapshot's header (`undefined`: none). */
export const stored = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(
      "SELECT format, touched, removals, count, typeof(numbers) AS numbers, typeof(texts) AS texts FROM listing_snapshot"
    ).get() as
      | { format: number; touched: number; removals: number; count: number; numbers: string; texts: string }
      | undefined
  } finally {
    db.close()
  }
}

/** The database's `max(touched)` and removal count: what a snapshot made now records. */
export const counters = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return {
      touched: db.prepare("SELECT max(touched) FROM sessions").pluck().get() as number,
      removals: db.prepare("SELECT value FROM counters WHERE name = 'removals'").pluck().get() as number
    }
  } finally {
    db.close()
  }
}

/** Runs SQL on a connection of its own. */
export const sql = (file: string, text: string) => {
  const db = new Database(file)
  try {
    db.exec(text)
  } finally {
    db.close()
  }
}

/** `got` is `want` exactly: the same summaries, keys in the same order, frozen, dates `ListedDate`s. */
export const same = (got: ReadonlyArray<SessionSummary>, want: ReadonlyArray<SessionSummary>) => {
  expect(got).toEqual(want)
  for (const [i, summary] of got.entries()) {
    expect(Object.keys(summary)).toEqual(Object.keys(want[i]!))
    expect(Object.isFrozen(summary) && Object.isFrozen(summary.ref)).toBe(true)
    expect(summary.created).toBeInstanceOf(ListedDate)
    expect(summary.modified).toBeInstanceOf(ListedDate)
  }
}

/** The database `file` with `count` sessions (s0… newest last) and the snapshot a listing stored of them (as of now). */
export const withSnapshot = async (file: string, count: number) => {
  const { close, store } = await openStore()
  try {
    await seed(store, file, count)
    await list(store, file)
  } finally {
    await close()
  }
  expect(stored(file)).toEqual({ format: Snapshot.FORMAT, ...counters(file), count, numbers: "blob", texts: "text" })
  return file
}
