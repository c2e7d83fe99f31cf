/**
 * The store conformance suite against the PostgreSQL store (`postgres`): a place is a fresh
 * database of the run's server, a reference is `postgres://…/DB#ID`, another process is a second
 * store with its own pools; the reference fixtures are stored as they are. `pnpm conformance` counts
 * this file's results.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { Conformance } from "@branchlog/session-store/testing"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, expect, test } from "vitest"
import * as Rows from "../src/internal/rows.js"
import { transaction } from "../src/internal/sql.js"
import * as Store from "../src/internal/store.js"
import * as PostgresStore from "../src/PostgresStore.js"
import { database, runOver, storeLayer, withClient } from "./support/db.js"

const parseRef = (ref: string) => {
  const parsed = SessionRef.parse(ref)
  if (Either.isLeft(parsed) || parsed.right._tag !== "Postgres") throw new Error(`not a postgres reference: ${ref}`)
  return parsed.right
}

// the managers an independent store hands out outlive the effect that opened them: its pools live
// until the file ends
const independents = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(independents, Exit.void)))

const textOf = (row: { text: string; raw: Buffer | null }) => Rows.textOfRow(row)

const backend: Conformance.Backend = {
  name: "postgres",
  layer: storeLayer(),
  subject: {
    place: Effect.promise(() => database()),
    create: (place, cwd, options) => SessionManager.create(cwd, place, options),
    open: (ref, options) => SessionManager.open(ref, undefined, undefined, options),
    refOf: (manager) => SessionRef.format(manager.getSessionRef()!),
    absent: (place, name) => SessionRef.format({ _tag: "Postgres", url: place, id: name }),
    forkFrom: (source, targetCwd, place, options) => SessionManager.forkFrom(source, targetCwd, place, options),
    continueRecent: (place, cwd, options) => SessionManager.continueRecent(cwd, place, options),
    list: (place) =>
      Effect.flatMap(
        TranscriptStore,
        (store) =>
          Effect.map(store.list({ location: place }), (found) =>
            found.map((info) => ({ ref: SessionRef.format(info.ref), info })))
      ),
    mostRecent: (place) =>
      Effect.flatMap(TranscriptStore, (store) => Effect.map(store.mostRecent(place), Option.map(SessionRef.format))),
    remove: (ref) => Effect.flatMap(TranscriptStore, (store) => store.remove(parseRef(ref))),
    rows: (ref) => {
      const { url, id } = parseRef(ref)
      return Effect.promise(() =>
        withClient(url, async (client) => {
          const present = await client.query("SELECT to_regclass('branchlog_rows') IS NOT NULL AS p")
          if (present.rows[0].p !== true) return undefined
          const found = await client.query("SELECT text, raw FROM branchlog_rows WHERE session_id = $1 ORDER BY seq", [
            id
          ])
          return found.rows.length === 0 ? undefined : found.rows.map(textOf)
        })
      )
    },
    backups: (ref) => {
      const { url, id } = parseRef(ref)
      return Effect.promise(() =>
        withClient(url, async (client) => {
          const present = await client.query("SELECT to_regclass('branchlog_backups') IS NOT NULL AS p")
          if (present.rows[0].p !== true) return []
          const found = await client.query(
            `SELECT b.name, r.text, r.raw FROM branchlog_backups b JOIN branchlog_backup_rows r ON r.backup = b.name
             WHERE b.session_id = $1 ORDER BY b.created, b.name, r.seq`,
            [id]
          )
          const out = new Map<string, Array<string>>()
          for (const row of found.rows) out.set(row.name, [...(out.get(row.name) ?? []), textOf(row)])
          return [...out.values()]
        })
      )
    },
    seed: (place, name, texts) =>
      Effect.gen(function*() {
        yield* Effect.orDie(PostgresStore.migrate(place))
        yield* Effect.promise(() =>
          withClient(place, (client) =>
            Effect.runPromise(transaction(
              runOver(client),
              Effect.gen(function*() {
                const run = runOver(client)
                const head = (yield* Rows.lockHead(run, name, true))!
                yield* Rows.appendRows(run, name, head.lastSeq, texts)
              })
            )))
        )
        return SessionRef.format({ _tag: "Postgres", url: place, id: name })
      }),
    foreignAppend: (ref, texts) => {
      const { url, id } = parseRef(ref)
      return Effect.promise(() =>
        withClient(url, (client) =>
          Effect.runPromise(transaction(
            runOver(client),
            Effect.gen(function*() {
              const run = runOver(client)
              const head = yield* Rows.lockHead(run, id, false)
              if (head === undefined) throw new Error(`no such session: ${ref}`)
              yield* Rows.appendRows(run, id, head.lastSeq, texts)
            })
          )))
      )
    },
    foreignReplace: (ref, texts) => {
      const { url, id } = parseRef(ref)
      return Effect.promise(() =>
        withClient(url, (client) =>
          Effect.runPromise(transaction(
            runOver(client),
            Effect.gen(function*() {
              const run = runOver(client)
              const head = yield* Rows.lockHead(run, id, false)
              if (head === undefined) throw new Error(`no such session: ${ref}`)
              yield* Rows.replaceRows(run, id, head, texts, undefined)
            })
          )))
      )
    },
    independent: (effect) =>
      Effect.provideServiceEffect(
        effect,
        TranscriptStore,
        Store.make(independents, { maxConnections: 4, idleTimeoutMs: 2_000 })
      )
  }
}

const all = fixtures()
Conformance.suite(backend, { fixtures: all })

// outside the backend's block (not counted by `pnpm conformance`): the fixtures were found
test("the reference fixtures the suite stores are found (at least 10)", () => {
  expect(all.length).toBeGreaterThanOrEqual(10)
})
