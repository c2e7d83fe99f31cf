/**
 * The agent loop of one `prompt`: model call, assistant message, tool calls, tool results, and
 * again until the model stops, the turn is aborted, the model fails, or `maxTurns` is reached.
 */
import type { AgentMessage } from "@branchlog/session-core"
import { LlmMessages } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { ModelError } from "../AgentError.js"
import * as Hooks from "../Hooks.js"
import * as LanguageModel from "../LanguageModel.js"
import type { ModelRegistryShape } from "../ModelRegistry.js"
import type * as Retry from "../Retry.js"
import * as Tool from "../Tool.js"
import type { ToolRegistryShape } from "../ToolRegistry.js"
import { streamReply } from "./stream.js"
import { abortedResult, notRunResult, runAll } from "./toolRunner.js"

/** Something that happened during a prompt. */
export type AgentEvent =
  | { readonly _tag: "TurnStart"; readonly turn: number }
  | { readonly _tag: "MessageUpdate"; readonly event: LanguageModel.ModelEvent }
  /** A model call failed and is tried again after `delayMs`; its streamed deltas are void. */
  | {
    readonly _tag: "Retry"
    readonly attempt: number
    readonly delayMs: number
    readonly error: ModelError
  }
  | { readonly _tag: "MessageEnd"; readonly message: AgentMessage.AgentMessage; readonly entryId: string }
  | { readonly _tag: "ToolEnd"; readonly result: AgentMessage.ToolResultMessage }
  | { readonly _tag: "AgentEnd"; readonly stopReason: AgentMessage.StopReason }
  | {
    readonly _tag: "Compacted"
    readonly entryId: string
    readonly firstKeptEntryId: string
    readonly tokensBefore: number
  }

/** How a prompt ended. */
export interface PromptResult {
  readonly stopReason: AgentMessage.StopReason
  /** Every message this prompt appended, in order (the user message first). */
  readonly messages: ReadonlyArray<AgentMessage.AgentMessage>
  /** Their entry ids, in the same order. */
  readonly entryIds: ReadonlyArray<string>
  readonly errorMessage?: string
}

/** What the loop works with. */
export interface LoopEnv {
  readonly sm: SessionManager.SessionManager
  readonly model: LanguageModel.LanguageModelShape
  readonly tools: ToolRegistryShape
  readonly models: ModelRegistryShape
  readonly hooks: ReadonlyArray<Hooks.Hooks>
  readonly systemPrompt: () => string
  readonly emit: (event: AgentEvent) => Effect.Effect<void>
  /** Serialises this session's use of the manager. */
  readonly serial: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  readonly maxTurns: number
  readonly retry: Retry.Settings
}

/** The abort handle of the running prompt. */
export interface AbortHandle {
  readonly deferred: Deferred.Deferred<void>
  readonly controller: AbortController
}

/** Runs the turns after the user message (already appended as `userId`). */
export const runTurns = (
  env: LoopEnv,
  abort: AbortHandle,
  user: { readonly message: AgentMessage.AgentMessage; readonly id: string }
): Effect.Effect<PromptResult, SessionManager.WriteError> =>
  Effect.gen(function*() {
    const messages: Array<AgentMessage.AgentMessage> = [user.message]
    const entryIds: Array<string> = [user.id]
    const record = (message: AgentMessage.AgentMessage, entryId: string) => {
      messages.push(message)
      entryIds.push(entryId)
      return env.emit({ _tag: "MessageEnd", message, entryId })
    }
    let last: AgentMessage.AssistantMessage | undefined
    for (let turn = 0; turn < env.maxTurns; turn++) {
      yield* env.serial(env.sm.refresh())
      const context = LlmMessages.convertToLlm(env.sm.buildSessionContext().messages)
      yield* Hooks.runTurn(env.hooks, "beforeTurn", { turn, messages: context })
      yield* env.emit({ _tag: "TurnStart", turn })
      const current = env.models.current()
      const active = env.tools.activeTools()
      const assistant = yield* streamReply({
        model: env.model,
        request: {
          purpose: "turn",
          model: { provider: current.provider, id: current.id },
          system: env.systemPrompt(),
          messages: context,
          tools: active.map(Tool.toSpec),
          thinkingLevel: env.models.thinkingLevel(),
          signal: abort.controller.signal
        },
        abort: abort.deferred,
        provider: current.provider,
        modelId: current.id,
        cost: current.cost,
        onEvent: (event) => env.emit({ _tag: "MessageUpdate", event }),
        retry: env.retry,
        onRetry: (step) => env.emit({ _tag: "Retry", ...step })
      })
      last = assistant
      yield* record(assistant, yield* env.serial(env.sm.appendMessage(assistant)))
      const allCalls = LanguageModel.toolCallsOf(assistant)
      const calls = assistant.stopReason === "toolUse" ? allCalls : []
      const results: Array<AgentMessage.ToolResultMessage> = []
      if (calls.length === 0 && allCalls.length > 0) {
        // Calls of a reply that was aborted, failed or cut: not run, but answered, so that every
        // call in the transcript has its result (models reject unanswered calls).
        const now = yield* Clock.currentTimeMillis
        for (const call of allCalls) results.push(notRunResult(call, assistant.stopReason, now))
        const ids = yield* env.serial(env.sm.withWriteLock(Effect.forEach(results, (r) => env.sm.appendMessage(r))))
        for (const [i, r] of results.entries()) yield* record(r, ids[i]!)
      }
      if (calls.length > 0) {
        const done = new Map<AgentMessage.ToolCall, AgentMessage.ToolResultMessage>()
        yield* Effect.race(
          runAll({ tools: new Map(active.map((t) => [t.name, t])), hooks: env.hooks }, calls, (call, result) =>
            Effect.zipRight(
              Effect.sync(() =>
                done.set(call, result)
              ),
              env.emit({ _tag: "ToolEnd", result })
            )),
          Deferred.await(abort.deferred)
        )
        const now = yield* Clock.currentTimeMillis
        for (const call of calls) {
          results.push(done.get(call) ?? abortedResult(call, now))
        }
        const ids = yield* env.serial(env.sm.withWriteLock(Effect.forEach(results, (r) =>
          env.sm.appendMessage(r))))
        for (const [i, r] of results.entries()) yield* record(r, ids[i]!)
      }
      yield* Hooks.runTurn(env.hooks, "afterTurn", { turn, message: assistant, toolResults: results })
      const aborted = yield* Deferred.isDone(abort.deferred)
      if (calls.length === 0 || aborted) {
        const stopReason = aborted ? "aborted" : assistant.stopReason
        return {
          stopReason,
          messages,
          entryIds,
          ...(assistant.errorMessage === undefined ? {} : { errorMessage: assistant.errorMessage })
        }
      }
    }
    return {
      stopReason: last?.stopReason ?? "stop",
      messages,
      entryIds,
      errorMessage: `stopped after ${env.maxTurns} turns`
    }
  })
