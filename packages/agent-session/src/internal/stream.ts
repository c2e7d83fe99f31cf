/**
 * Streams one reply of the model into an `AssistantMessage`: every event is folded in and
 * reported; an abort ends the stream and marks the message `aborted`; a model failure (or
 * defect, or a stream without a stop reason) marks it `error` with its message. Never fails.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as LanguageModel from "../LanguageModel.js"
import type { ModelCost } from "../ModelRegistry.js"

/** What one reply needs. */
export interface ReplyOptions {
  readonly model: LanguageModel.LanguageModelShape
  readonly request: LanguageModel.ModelRequest
  readonly abort: Deferred.Deferred<void>
  readonly provider: string
  readonly modelId: string
  readonly cost: ModelCost | undefined
  readonly onEvent: (event: LanguageModel.ModelEvent) => Effect.Effect<void>
}

const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** Streams the reply; the message is complete, aborted or in error. */
export const streamReply = (options: ReplyOptions): Effect.Effect<AgentMessage.AssistantMessage> =>
  Effect.gen(function*() {
    const timestamp = yield* Clock.currentTimeMillis
    let message = LanguageModel.emptyAssistant({
      api: options.model.api,
      provider: options.provider,
      model: options.modelId,
      timestamp
    })
    let stopped = false
    const exit = yield* Stream.suspend(() => options.model.stream(options.request)).pipe(
      Stream.interruptWhen(Deferred.await(options.abort)),
      Stream.runForEach((event) => {
        message = LanguageModel.applyEvent(message, event)
        if (event._tag === "Stop") stopped = true
        return options.onEvent(event)
      }),
      Effect.exit
    )
    message = { ...message, usage: LanguageModel.withCost(message.usage, options.cost) }
    if (yield* Deferred.isDone(options.abort)) return { ...message, stopReason: "aborted" }
    if (Exit.isFailure(exit)) return { ...message, stopReason: "error", errorMessage: reasonOf(exit.cause) }
    if (!stopped) {
      return { ...message, stopReason: "error", errorMessage: "the model stream ended without a stop reason" }
    }
    return message
  })
