/**
 * Hooks around tool execution and around each turn of the agent loop. `beforeToolCall` may
 * block a call or rewrite its arguments; `afterToolCall` may rewrite the result. A hook that
 * fails (or dies) never crashes the loop: around a tool it becomes that tool's error result,
 * around a turn it is logged and ignored. Several hook sets run in order ({@link combine}).
 *
 * @since 0.1.0
 */
import type { AgentMessage, LlmMessages } from "@branchlog/session-core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { ToolError } from "./AgentError.js"
import type * as Tool from "./Tool.js"

/** A tool call as hooks see it. */
export interface ToolCallInfo {
  readonly toolCallId: string
  readonly toolName: string
  readonly arguments: Record<string, unknown>
}

/** What `beforeToolCall` decides. */
export type BeforeToolCallDecision =
  | { readonly _tag: "continue"; readonly arguments?: Record<string, unknown> }
  | { readonly _tag: "block"; readonly reason: string }

/** What a turn hook sees. */
export interface TurnInfo {
  /** 0 for the first model call of a `prompt`, then 1, 2, ... */
  readonly turn: number
  readonly messages: ReadonlyArray<LlmMessages.LlmMessage>
}

/** What `afterTurn` sees. */
export interface TurnEndInfo {
  readonly turn: number
  readonly message: AgentMessage.AssistantMessage
  readonly toolResults: ReadonlyArray<AgentMessage.ToolResultMessage>
}

/** A set of hooks (every one optional). */
export interface Hooks {
  readonly beforeToolCall?: (call: ToolCallInfo) => Effect.Effect<BeforeToolCallDecision | void, unknown>
  readonly afterToolCall?: (
    call: ToolCallInfo,
    result: Tool.ToolOutput
  ) => Effect.Effect<Tool.ToolOutput | void, unknown>
  readonly beforeTurn?: (info: TurnInfo) => Effect.Effect<void, unknown>
  readonly afterTurn?: (info: TurnEndInfo) => Effect.Effect<void, unknown>
}

/** No hooks. */
export const none: Hooks = {}

/** `continue`, optionally with rewritten arguments. */
export const proceed = (args?: Record<string, unknown>): BeforeToolCallDecision =>
  args === undefined ? { _tag: "continue" } : { _tag: "continue", arguments: args }

/** `block` with a reason the model will see. */
export const block = (reason: string): BeforeToolCallDecision => ({ _tag: "block", reason })

const describe = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.squash(cause)
  return failure instanceof Error ? failure.message : String(failure)
}

/** Runs `effect`; any failure or defect becomes a `ToolError` naming the hook. */
const guard = <A>(toolName: string, hook: string, effect: Effect.Effect<A, unknown>): Effect.Effect<A, ToolError> =>
  Effect.catchAllCause(
    Effect.suspend(() => effect),
    (cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.fail(new ToolError({ toolName, reason: `${hook} hook failed: ${describe(cause)}` }))
  )

/** Runs the `beforeToolCall` hooks in order; the first block wins, rewrites chain. */
export const runBefore = (
  hooks: ReadonlyArray<Hooks>,
  call: ToolCallInfo
): Effect.Effect<BeforeToolCallDecision, ToolError> =>
  Effect.gen(function*() {
    let args = call.arguments
    for (const h of hooks) {
      if (h.beforeToolCall === undefined) continue
      const decision = yield* guard(call.toolName, "beforeToolCall", h.beforeToolCall({ ...call, arguments: args }))
      if (decision === undefined) continue
      if (decision._tag === "block") return decision
      if (decision.arguments !== undefined) args = decision.arguments
    }
    return proceed(args)
  })

/** Runs the `afterToolCall` hooks in order, each seeing the previous one's result. */
export const runAfter = (
  hooks: ReadonlyArray<Hooks>,
  call: ToolCallInfo,
  result: Tool.ToolOutput
): Effect.Effect<Tool.ToolOutput, ToolError> =>
  Effect.gen(function*() {
    let current = result
    for (const h of hooks) {
      if (h.afterToolCall === undefined) continue
      const next = yield* guard(call.toolName, "afterToolCall", h.afterToolCall(call, current))
      if (next !== undefined) current = next
    }
    return current
  })

/** Runs a turn hook of every set; failures are logged and ignored. */
export const runTurn = <K extends "beforeTurn" | "afterTurn">(
  hooks: ReadonlyArray<Hooks>,
  name: K,
  info: Parameters<NonNullable<Hooks[K]>>[0]
): Effect.Effect<void> =>
  Effect.forEach(hooks, (h) => {
    const hook = h[name] as ((info: unknown) => Effect.Effect<void, unknown>) | undefined
    return hook === undefined ? Effect.void : guard("agent", name, hook(info)).pipe(
      Effect.catchAll((error) => Effect.logWarning(error.reason))
    )
  }, { discard: true })

/** Several hook sets as one list (in order). */
export const combine = (...sets: ReadonlyArray<Hooks>): ReadonlyArray<Hooks> => sets
