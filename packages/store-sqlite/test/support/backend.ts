/**
 * The conformance adapter of the SQLite store: a place is a fresh database file
 * (`sqlite:/tmp/…/place-N.db`), a reference is `sqlite:PATH#ID`, a row is one stored text, a backup
 * is a row of the `backups` table. Another writer (foreign appends, replacements) writes through
 * its own connection, as another process would; an independent instance is a second store with
 * its own connections (kept open until the suite ends, as managers opened through it outlive the
 * call).
 */
import { SessionManager, SessionRef, TranscriptStore } from "@branchlog/session-store"
import type { Conformance } from "@branchlog/session-store/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll } from "vitest"
import { Db } from "../../src/internal/database.js"
import * as SqliteStore from "../../src/SqliteStore.js"

const parseRef = (text: string) => {
  const parsed = SessionRef.parse(text)
  if (Either.isLeft(parsed) || parsed.right._tag !== "Sqlite") throw new Error(`not an sqlite reference: ${text}`)
  return parsed.right
}

/** Runs `f` over a connection of its own to the database of `ref` (`undefined` when there is no database file). */
export const withDb = <A>(path: string, f: (db: Db) => A): A | undefined => {
  if (!fs.existsSync(path)) return undefined
  const db = new Db(path, false, 5000).ready()
  try {
    return f(db)
  } finally {
    db.close()
  }
}

/** The SQLite backend of the conformance suite. */
export const sqlite = (): Conformance.Backend & { readonly close: Effect.Effect<void> } => {
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "branchlog-sqlite-conformance-"))
  const scope = Effect.runSync(Scope.make())
  let places = 0
  return {
    name: "sqlite",
    layer: SqliteStore.layer(),
    close: Effect.zipRight(
      Scope.close(scope, Exit.void),
      Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
    ),
    subject: {
      place: Effect.sync(() => `sqlite:${nodePath.join(root, `place-${++places}.db`)}`),
      create: (place, cwd, options) => SessionManager.create(cwd, place, options),
      open: (ref, options) => SessionManager.open(ref, undefined, undefined, options),
      refOf: (manager) => SessionRef.format(manager.getSessionRef()!),
      absent: (place, name) => SessionRef.format(SqliteStore.ref(place, name)),
      forkFrom: (source, targetCwd, place, options) => SessionManager.forkFrom(source, targetCwd, place, options),
      continueRecent: (place, cwd, options) => SessionManager.continueRecent(cwd, place, options),
      list: (place) =>
        Effect.flatMap(
          TranscriptStore.TranscriptStore,
          (store) =>
            Effect.map(store.list({ location: place }), (found) =>
              found.map((info) => ({ ref: SessionRef.format(info.ref), info })))
        ),
      mostRecent: (place) =>
        Effect.flatMap(
          TranscriptStore.TranscriptStore,
          (store) => Effect.map(store.mostRecent(place), Option.map(SessionRef.format))
        ),
      remove: (ref) => Effect.flatMap(TranscriptStore.TranscriptStore, (store) => store.remove(parseRef(ref))),
      rows: (ref) =>
        Effect.sync(() => {
          const r = parseRef(ref)
          return withDb(r.path, (db) => db.session(r.id) === undefined ? undefined : db.textsAfter(r.id, 0))
        }),
      backups: (ref) =>
        Effect.sync(() => {
          const r = parseRef(ref)
          return withDb(r.path, (db) => db.backups(r.id).map((b) => b.rows)) ?? []
        }),
      seed: (place, name, texts) =>
        Effect.flatMap(TranscriptStore.TranscriptStore, (store) => {
          const r = SqliteStore.ref(place, name)
          return Effect.as(store.exclusive(r, (held) => held.create(texts)), SessionRef.format(r))
        }),
      foreignAppend: (ref, texts) =>
        Effect.sync(() => {
          const r = parseRef(ref)
          const result = withDb(r.path, (db) => db.write(r.id, texts, { nowMs: Date.now() }))
          if (result?._tag !== "Written") throw new Error(`foreign append failed: ${ref}`)
        }),
      foreignReplace: (ref, texts) =>
        Effect.sync(() => {
          const r = parseRef(ref)
          if (withDb(r.path, (db) => db.replace(r.id, texts, { nowMs: Date.now() })) === undefined) {
            throw new Error(`foreign replace failed: ${ref}`)
          }
        }),
      independent: (effect) =>
        Effect.flatMap(
          Scope.extend(SqliteStore.make(), scope),
          (store) => Effect.provide(effect, Layer.succeed(TranscriptStore.TranscriptStore, store))
        )
    }
  }
}

/**
 * A temporary folder of one test file's databases (`branchlog-sqlite-<name>-…`, removed after its
 * tests) and `fresh`, which names a new database in it each call.
 */
export const tempDbs = (name: string): { readonly root: string; readonly fresh: () => string } => {
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), `branchlog-sqlite-${name}-`))
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
  let dbs = 0
  return { root, fresh: () => nodePath.join(root, `db-${++dbs}.db`) }
}
