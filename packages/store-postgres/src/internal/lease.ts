/**
 * Holding a session against every other host: a session-level advisory lock
 * (`pg_advisory_lock(HOLD, hashtext(session id))`) taken on a connection reserved for the hold,
 * released (and the connection handed back) when the hold ends. Every statement of the hold runs
 * on that connection, so a hold needs one connection and nothing it does waits for another
 * connection of its own: a hold cannot deadlock against itself, and two holds of one session
 * only queue (the lock is the only thing a waiting hold has asked for, and it holds nothing
 * yet). The wait is bounded by `lock_timeout` (the hold's timeout), after which it fails with
 * `LockTimeoutError`.
 *
 * When the connection is lost mid-hold (a server restart), the server let go of the lock with
 * it; the hold then takes a new connection and the lock again (retrying with backoff while the
 * server is away), and its epoch moves on, so that nothing it vouched for before is trusted.
 */
import { LockTimeoutError } from "@branchlog/session-store/StoreError"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { Pool } from "./pools.js"
import type { Run } from "./sql.js"
import { errorCode, isTransient, onConnection, redact, retrying } from "./sql.js"

/** The first key of the hold's advisory lock (two-int form: never the single-bigint keys of others). */
export const HOLD = 0x62_6c_68 // "blh"

/** A hold of one session on one connection, re-taken after a lost connection. */
export interface Lease {
  /** Runs `op` on the hold's connection; re-takes the hold and retries when the connection is lost. */
  readonly use: <A, E>(
    op: (run: Run) => Effect.Effect<A, E | SqlError>
  ) => Effect.Effect<A, E | SqlError | LockTimeoutError>
  /** Bumped each time the hold was re-taken. */
  readonly epoch: () => number
  readonly release: Effect.Effect<void>
}

interface Taken {
  readonly run: Run
  readonly scope: Scope.CloseableScope
}

/** Takes the hold of `session` (waiting at most `timeoutMs`; `Infinity`: for ever). */
export const acquire = (
  pool: Pool,
  session: string,
  ref: string,
  timeoutMs: number,
  retryMs: number
): Effect.Effect<Lease, SqlError | LockTimeoutError> =>
  Effect.gen(function*() {
    const lockTimeout = Number.isFinite(timeoutMs) ? `${Math.max(1, Math.round(timeoutMs))}ms` : "0"
    const takeOnce = Effect.gen(function*() {
      const scope = yield* Scope.make()
      const taken = yield* Effect.gen(function*() {
        const conn = yield* Scope.extend(pool.sql.reserve, scope)
        const run = onConnection(conn)
        // uncontended: one round trip; contended: wait in the server, at most the hold's timeout
        const free = yield* run(`SELECT pg_try_advisory_lock(${HOLD}, hashtext($1)) AS got`, [session])
        if (free[0]?.got !== true) {
          yield* run(`SELECT set_config('lock_timeout', $1, false)`, [lockTimeout])
          yield* run(`SELECT pg_advisory_lock(${HOLD}, hashtext($1))`, [session]).pipe(
            Effect.ensuring(Effect.ignore(run(`SELECT set_config('lock_timeout', '0', false)`)))
          )
        }
        return { run, scope }
      }).pipe(Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void))
      return taken
    })
    const take = retrying(takeOnce, retryMs).pipe(
      Effect.catchIf(
        (error) => errorCode(error) === "55P03",
        () =>
          Effect.fail(
            new LockTimeoutError({
              path: redact(ref),
              lockPath: `pg_advisory_lock(${HOLD}, hashtext('${session}'))`,
              timeoutMs,
              staleReasons: []
            })
          )
      )
    )
    const letGo = (taken: Taken) =>
      Effect.ignore(taken.run(`SELECT pg_advisory_unlock(${HOLD}, hashtext($1))`, [session])).pipe(
        Effect.zipRight(Scope.close(taken.scope, Exit.void))
      )
    let current: Taken | undefined = yield* take
    let epoch = 0
    const lease: Lease = {
      epoch: () => epoch,
      use: <A, E>(op: (run: Run) => Effect.Effect<A, E | SqlError>) =>
        retrying(
          Effect.gen(function*() {
            if (current === undefined) {
              current = yield* take
              epoch += 1
            }
            const taken = current
            return yield* op(taken.run).pipe(
              Effect.tapError((error) =>
                isTransient(error)
                  ? Effect.suspend(() => {
                    if (current === taken) current = undefined
                    return letGo(taken)
                  })
                  : Effect.void
              )
            )
          }),
          retryMs
        ),
      release: Effect.suspend(() => {
        const taken = current
        current = undefined
        return taken === undefined ? Effect.void : letGo(taken)
      })
    }
    return lease
  })
