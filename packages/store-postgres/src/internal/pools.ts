/**
 * One connection pool per database URL, opened on first use and closed with the store's scope;
 * connection settings from the URL and, for what it leaves out, the usual `PG*` variables (read
 * by node-postgres). Each pool knows whether its database has been given the schema, and runs at
 * most one LISTEN, shared by every `watch` of that database.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** The channel every commit notifies on (payload `<session id>:<last sequence>`). */
export const CHANNEL = "branchlog"

/** Options of the pools. */
export interface PoolOptions {
  /** Connections per pool (default 10). */
  readonly maxConnections?: number
  /** Idle connections close after this long (default 10 s). */
  readonly idleTimeoutMs?: number
  /** How long a connection attempt may take (default 10 s). */
  readonly connectTimeoutMs?: number
  /** How often a LISTEN checks that it still hears (default 5 s); a deaf one is started again. */
  readonly listenCheckMs?: number
}

/** One database's pool. */
export interface Pool {
  readonly url: string
  readonly sql: PgClient.PgClient
  /** Set once the database is known to have the current schema. */
  migrated: boolean
  /** The notifications of this database (started on first use). */
  readonly notifications: Effect.Effect<PubSub.PubSub<string>>
}

/** A payload that names no session (no `:`): what the LISTEN check sends itself. */
const PING = "branchlog-listen-check"

/**
 * Runs LISTEN into `hub` for as long as the pool lives. The LISTEN connection of `@effect/sql-pg`
 * goes silent when it is lost (a server restart) rather than failing, so every `checkMs` the
 * listener notifies itself; when that does not come back in time, it drops its LISTEN (which
 * releases the dead connection) and starts again on a new one.
 */
const supervise = (sql: PgClient.PgClient, hub: PubSub.PubSub<string>, checkMs: number) =>
  Effect.gen(function*() {
    let heard = 0
    const listening = Stream.runForEach(sql.listen(CHANNEL), (payload) =>
      payload.startsWith(PING)
        ? Effect.sync(() => void (heard += 1))
        : Effect.asVoid(PubSub.publish(hub, payload))).pipe(Effect.catchAll(() => Effect.never))
    const check = Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(checkMs))
        const before = heard
        const sent = yield* Effect.either(sql.unsafe(`SELECT pg_notify($1, $2)`, [CHANNEL, PING]))
        // the server away: nothing to check against yet (the next round will)
        if (sent._tag === "Left") continue
        const deadline = Date.now() + checkMs
        while (heard === before && Date.now() < deadline) yield* Effect.sleep("20 millis")
        if (heard === before) return
      }
    })
    for (;;) {
      yield* Effect.raceFirst(listening, check)
      yield* Effect.sleep("100 millis")
    }
  })

/** The pools of one store. */
export interface Pools {
  readonly get: (url: string) => Effect.Effect<Pool, SqlError>
  /** The URLs of the pools opened so far. */
  readonly urls: () => ReadonlyArray<string>
  /** `true` once the pool of `url` has connected. */
  readonly opened: (url: string) => boolean
}

/** A registry of pools living in `scope`. */
export const make = (scope: Scope.Scope, options: PoolOptions = {}): Effect.Effect<Pools> =>
  Effect.gen(function*() {
    const pools = new Map<string, Pool>()
    const lock = yield* Effect.makeSemaphore(1)

    const open = (url: string): Effect.Effect<Pool, SqlError> =>
      Effect.gen(function*() {
        const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        const created = yield* PgClient.make({
          url: Redacted.make(url),
          maxConnections: options.maxConnections ?? 10,
          idleTimeout: Duration.millis(options.idleTimeoutMs ?? 10_000),
          connectTimeout: Duration.millis(options.connectTimeoutMs ?? 10_000),
          applicationName: "branchlog"
        }).pipe(Effect.provide(Reactivity.layer), Scope.extend(child), Effect.exit)
        if (Exit.isFailure(created)) {
          yield* Scope.close(child, created)
          return yield* Effect.failCause(created.cause)
        }
        const sql = created.value
        let hub: PubSub.PubSub<string> | undefined
        const hubLock = Effect.unsafeMakeSemaphore(1)
        const notifications = hubLock.withPermits(1)(Effect.suspend(() => {
          if (hub !== undefined) return Effect.succeed(hub)
          return Effect.gen(function*() {
            const made = yield* PubSub.unbounded<string>()
            yield* supervise(sql, made, options.listenCheckMs ?? 5_000).pipe(Effect.forkIn(child))
            hub = made
            return made
          })
        }))
        const pool: Pool = { url, sql, migrated: false, notifications }
        pools.set(url, pool)
        return pool
      })

    return {
      get: (url) =>
        Effect.suspend(() => {
          const found = pools.get(url)
          if (found !== undefined) return Effect.succeed(found)
          return lock.withPermits(1)(Effect.suspend(() => {
            const again = pools.get(url)
            return again !== undefined ? Effect.succeed(again) : open(url)
          }))
        }),
      urls: () => [...pools.keys()],
      opened: (url) => pools.has(url)
    }
  })
