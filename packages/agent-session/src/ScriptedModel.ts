/**
 * A deterministic `LanguageModel` with no network: each agent turn plays the next step of a
 * script (or what a rule returns for the request). A step gives thinking, text, tool calls, a
 * stop reason, or a failure after its text (with an HTTP status, `Retry-After` or `transient`
 * to be retried); `pause` runs an effect after the first delta (to
 * abort, or to let another writer act, while the reply streams); `hang` never finishes. Text is
 * streamed in chunks of `chunkSize` characters. Usage is the chars/4 estimate of the request and
 * the reply. Summary requests (compaction, branch summaries) are answered by `summary`.
 *
 * Without a script, the default rule answers a user message with `You said: <text>` and a tool
 * result with `Done.`.
 *
 * @since 0.1.0
 */
import type { LlmMessages } from "@branchlog/session-core"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { ModelError } from "./AgentError.js"
import * as Compaction from "./Compaction.js"
import type { ModelEvent, ModelRequest, ModelStopReason } from "./LanguageModel.js"
import { LanguageModel, type LanguageModelShape } from "./LanguageModel.js"

/** One scripted reply. */
export interface Step {
  readonly thinking?: string
  readonly text?: string
  readonly toolCalls?: ReadonlyArray<
    { readonly name: string; readonly arguments: Record<string, unknown>; readonly id?: string }
  >
  readonly stopReason?: ModelStopReason
  /** Fails the stream with this reason after the deltas and tool calls (no usage, no stop). */
  readonly error?: string
  /** The HTTP status of the failure (429 and 5xx are retried). */
  readonly status?: number
  /** The failure's `Retry-After`, in milliseconds. */
  readonly retryAfterMs?: number
  /** Marks the failure transient (as a reset connection is). */
  readonly transient?: boolean
  /** Runs after the first delta. */
  readonly pause?: Effect.Effect<void>
  /** Never ends after the first delta (until interrupted). */
  readonly hang?: boolean
}

/** A script: steps played in order (the last step repeats when they run out), or a rule. */
export type Script = ReadonlyArray<Step> | ((request: ModelRequest, turn: number) => Step)

/** Options of a scripted model. */
export interface Options {
  readonly script?: Script
  /** The summary text for a summary request (default: a digest of the conversation's first lines). */
  readonly summary?: (request: ModelRequest) => string
  readonly chunkSize?: number
  readonly api?: string
}

const lastText = (messages: ReadonlyArray<LlmMessages.LlmMessage>): string => {
  const last = messages[messages.length - 1]
  if (last === undefined || last.role !== "user") return ""
  return typeof last.content === "string"
    ? last.content
    : last.content.map((b) => b.type === "text" ? b.text : "").join("")
}

/** The default rule: echo a user message; answer `Done.` after tool results. */
export const echoRule = (request: ModelRequest): Step => {
  const last = request.messages[request.messages.length - 1]
  return last?.role === "toolResult" ? { text: "Done." } : { text: `You said: ${lastText(request.messages)}` }
}

/** The default summary: how many messages and the first 60 characters of each user line. */
export const defaultSummary = (request: ModelRequest): string => {
  const text = lastText(request.messages)
  const users = text.split("\n").filter((l) => l.startsWith("[User]: ")).map((l) => l.slice(8, 68))
  return `Summary (${request.purpose}): ${users.join(" | ")}`
}

const chunks = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** The events of one step, in order (without pause, hang or error). */
export const eventsOf = (step: Step, request: ModelRequest, turn: number, chunkSize = 16): Array<ModelEvent> => {
  const events: Array<ModelEvent> = []
  if (step.thinking) {
    for (const c of chunks(step.thinking, chunkSize)) events.push({ _tag: "ThinkingDelta", thinking: c })
  }
  if (step.text) { for (const c of chunks(step.text, chunkSize)) events.push({ _tag: "TextDelta", text: c }) }
  const calls = step.toolCalls ?? []
  calls.forEach((call, i) =>
    events.push({ _tag: "ToolCall", id: call.id ?? `call_${turn}_${i}`, name: call.name, arguments: call.arguments })
  )
  const input = request.messages.reduce(
    (n, m) => n + Compaction.estimateTokens(m),
    Math.ceil(request.system.length / 4)
  )
  const output = Math.ceil(((step.text?.length ?? 0) + (step.thinking?.length ?? 0)) / 4) +
    calls.reduce((n, c) => n + Math.ceil((c.name.length + JSON.stringify(c.arguments).length) / 4), 0)
  events.push({ _tag: "Usage", usage: { input, output, cacheRead: 0, cacheWrite: 0 } })
  events.push({ _tag: "Stop", reason: step.stopReason ?? (calls.length > 0 ? "toolUse" : "stop") })
  return events
}

/** A scripted model. */
export const make = (options: Options = {}): LanguageModelShape => {
  let turn = 0
  const chunkSize = options.chunkSize ?? 16
  const pick = (request: ModelRequest, n: number): Step => {
    const script = options.script
    if (script === undefined) return echoRule(request)
    if (typeof script === "function") return script(request, n)
    return script[Math.min(n, script.length - 1)] ?? echoRule(request)
  }
  return {
    api: options.api ?? "scripted",
    stream: (request) =>
      Stream.suspend(() => {
        if (request.purpose !== "turn") {
          const text = (options.summary ?? defaultSummary)(request)
          return Stream.fromIterable<ModelEvent>([
            ...chunks(text, chunkSize).map((t) => ({ _tag: "TextDelta", text: t }) as const),
            {
              _tag: "Stop",
              reason: "stop"
            }
          ])
        }
        const n = turn++
        const step = pick(request, n)
        const events = eventsOf(step, request, n, chunkSize)
        const body = step.error === undefined
          ? events
          : events.filter((e) => e._tag !== "Usage" && e._tag !== "Stop")
        const [first, ...rest] = body
        const head = first === undefined ? Stream.empty : Stream.make(first)
        const middle = step.pause === undefined ? Stream.empty : Stream.fromEffect(step.pause).pipe(Stream.drain)
        const tail = step.hang === true ? Stream.never : Stream.fromIterable(rest)
        const failure = step.error === undefined
          ? Stream.empty
          : Stream.fail(
            new ModelError({
              provider: request.model.provider,
              reason: step.error,
              ...(step.status === undefined ? {} : { status: step.status }),
              ...(step.retryAfterMs === undefined ? {} : { retryAfterMs: step.retryAfterMs }),
              ...(step.transient === undefined ? {} : { transient: step.transient })
            })
          )
        return head.pipe(Stream.concat(middle), Stream.concat(tail), Stream.concat(failure))
      })
  }
}

/** A layer of a scripted model. */
export const layer = (options: Options = {}): Layer.Layer<LanguageModel> =>
  Layer.sync(LanguageModel, () => make(options))
