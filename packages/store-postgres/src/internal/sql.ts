/**
 * Talking to PostgreSQL: plain queries (`$n` parameters, passed to node-postgres as they are) on
 * the pool or on one reserved connection, a transaction whose COMMIT failure is a catchable
 * error (not `withTransaction`'s defect), which failures are transient (serialisation failure,
 * deadlock, a connection lost or refused, a server starting or shutting down), the retry schedule
 * for them, and how a failure becomes the storage interface's `BackendFailureError`.
 */
import { LockTimeoutError } from "@branchlog/session-store/StoreError"
import { BackendFailureError, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import type { SqlClient } from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"

/** Runs one statement and gives its rows. */
export type Run = (text: string, params?: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<any>, SqlError>

/** Statements on the pool (each on whichever connection is free). */
export const onPool = (sql: SqlClient): Run => (text, params = []) => sql.unsafe(text, params as Array<unknown>)

/** Statements on one reserved connection. */
export const onConnection = (conn: Connection): Run => (text, params = []) =>
  conn.execute(text, params, undefined) as Effect.Effect<ReadonlyArray<any>, SqlError>

/**
 * `body` in one transaction on `run`'s connection (which must be a reserved one): BEGIN, the
 * body, COMMIT; ROLLBACK when the body fails. A failed COMMIT fails with its `SqlError`.
 * `durable: false` commits without waiting for the WAL flush (`synchronous_commit` off for it).
 */
export const transaction = <A, E, R>(
  run: Run,
  body: Effect.Effect<A, E, R>,
  options: { readonly durable?: boolean } = {}
): Effect.Effect<A, E | SqlError, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // one round trip (no parameters: the simple protocol runs both statements)
      yield* run(options.durable === false ? "BEGIN; SET LOCAL synchronous_commit TO off" : "BEGIN")
      const exit = yield* Effect.exit(restore(body))
      if (Exit.isFailure(exit)) {
        yield* Effect.ignore(run("ROLLBACK"))
        return yield* exit
      }
      yield* run("COMMIT")
      return exit.value
    })
  )

const transientCodes = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down)
  "53300", // too_many_connections
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN"
])

const transientMessage =
  /Connection terminated|not queryable|connection error|ECONNRESET|ECONNREFUSED|timeout exceeded when trying to connect|timed out|terminating connection|the database system is/i

const codeOf = (cause: unknown): string | undefined => {
  const code = (cause as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

/** The SQLSTATE or system error code of a failure, if any. */
export const errorCode = (error: unknown): string | undefined =>
  error instanceof SqlError ? codeOf(error.cause) : codeOf(error)

/** `true` for a failure a retry may cure. */
export const isTransient = (error: unknown): boolean => {
  if (!(error instanceof SqlError)) return false
  const code = codeOf(error.cause)
  if (code !== undefined && (transientCodes.has(code) || code.startsWith("08"))) return true
  // an error the server answered with (a SQLSTATE) is transient only by its code
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return false
  const text = `${error.message} ${(error.cause as { message?: unknown } | null)?.message ?? ""}`
  return transientMessage.test(text)
}

/** Backoff between retries of transient failures: 25 ms doubling, at most 1 s apart, jittered, for at most `maxMs`. */
export const retrySchedule = (maxMs: number) =>
  Schedule.exponential("25 millis").pipe(
    Schedule.union(Schedule.spaced("1 second")),
    Schedule.jittered,
    Schedule.upTo(`${maxMs} millis`)
  )

/** Retries `effect` on transient failures (the effect must be idempotent). */
export const retrying = <A, E, R>(effect: Effect.Effect<A, E, R>, maxMs: number): Effect.Effect<A, E, R> =>
  Effect.retry(effect, { schedule: retrySchedule(maxMs), while: isTransient })

/** A URL or reference with its password hidden (`postgres://user:***@host/db`). */
export const redact = (text: string): string => text.replace(/^(postgres(?:ql)?:\/\/[^:/@#]*):[^@/#]*@/, "$1:***@")

/** What a failure of the store becomes: a backend's failure, or an error of the interface passed on as it is. */
export type StoreError = BackendFailureError | LockTimeoutError | SchemaTooNewError

/**
 * A failure as the storage interface's `BackendFailureError` (location: the redacted reference;
 * code: the SQLSTATE or system code; cause: the failure), or as it is when it is one of the
 * interface's errors already.
 */
export const toStoreError = (path: string, operation: string) => (error: unknown): StoreError => {
  if (
    error instanceof BackendFailureError || error instanceof LockTimeoutError || error instanceof SchemaTooNewError
  ) return error
  const cause = error instanceof SqlError ? error.cause : error
  const detail = error instanceof SqlError
    ? `${error.message}: ${(cause as { message?: unknown } | null)?.message ?? String(cause)}`
    : String((error as { message?: unknown } | null)?.message ?? error)
  const code = errorCode(error)
  return new BackendFailureError({
    store: "postgres",
    location: redact(path),
    operation,
    ...(code === undefined ? {} : { code }),
    detail,
    cause: error
  })
}
