/**
 * A small `@effect/sql` `SqlClient` over one open connection of either engine (`SqliteEngine`),
 * built with `SqlClient.make` and the SQLite statement compiler, as `@effect/sql-sqlite-node`'s
 * own client is, but over better-sqlite3's API as `nodeSqlite.ts` gives it for `node:sqlite` too:
 * what the migrator (`schema.ts`) runs on. One connection, one fiber at a time; no streams.
 */
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./better-sqlite3.d.ts" />
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import type Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as SqliteEngine from "../SqliteEngine.js"

const attempt = <A>(message: string, f: () => A) =>
  Effect.try({ try: f, catch: (cause) => new SqlError({ cause, message }) })

const connectionOf = (db: Database.Database): Connection => {
  const run = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
    attempt("Failed to execute statement", () => {
      const statement = db.prepare(sql)
      if (statement.reader) return statement.all(...params)
      const result = statement.run(...params)
      return raw ? result as unknown as ReadonlyArray<any> : []
    })
  return {
    execute: (sql, params, transformRows) =>
      transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false),
    executeRaw: (sql, params) => run(sql, params, true),
    executeValues: (sql, params) =>
      attempt("Failed to execute statement", () => {
        const statement = db.prepare(sql)
        if (!statement.reader) {
          statement.run(...params)
          return []
        }
        return statement.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
      }),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows ? Effect.map(run(sql, params, false), transformRows) : run(sql, params, false),
    executeStream: () => Effect.dieMessage("executeStream is not implemented by store-sqlite's client") as never
  }
}

/** A client over a new connection to `filename` (WAL), closed with the scope. */
export const make = (
  filename: string
): Effect.Effect<SqlClient.SqlClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      attempt("Failed to open the database", () => SqliteEngine.open(filename, {}) as Database.Database),
      (db) => Effect.sync(() => db.close())
    )
    db.pragma("journal_mode = WAL")
    const connection = connectionOf(db)
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        connection
      )
    )
    return yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/** The client of {@link make} as a layer (with its `Reactivity`). */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(filename)).pipe(Layer.provide(Reactivity.layer))
