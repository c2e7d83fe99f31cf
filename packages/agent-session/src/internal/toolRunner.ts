/**
 * Runs the tool calls of one assistant message: hooks before and after each call, argument
 * decoding, execution; every failure (unknown or inactive tool, blocked call, bad arguments, a
 * failing tool or hook, a defect) becomes an error tool result. Consecutive calls of tools that
 * may run in parallel run concurrently; a tool marked `parallel: false` runs alone. Results come
 * back in call order.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { ToolError } from "../AgentError.js"
import * as Hooks from "../Hooks.js"
import * as Tool from "../Tool.js"

/** Where a call's result comes from. */
export interface RunnerContext {
  /** The active tools by name. */
  readonly tools: ReadonlyMap<string, Tool.AnyTool>
  readonly hooks: ReadonlyArray<Hooks.Hooks>
}

const resultOf = (
  call: AgentMessage.ToolCall,
  output: Tool.ToolOutput,
  timestamp: number
): AgentMessage.ToolResultMessage => ({
  role: "toolResult",
  toolCallId: call.id,
  toolName: call.name,
  content: output.content,
  ...(output.details === undefined ? {} : { details: output.details }),
  isError: output.isError ?? false,
  timestamp
})

const defectReason = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** Runs one call through the hooks and the tool; never fails (interruption aside). */
export const runOne = (
  context: RunnerContext,
  call: AgentMessage.ToolCall
): Effect.Effect<AgentMessage.ToolResultMessage> =>
  Effect.gen(function*() {
    const info: Hooks.ToolCallInfo = { toolCallId: call.id, toolName: call.name, arguments: call.arguments }
    const tool = context.tools.get(call.name)
    const output = yield* Effect.gen(function*() {
      if (tool === undefined) {
        return yield* new ToolError({ toolName: call.name, reason: "tool not found or not active" })
      }
      const decision = yield* Hooks.runBefore(context.hooks, info)
      if (decision._tag === "block") {
        return yield* new ToolError({ toolName: call.name, reason: `blocked: ${decision.reason}` })
      }
      const args = yield* Tool.decodeArguments(tool, decision.arguments ?? call.arguments)
      const raw = yield* Effect.catchAllCause(
        Effect.suspend(() => tool.execute(args, { toolCallId: call.id })),
        (cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause as Cause.Cause<never>)
            : Effect.fail(
              Cause.failureOption(cause)._tag === "Some"
                ? Cause.squash(cause) as ToolError
                : new ToolError({ toolName: call.name, reason: `tool crashed: ${defectReason(cause)}` })
            )
      )
      return yield* Hooks.runAfter(context.hooks, { ...info, arguments: decision.arguments ?? call.arguments }, raw)
    }).pipe(Effect.catchAll((error: ToolError) => Effect.succeed(Tool.errorOutput(error.message))))
    return resultOf(call, output, yield* Clock.currentTimeMillis)
  })

/** Groups the calls: runs of parallel-safe calls, and single exclusive calls. */
export const groups = (
  tools: ReadonlyMap<string, Tool.AnyTool>,
  calls: ReadonlyArray<AgentMessage.ToolCall>
): Array<Array<AgentMessage.ToolCall>> => {
  const out: Array<Array<AgentMessage.ToolCall>> = []
  let run: Array<AgentMessage.ToolCall> = []
  for (const call of calls) {
    if (tools.get(call.name)?.parallel === false) {
      if (run.length > 0) out.push(run)
      out.push([call])
      run = []
    } else run.push(call)
  }
  if (run.length > 0) out.push(run)
  return out
}

/** Runs every call; results in call order. */
export const runAll = (
  context: RunnerContext,
  calls: ReadonlyArray<AgentMessage.ToolCall>,
  onDone: (call: AgentMessage.ToolCall, result: AgentMessage.ToolResultMessage) => Effect.Effect<void> = () =>
    Effect.void
): Effect.Effect<Array<AgentMessage.ToolResultMessage>> =>
  Effect.map(
    Effect.forEach(
      groups(context.tools, calls),
      (group) =>
        Effect.forEach(group, (call) => Effect.tap(runOne(context, call), (result) => onDone(call, result)), {
          concurrency: "unbounded"
        })
    ),
    (results) => results.flat()
  )

/** The result recorded for a call that an abort stopped. */
export const abortedResult = (call: AgentMessage.ToolCall, timestamp: number): AgentMessage.ToolResultMessage =>
  resultOf(call, Tool.errorOutput("Tool execution aborted"), timestamp)

/** The result recorded for a call of a reply that ended with `stopReason` other than `toolUse`. */
export const notRunResult = (
  call: AgentMessage.ToolCall,
  stopReason: AgentMessage.StopReason,
  timestamp: number
): AgentMessage.ToolResultMessage =>
  resultOf(
    call,
    Tool.errorOutput(
      stopReason === "aborted"
        ? "Tool execution aborted"
        : stopReason === "length"
        ? "Tool call not executed: the reply was cut at the length limit"
        : "Tool call not executed: the reply failed"
    ),
    timestamp
  )
