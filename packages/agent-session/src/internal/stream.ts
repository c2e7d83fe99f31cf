/**
 * Streams one reply of the model into an `AssistantMessage`: every event is folded in and
 * reported; an abort ends the stream (or the wait before a retry) and marks the message
 * `aborted`; a transient failure is retried by the `Retry` schedule from the start of the call
 * (the partial reply is dropped, and `onRetry` says so); a failure that is not retried, or the
 * last one, marks the message `error` with its message. Never fails.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type { ModelError } from "../AgentError.js"
import * as LanguageModel from "../LanguageModel.js"
import type { ModelCost } from "../ModelRegistry.js"
import * as Retry from "../Retry.js"

/** What one reply needs. */
export interface ReplyOptions {
  readonly model: LanguageModel.LanguageModelShape
  readonly request: LanguageModel.ModelRequest
  readonly abort: Deferred.Deferred<void>
  readonly provider: string
  readonly modelId: string
  readonly cost: ModelCost | undefined
  readonly onEvent: (event: LanguageModel.ModelEvent) => Effect.Effect<void>
  readonly retry?: Retry.Settings
  /** Called before each wait of a retry (the events of the failed attempt are void from here). */
  readonly onRetry?: (step: Retry.RetryStep) => Effect.Effect<void>
}

const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** Streams the reply; the message is complete, aborted or in error. */
export const streamReply = (options: ReplyOptions): Effect.Effect<AgentMessage.AssistantMessage> =>
  Effect.gen(function*() {
    const timestamp = yield* Clock.currentTimeMillis
    const fresh = () =>
      LanguageModel.emptyAssistant({
        api: options.model.api,
        provider: options.provider,
        model: options.modelId,
        timestamp
      })
    let message = fresh()
    let stopped = false
    let attempts = 0
    const attempt: Effect.Effect<void, ModelError> = Effect.suspend(() => {
      attempts++
      message = fresh()
      stopped = false
      return Stream.suspend(() => options.model.stream(options.request)).pipe(
        Stream.runForEach((event) => {
          message = LanguageModel.applyEvent(message, event)
          if (event._tag === "Stop") stopped = true
          return options.onEvent(event)
        })
      )
    })
    const onRetry = options.onRetry ?? (() => Effect.void)
    const policy = Retry.schedule(options.retry ?? Retry.none, onRetry)
    const exit = yield* Effect.raceFirst(
      Effect.exit(Effect.retry(attempt, policy)),
      Effect.as(Deferred.await(options.abort), Exit.void)
    )
    message = { ...message, usage: LanguageModel.withCost(message.usage, options.cost) }
    if (yield* Deferred.isDone(options.abort)) return { ...message, stopReason: "aborted" }
    if (Exit.isFailure(exit)) {
      const after = attempts > 1 ? ` (after ${attempts} attempts)` : ""
      return { ...message, stopReason: "error", errorMessage: `${reasonOf(exit.cause)}${after}` }
    }
    if (!stopped) {
      return { ...message, stopReason: "error", errorMessage: "the model stream ended without a stop reason" }
    }
    return message
  })
