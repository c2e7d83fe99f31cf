/**
 * A `LanguageModel` for any OpenAI-compatible chat-completions endpoint (`POST /chat/completions`
 * with `stream: true`), built on `@effect/ai-openai`'s `OpenAiClient`: its `layer({apiUrl,
 * apiKey})` gives the base URL, bearer auth, SSE decoding and `AiError` mapping, and its
 * `streamRequest` decodes each server-sent event with this module's chunk schema.
 *
 * Why not `OpenAiLanguageModel` + `LanguageModel.streamText`: in @effect/ai-openai 0.41 that
 * model speaks the Responses API (`/responses`), not chat completions, and @effect/ai's
 * `Toolkit` fixes its tools (with handlers) at build time, while this runtime's tool set changes
 * per turn and executes tools itself. So the request is built here from the registry's JSON
 * schemas, and the stream is folded into `ModelEvent`s: content → text deltas,
 * `reasoning_content` / `reasoning` → thinking deltas, `tool_calls` fragments joined by index
 * and emitted whole at the end, `usage` (with `stream_options.include_usage`), `finish_reason`.
 *
 * @since 0.1.0
 */
import type { LlmMessages } from "@branchlog/session-core"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import type * as AiError from "@effect/ai/AiError"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ModelError } from "./AgentError.js"
import type { LanguageModelShape, ModelEvent, ModelRequest, ModelStopReason } from "./LanguageModel.js"
import { LanguageModel } from "./LanguageModel.js"
import * as Retry from "./Retry.js"

/** Options of the provider. */
export interface Options {
  /** The base URL, e.g. `http://127.0.0.1:8080/v1` (the path `/chat/completions` is appended). */
  readonly apiUrl: string
  readonly apiKey?: string
  /** The `api` value of assistant messages (default `"openai-completions"`). */
  readonly api?: string
  /** Send `reasoning_effort` for thinking levels other than `"off"` (default true). */
  readonly reasoningEffort?: boolean
  readonly maxTokens?: number
  /**
   * The longest wait for the response or its next chunk, in milliseconds (default 300 s); passing
   * it fails the call with a transient `ModelError` (retried).
   */
  readonly idleTimeoutMs?: number
}

const NullableString = Schema.optional(Schema.NullOr(Schema.String))

/** One streamed chat-completions chunk (only the fields used; others are ignored). */
export const Chunk = Schema.Struct({
  choices: Schema.optional(Schema.Array(Schema.Struct({
    delta: Schema.optional(Schema.NullOr(Schema.Struct({
      content: NullableString,
      reasoning_content: NullableString,
      reasoning: NullableString,
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
        index: Schema.optional(Schema.Number),
        id: NullableString,
        function: Schema.optional(Schema.Struct({ name: NullableString, arguments: NullableString }))
      }))))
    }))),
    finish_reason: NullableString
  }))),
  usage: Schema.optional(Schema.NullOr(Schema.Struct({
    prompt_tokens: Schema.optional(Schema.Number),
    completion_tokens: Schema.optional(Schema.Number),
    prompt_tokens_details: Schema.optional(
      Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.Number) }))
    )
  }))),
  error: Schema.optional(Schema.Struct({ message: Schema.String }))
})
/** A decoded chunk. */
export type Chunk = typeof Chunk.Type

const textOfBlocks = (blocks: ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  blocks.map((b) => b.type === "text" ? b.text ?? "" : "").join("")

/** The chat-completions messages for a request (thinking blocks are not sent back; empty replies are left out). */
export const toChatMessages = (request: ModelRequest): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  if (request.system.length > 0) out.push({ role: "system", content: request.system })
  for (const m of request.messages as ReadonlyArray<LlmMessages.LlmMessage>) {
    if (m.role === "user") {
      out.push({
        role: "user",
        content: typeof m.content === "string" ? m.content : m.content.map((b) =>
          b.type === "text"
            ? { type: "text", text: b.text }
            : { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } }
        )
      })
    } else if (m.role === "assistant") {
      const calls = m.content.filter((b) => b.type === "toolCall")
      const text = textOfBlocks(m.content)
      if (calls.length === 0 && text.length === 0) continue // e.g. a reply that failed before any text
      out.push({
        role: "assistant",
        content: text.length > 0 ? text : null,
        ...(calls.length > 0
          ? {
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.arguments) }
            }))
          }
          : {})
      })
    } else {
      out.push({ role: "tool", tool_call_id: m.toolCallId, content: textOfBlocks(m.content) })
    }
  }
  return out
}

const effortOf = (level: string): string | undefined => level === "off" ? undefined : level === "xhigh" ? "high" : level

/** The request body. */
export const toBody = (request: ModelRequest, options: Options): Record<string, unknown> => {
  const effort = options.reasoningEffort === false ? undefined : effortOf(request.thinkingLevel)
  return {
    model: request.model.id,
    messages: toChatMessages(request),
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters }
        }))
      }
      : {}),
    ...(effort === undefined ? {} : { reasoning_effort: effort }),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens })
  }
}

