/**
 * The language model as a service. `stream(request)` gives the reply as a stream of
 * {@link ModelEvent}s: text and thinking deltas, complete tool calls, usage, and one final stop
 * reason. {@link applyEvent} folds the events into a pi-style `AssistantMessage`, so a partial
 * reply (aborted, or cut by an error) is a valid message too.
 *
 * Implementations: `ScriptedModel` (deterministic, no network) and `OpenAiCompatible`
 * (chat completions over HTTP with server-sent events).
 *
 * @since 0.1.0
 */
import type { AgentMessage, LlmMessages } from "@branchlog/session-core"
import * as Context from "effect/Context"
import type * as Stream from "effect/Stream"
import type { ModelError } from "./AgentError.js"
import type { ModelCost } from "./ModelRegistry.js"
import type { ToolSpec } from "./Tool.js"

/** Token counts reported by a provider (any subset). */
export interface UsageReport {
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
}

/** Why the model stopped (the loop adds `"error"` and `"aborted"`). */
export type ModelStopReason = "stop" | "length" | "toolUse"

/** One event of a streamed reply. */
export type ModelEvent =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ThinkingDelta"; readonly thinking: string }
  | {
    readonly _tag: "ToolCall"
    readonly id: string
    readonly name: string
    readonly arguments: Record<string, unknown>
  }
  | { readonly _tag: "Usage"; readonly usage: UsageReport }
  | { readonly _tag: "Stop"; readonly reason: ModelStopReason }

/** What a request is for: an agent turn, a compaction summary, or a branch summary. */
export type Purpose = "turn" | "compaction" | "branchSummary"

/** One request to the model. */
export interface ModelRequest {
  readonly purpose: Purpose
  readonly model: { readonly provider: string; readonly id: string }
  readonly system: string
  readonly messages: ReadonlyArray<LlmMessages.LlmMessage>
  readonly tools: ReadonlyArray<ToolSpec>
  readonly thinkingLevel: string
  /** Aborted when the turn is aborted (interruption of the stream also stops it). */
  readonly signal?: AbortSignal
}

/** The service shape. */
export interface LanguageModelShape {
  /** The `api` value written into assistant messages. */
  readonly api: string
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ModelError>
}

/** The LanguageModel service. */
export class LanguageModel
  extends Context.Tag("@branchlog/agent-session/LanguageModel")<LanguageModel, LanguageModelShape>()
{}

/** A zero usage. */
export const emptyUsage = (): AgentMessage.Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
})

/** The cost of `usage` at `price` (dollars per million tokens). */
export const withCost = (usage: AgentMessage.Usage, price: ModelCost | undefined): AgentMessage.Usage => {
  if (price === undefined) return usage
  const input = (usage.input * price.input) / 1e6
  const output = (usage.output * price.output) / 1e6
  const cacheRead = (usage.cacheRead * price.cacheRead) / 1e6
  const cacheWrite = (usage.cacheWrite * price.cacheWrite) / 1e6
  return { ...usage, cost: { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite } }
}

/** An empty assistant message for the model, provider and api given. */
export const emptyAssistant = (meta: {
  readonly api: string
  readonly provider: string
  readonly model: string
  readonly timestamp: number
}): AgentMessage.AssistantMessage => ({
  role: "assistant",
  content: [],
  api: meta.api,
  provider: meta.provider,
  model: meta.model,
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: meta.timestamp
})

type Block = AgentMessage.AssistantMessage["content"][number]

/** Folds one event into the message: deltas extend the last block of their kind or start one. */
export const applyEvent = (
  message: AgentMessage.AssistantMessage,
  event: ModelEvent
): AgentMessage.AssistantMessage => {
  const content: Array<Block> = [...message.content]
  const last = content[content.length - 1]
  switch (event._tag) {
    case "TextDelta":
      if (last?.type === "text") content[content.length - 1] = { type: "text", text: last.text + event.text }
      else content.push({ type: "text", text: event.text })
      return { ...message, content }
    case "ThinkingDelta":
      if (last?.type === "thinking") {
        content[content.length - 1] = { type: "thinking", thinking: last.thinking + event.thinking }
      } else content.push({ type: "thinking", thinking: event.thinking })
      return { ...message, content }
    case "ToolCall":
      content.push({ type: "toolCall", id: event.id, name: event.name, arguments: event.arguments })
      return { ...message, content, stopReason: "toolUse" }
    case "Usage": {
      const u = { ...message.usage, ...stripUndefined(event.usage) }
      return { ...message, usage: { ...u, totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite } }
    }
    case "Stop": {
      const hasCalls = content.some((b) => b.type === "toolCall")
      return { ...message, stopReason: hasCalls && event.reason === "stop" ? "toolUse" : event.reason }
    }
  }
}

const stripUndefined = (usage: UsageReport): Partial<AgentMessage.Usage> => {
  const out: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {}
  if (usage.input !== undefined) out.input = usage.input
  if (usage.output !== undefined) out.output = usage.output
  if (usage.cacheRead !== undefined) out.cacheRead = usage.cacheRead
  if (usage.cacheWrite !== undefined) out.cacheWrite = usage.cacheWrite
  return out
}

/** The tool calls of an assistant message, in order. */
export const toolCallsOf = (message: AgentMessage.AssistantMessage): ReadonlyArray<AgentMessage.ToolCall> =>
  message.content.filter((b): b is AgentMessage.ToolCall => b.type === "toolCall")

/** The text of an assistant message (text blocks joined). */
export const textOf = (message: AgentMessage.AssistantMessage): string =>
  message.content.map((b) => b.type === "text" ? b.text : "").join("")
