/**
 * Retries of model calls that fail on a transient error: connection refused or reset, a timeout,
 * a stream cut half-way (the provider marks these `transient`), HTTP 408, 429 and 5xx. Anything
 * else (a 4xx, a malformed reply, an error the provider put in the stream) fails at once.
 *
 * The waits come from an Effect `Schedule`: exponential from `baseDelayMs` (doubling), with
 * jitter, at least the provider's `Retry-After`, at most `maxDelayMs` each; at most `maxRetries`
 * retries, and no retry whose wait would take the total waiting past `budgetMs`. A retried call
 * starts again from the beginning (its partial reply is dropped, never written twice).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { ModelError } from "./AgentError.js"

/** How model calls are retried. */
export interface Settings {
  /** Most retries after the first attempt (0: none). */
  readonly maxRetries: number
  /** The first wait, in milliseconds (doubled at each retry, with jitter). */
  readonly baseDelayMs: number
  /** The longest single wait, `Retry-After` included, in milliseconds. */
  readonly maxDelayMs: number
  /** The most waiting, in milliseconds, across the retries of one call. */
  readonly budgetMs: number
}

/** 4 retries from 1 s, at most 30 s each and 60 s in all. */
export const defaultSettings: Settings = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 30_000, budgetMs: 60_000 }

/** No retries. */
export const none: Settings = { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0, budgetMs: 0 }

/** One retry about to wait: the attempt that failed (1 for the first call), its error, the wait. */
export interface RetryStep {
  readonly attempt: number
  readonly error: ModelError
  readonly delayMs: number
}

/** Whether a failed call is worth another attempt. */
export const isTransient = (error: ModelError): boolean => {
  if (error.transient === true) return true
  const status = error.status
  return status !== undefined && (status === 408 || status === 429 || (status >= 500 && status <= 599))
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay seconds, or an HTTP date
 * (relative to `now`); `undefined` when absent or unreadable.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * The retry schedule of one call (it keeps the call's state: build one per call). Its input is
 * the call's error; its output, the step about to wait. `onRetry` is called once per retry that
 * will happen, before its wait (never for the failure that ends the retries).
 */
export const schedule = (
  settings: Settings,
  onRetry: (step: RetryStep) => Effect.Effect<void> = () => Effect.void
): Schedule.Schedule<RetryStep, ModelError> => {
  let last: ModelError | undefined
  let waited = 0
  let attempt = 0
  const stepOf = (delay: Duration.Duration): RetryStep => ({ attempt, error: last!, delayMs: Duration.toMillis(delay) })
  return Schedule.exponential(Duration.millis(Math.max(1, settings.baseDelayMs)), 2).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(settings.maxRetries)),
    Schedule.whileInput((error: ModelError) => isTransient(error)),
    Schedule.modifyDelay((_, delay) =>
      Duration.millis(
        Math.min(settings.maxDelayMs, Math.max(Duration.toMillis(delay), last?.retryAfterMs ?? 0))
      )
    ),
    Schedule.delays,
    // called only for a step that goes on: the budget, then the retry is announced
    Schedule.checkEffect((_, delay) =>
      Effect.suspend(() => {
        const step = stepOf(delay)
        if (waited + step.delayMs > settings.budgetMs) return Effect.succeed(false)
        waited += step.delayMs
        return Effect.as(onRetry(step), true)
      })
    ),
    Schedule.map(stepOf),
    Schedule.tapInput((error: ModelError) =>
      Effect.sync(() => {
        last = error
        attempt++
      })
    )
  )
}