const stopOf = (reason: string): ModelStopReason =>
  reason === "length" ? "length" : reason === "tool_calls" || reason === "function_call" ? "toolUse" : "stop"

interface PendingCall {
  id: string
  name: string
  args: string
}

/** Folds chunks into events; `flush` emits the joined tool calls and the stop reason. */
export const makeDecoder = (provider: string) => {
  const calls: Array<PendingCall> = []
  let stop: ModelStopReason | undefined
  const push = (chunk: Chunk): Effect.Effect<Array<ModelEvent>, ModelError> => {
    if (chunk.error !== undefined) return Effect.fail(new ModelError({ provider, reason: chunk.error.message }))
    const events: Array<ModelEvent> = []
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta
      const thinking = d?.reasoning_content ?? d?.reasoning
      if (thinking) events.push({ _tag: "ThinkingDelta", thinking })
      if (d?.content) events.push({ _tag: "TextDelta", text: d.content })
      for (const tc of d?.tool_calls ?? []) {
        const index = tc.index ?? calls.length
        const call = calls[index] ?? (calls[index] = { id: "", name: "", args: "" })
        if (tc.id) call.id = tc.id
        if (tc.function?.name) call.name += tc.function.name
        if (tc.function?.arguments) call.args += tc.function.arguments
      }
      if (choice.finish_reason) stop = stopOf(choice.finish_reason)
    }
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0
      events.push({
        _tag: "Usage",
        usage: {
          input: (chunk.usage.prompt_tokens ?? 0) - cached,
          output: chunk.usage.completion_tokens ?? 0,
          cacheRead: cached
        }
      })
    }
    return Effect.succeed(events)
  }
  const flush = (): Effect.Effect<Array<ModelEvent>, ModelError> =>
    Effect.suspend(() => {
      const events: Array<ModelEvent> = []
      for (const [i, call] of calls.entries()) {
        if (call === undefined) continue
        let parsed: unknown
        try {
          parsed = call.args.trim() === "" ? {} : JSON.parse(call.args)
        } catch {
          return Effect.fail(
            new ModelError({ provider, reason: `tool call ${call.name} has malformed JSON arguments` })
          )
        }
        const args = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? parsed as Record<string, unknown>
          : { value: parsed }
        events.push({ _tag: "ToolCall", id: call.id || `call_${i}`, name: call.name, arguments: args })
      }
      if (stop === undefined) {
        return Effect.fail(
          new ModelError({ provider, reason: "stream ended without a finish reason", transient: true })
        )
      }
      events.push({ _tag: "Stop", reason: events.length > 0 && stop === "stop" ? "toolUse" : stop })
      return Effect.succeed(events)
    })
  return { push, flush }
}

/**
 * A provider failure as a `ModelError`: a status with its `Retry-After`; a transport failure
 * (connection refused or reset, a timeout) or a body cut while it was read is `transient`.
 */
const toModelError = (provider: string) => (error: AiError.AiError): ModelError => {
  if (error._tag === "HttpResponseError") {
    const retryAfterMs = Retry.parseRetryAfter(error.response.headers["retry-after"], Date.now())
    return new ModelError({
      provider,
      reason: error.description ?? error.reason,
      status: error.response.status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(error.reason === "Decode" ? { transient: true } : {})
    })
  }
  if (error._tag === "HttpRequestError") {
    return new ModelError({ provider, reason: error.message, transient: error.reason === "Transport" })
  }
  return new ModelError({ provider, reason: error.message })
}

const aborted = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** The provider over an `OpenAiClient` in context. */
export const make = (options: Options): Effect.Effect<LanguageModelShape, never, OpenAiClient.OpenAiClient> =>
  Effect.map(OpenAiClient.OpenAiClient, (client) => ({
    api: options.api ?? "openai-completions",
    stream: (request) =>
      Stream.suspend(() => {
        const provider = request.model.provider
        const decoder = makeDecoder(provider)
        const http = HttpClientRequest.post("/chat/completions").pipe(
          HttpClientRequest.bodyUnsafeJson(toBody(request, options))
        )
        const idle = options.idleTimeoutMs ?? 300_000
        const events = client.streamRequest(http, Chunk).pipe(
          Stream.mapError(toModelError(provider)),
          Stream.timeoutFail(
            () => new ModelError({ provider, reason: `no response data for ${idle} ms`, transient: true }),
            Duration.millis(idle)
          ),
          Stream.mapConcatEffect(decoder.push),
          Stream.concat(Stream.fromIterableEffect(decoder.flush()))
        )
        return request.signal === undefined ? events : events.pipe(Stream.interruptWhen(aborted(request.signal)))
      })
  }))

/** The provider as a layer (needs an `HttpClient`, e.g. `NodeHttpClient.layerUndici` or `FetchHttpClient.layer`). */
export const layer = (options: Options): Layer.Layer<LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel, make(options)).pipe(
    Layer.provide(OpenAiClient.layer({
      apiUrl: options.apiUrl,
      ...(options.apiKey === undefined ? {} : { apiKey: Redacted.make(options.apiKey) })
    }))
  )
