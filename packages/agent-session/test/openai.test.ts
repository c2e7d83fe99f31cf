/**
 * The OpenAI-compatible provider against a real HTTP server on 127.0.0.1 (node:http) that
 * streams server-sent events. Requests are bounded (body size and count).
 */
import { type AgentMessage, LlmMessages } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import { NodeHttpClient } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as AgentSession from "../src/AgentSession.js"
import * as BuiltinTools from "../src/BuiltinTools.js"
import { LanguageModel, type ModelEvent, type ModelRequest } from "../src/LanguageModel.js"
import * as LM from "../src/LanguageModel.js"
import * as ModelRegistry from "../src/ModelRegistry.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import * as Retry from "../src/Retry.js"
import * as ToolRegistry from "../src/ToolRegistry.js"
import * as Workspace from "../src/Workspace.js"

interface Seen {
  readonly url: string
  readonly auth: string | undefined
  readonly body: any
}

type Reply = (res: http.ServerResponse) => void

const MAX_BODY = 1 << 20
const MAX_REQUESTS = 50
const seen: Array<Seen> = []
const replies: Array<Reply> = []
let closed = 0
let server: http.Server
let apiUrl = ""

const sse = (chunks: ReadonlyArray<unknown>, done = true): Reply => (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`)
  if (done) res.write("data: [DONE]\n\n")
  res.end()
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let size = 0
    const parts: Array<Buffer> = []
    req.on("data", (d: Buffer) => {
      size += d.length
      if (size > MAX_BODY) req.destroy()
      else parts.push(d)
    })
    req.on("end", () => {
      if (seen.length >= MAX_REQUESTS) {
        res.writeHead(429).end()
        return
      }
      seen.push({
        url: req.url ?? "",
        auth: req.headers.authorization,
        body: JSON.parse(Buffer.concat(parts).toString("utf8"))
      })
      res.on("close", () => closed++)
      const reply = replies.shift()
      if (reply === undefined) {
        res.writeHead(500, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { message: "no reply queued" } })
        )
      } else reply(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  purpose: "turn",
  model: { provider: "local", id: "test-model" },
  system: "Be brief.",
  messages: [
    { role: "user", content: "list files", timestamp: 1 },
    {
      role: "assistant",
      content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "Looking." }, {
        type: "toolCall",
        id: "t1",
        name: "bash",
        arguments: { command: "ls" }
      }],
      api: "openai-completions",
      provider: "local",
      model: "test-model",
      usage: LM.emptyUsage(),
      stopReason: "toolUse",
      timestamp: 2
    },
    {
      role: "toolResult",
      toolCallId: "t1",
      toolName: "bash",
      content: [{ type: "text", text: "a.txt" }],
      isError: false,
      timestamp: 3
    }
  ],
  tools: [{
    name: "bash",
    description: "Run a command.",
    parameters: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["command"],
      properties: { command: { type: "string" } },
      additionalProperties: false
    } as any
  }],
  thinkingLevel: "medium",
  ...overrides
})

const run = <A, E>(effect: Effect.Effect<A, E, LanguageModel>) =>
  effect.pipe(
    Effect.provide(OpenAiCompatible.layer({ apiUrl, apiKey: "sk-test" })),
    Effect.provide(NodeHttpClient.layerUndici)
  )

const collect = (req: ModelRequest) =>
  Effect.flatMap(LanguageModel, (lm) => Stream.runCollect(lm.stream(req))).pipe(Effect.map(Chunk.toArray))

const assemble = (events: ReadonlyArray<ModelEvent>) =>
  events.reduce(
    LM.applyEvent,
    LM.emptyAssistant({ api: "openai-completions", provider: "local", model: "test-model", timestamp: 0 })
  )

describe("OpenAiCompatible over a loopback server", () => {
  it.live("streams text and reasoning deltas and usage; sends messages, tools and options", () =>
    run(Effect.gen(function*() {
      replies.push(sse([
        { choices: [{ delta: { role: "assistant", reasoning_content: "Think" } }] },
        { choices: [{ delta: { reasoning_content: "ing." } }] },
        { choices: [{ delta: { content: "Hel" } }] },
        { choices: [{ delta: { content: "lo!" }, finish_reason: "stop" }] },
        {
          choices: [],
          usage: { prompt_tokens: 30, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 10 } }
        }
      ]))
      const events = yield* collect(request())
      expect(events).toEqual([
        { _tag: "ThinkingDelta", thinking: "Think" },
        { _tag: "ThinkingDelta", thinking: "ing." },
        { _tag: "TextDelta", text: "Hel" },
        { _tag: "TextDelta", text: "lo!" },
        { _tag: "Usage", usage: { input: 20, output: 7, cacheRead: 10 } },
        { _tag: "Stop", reason: "stop" }
      ])
      const message = assemble(events)
      expect(message.content).toEqual([{ type: "thinking", thinking: "Thinking." }, { type: "text", text: "Hello!" }])
      expect(message.usage).toMatchObject({ input: 20, output: 7, cacheRead: 10, cacheWrite: 0, totalTokens: 37 })
      expect(message.stopReason).toBe("stop")
      const last = seen[seen.length - 1]!
      expect(last.url).toBe("/v1/chat/completions")
      expect(last.auth).toBe("Bearer sk-test")
      expect(last.body).toEqual({
        model: "test-model",
        stream: true,
        stream_options: { include_usage: true },
        reasoning_effort: "medium",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "list files" },
          {
            role: "assistant",
            content: "Looking.",
            tool_calls: [{ id: "t1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }]
          },
          { role: "tool", tool_call_id: "t1", content: "a.txt" }
        ],
        tools: [{
          type: "function",
          function: { name: "bash", description: "Run a command.", parameters: request().tools[0]!.parameters }
        }]
      })
    })))

  it.live("joins tool-call fragments by index and ends with toolUse", () =>
    run(Effect.gen(function*() {
      replies.push(sse([
        {
          choices: [{
            delta: {
              tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "read", arguments: "{\"pa" } }]
            }
          }]
        },
        {
          choices: [{
            delta: {
              tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "bash", arguments: "" } }]
            }
          }]
        },
        { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "th\":\"a.txt\"}" } }] } }] },
        {
          choices: [{
            delta: { tool_calls: [{ index: 1, function: { arguments: "{\"command\":\"ls\"}" } }] },
            finish_reason: "tool_calls"
          }]
        }
      ]))
      const events = yield* collect(request({ thinkingLevel: "off", tools: [] }))
      expect(events).toEqual([
        { _tag: "ToolCall", id: "call_a", name: "read", arguments: { path: "a.txt" } },
        { _tag: "ToolCall", id: "call_b", name: "bash", arguments: { command: "ls" } },
        { _tag: "Stop", reason: "toolUse" }
      ])
      expect(assemble(events).stopReason).toBe("toolUse")
      const body = seen[seen.length - 1]!.body
      expect(body.reasoning_effort).toBeUndefined()
      expect(body.tools).toBeUndefined()
    })))

  it("leaves empty replies (failed before any text) out of the request", () => {
    const failed = { ...request().messages[1]!, content: [], stopReason: "error" as const, errorMessage: "x" }
    const body = OpenAiCompatible.toChatMessages(
      request({ system: "", messages: [request().messages[0]!, failed as any] })
    )
    expect(body).toEqual([{ role: "user", content: "list files" }])
  })

  it("sends a stored string content of an assistant or tool result message (a file may hold one) as text", () => {
    const messages = LlmMessages.convertToLlm([
      { role: "user", content: "hi", timestamp: 1 },
      { role: "assistant", content: "plain reply", provider: "p", model: "m", timestamp: 2 },
      { role: "toolResult", toolCallId: "c1", toolName: "read", content: "file text", isError: false, timestamp: 3 }
    ] as unknown as Array<AgentMessage.ContextMessage>)
    expect(OpenAiCompatible.toChatMessages(request({ system: "", messages }))).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "plain reply" },
      { role: "tool", tool_call_id: "c1", content: "file text" }
    ])
  })

  it.live("maps an HTTP error status to a ModelError with the status", () =>
    run(Effect.gen(function*() {
      replies.push((res) =>
        res.writeHead(401, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { message: "bad key" } })
        )
      )
      const error = yield* Effect.flip(collect(request()))
      expect(error._tag).toBe("ModelError")
      expect(error.status).toBe(401)
      expect(error.provider).toBe("local")
    })))

  it.live("a 503 carries its Retry-After; a connection refused and a stream cut are transient; a 401 is not", () =>
    Effect.gen(function*() {
      replies.push((res) =>
        res.writeHead(503, { "content-type": "application/json", "retry-after": "2" }).end(
          JSON.stringify({ error: { message: "overloaded" } })
        )
      )
      const unavailable = yield* Effect.flip(run(collect(request())))
      expect(unavailable).toMatchObject({ status: 503, retryAfterMs: 2000 })
      expect(Retry.isTransient(unavailable)).toBe(true)
      replies.push((res) => res.writeHead(401, { "content-type": "application/json" }).end("{}"))
      expect(Retry.isTransient(yield* Effect.flip(run(collect(request()))))).toBe(false)
      replies.push(sse([{ choices: [{ delta: { content: "par" } }] }], false))
      expect(Retry.isTransient(yield* Effect.flip(run(collect(request()))))).toBe(true)
      // a port with nothing listening: connection refused
      const closedServer = http.createServer()
      yield* Effect.promise(() => new Promise<void>((resolve) => closedServer.listen(0, "127.0.0.1", resolve)))
      const port = (closedServer.address() as AddressInfo).port
      yield* Effect.promise(() => new Promise<void>((resolve) => closedServer.close(() => resolve())))
      const refused = yield* Effect.flip(
        collect(request()).pipe(
          Effect.provide(OpenAiCompatible.layer({ apiUrl: `http://127.0.0.1:${port}/v1` })),
          Effect.provide(NodeHttpClient.layerUndici)
        )
      )
      expect(refused).toMatchObject({ _tag: "ModelError", transient: true })
      expect(Retry.isTransient(refused)).toBe(true)
    }))

  it.live("a response that stops sending fails after the idle timeout, transient", () =>
    Effect.gen(function*() {
      let response: http.ServerResponse | undefined
      replies.push((res) => {
        response = res
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "and then" } }] })}\n\n`)
      })
      const error = yield* Effect.flip(
        collect(request()).pipe(
          Effect.provide(OpenAiCompatible.layer({ apiUrl, idleTimeoutMs: 300 })),
          Effect.provide(NodeHttpClient.layerUndici)
        )
      )
      expect(error).toMatchObject({ reason: "no response data for 300 ms", transient: true })
      response?.end()
    }), { timeout: 60_000 })

  it.live("reports an error event in the stream and a stream cut before a finish reason", () =>
    run(Effect.gen(function*() {
      replies.push(sse([{ choices: [{ delta: { content: "par" } }] }, { error: { message: "overloaded" } }]))
      expect((yield* Effect.flip(collect(request()))).reason).toBe("overloaded")
      replies.push(sse([{ choices: [{ delta: { content: "par" } }] }], false))
      expect((yield* Effect.flip(collect(request()))).reason).toBe("stream ended without a finish reason")
    })))

  it.live("an abort signal ends a hanging stream and closes the connection", () =>
    run(Effect.gen(function*() {
      const before = closed
      let response: http.ServerResponse | undefined
      replies.push((res) => {
        response = res
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "first" } }] })}\n\n`)
      })
      const controller = new AbortController()
      const lm = yield* LanguageModel
      const events: Array<ModelEvent> = []
      yield* lm.stream(request({ signal: controller.signal })).pipe(
        Stream.runForEach((e) =>
          Effect.sync(() => {
            events.push(e)
            controller.abort()
          })
        )
      )
      expect(events).toEqual([{ _tag: "TextDelta", text: "first" }])
      yield* Effect.promise(() =>
        new Promise<void>((resolve) => {
          const check = () => (closed > before ? resolve() : setTimeout(check, 10))
          check()
        })
      )
      expect(response!.writableEnded).toBe(false)
    })), { timeout: 60_000 })

  it.live("drives an AgentSession: a tool call round trip over the loopback server", () =>
    Effect.gen(function*() {
      replies.push(sse([
        { choices: [{ delta: { content: "Let me look." } }] },
        {
          choices: [{
            delta: {
              tool_calls: [{
                index: 0,
                id: "call_x",
                type: "function",
                function: { name: "read", arguments: "{\"path\":\"a.txt\"}" }
              }]
            },
            finish_reason: "tool_calls"
          }]
        },
        { choices: [], usage: { prompt_tokens: 50, completion_tokens: 10 } }
      ]))
      replies.push(sse([{ choices: [{ delta: { content: "It says alpha." }, finish_reason: "stop" }] }]))
      const sm = yield* SessionManager.inMemory("/work/project")
      const session = yield* AgentSession.make({
        sessionManager: sm,
        tools: ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.memory(new Map([["a.txt", "alpha"]]))) }),
        models: ModelRegistry.make({
          models: [{
            provider: "local",
            id: "test-model",
            api: "openai-completions",
            contextWindow: 100_000,
            reasoning: false,
            cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }
          }]
        })
      })
      const before = seen.length
      const result = yield* session.prompt("what is in a.txt?")
      expect(result.stopReason).toBe("stop")
      expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"])
      expect(result.messages[1]).toMatchObject({
        api: "openai-completions",
        provider: "local",
        model: "test-model",
        stopReason: "toolUse",
        content: [{ type: "text", text: "Let me look." }, {
          type: "toolCall",
          id: "call_x",
          name: "read",
          arguments: { path: "a.txt" }
        }],
        usage: {
          input: 50,
          output: 10,
          totalTokens: 60,
          cost: { input: 50 / 1e6, output: 20 / 1e6, total: expect.closeTo(70 / 1e6, 12) }
        }
      })
      expect(result.messages[2]).toMatchObject({ toolCallId: "call_x", content: [{ type: "text", text: "alpha" }] })
      const second = seen[before + 1]!.body
      expect(second.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool"])
      expect(second.messages[0].content).toBe(session.systemPrompt())
      expect(second.tools.map((t: any) => t.function.name)).toEqual(["read", "bash", "edit", "write"])
      expect(second.reasoning_effort).toBeUndefined()
    }).pipe(
      Effect.provide(OpenAiCompatible.layer({ apiUrl, apiKey: "sk-test" })),
      Effect.provide(NodeHttpClient.layerUndici),
      Effect.provide(SessionStore.layerMemory())
    ))

  it.live(
    "a connection reset half-way through the stream is retried from the start; the partial text is not written",
    () =>
      Effect.gen(function*() {
        replies.push((res) => {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "half a rep" } }] })}\n\n`, () => {
            setTimeout(() => res.socket?.destroy(), 50)
          })
        })
        replies.push(sse([{ choices: [{ delta: { content: "The whole reply." }, finish_reason: "stop" }] }]))
        const sm = yield* SessionManager.inMemory("/work/project")
        const retries: Array<AgentSession.AgentEvent> = []
        const session = yield* AgentSession.make({
          sessionManager: sm,
          tools: ToolRegistry.make({ builtinTools: [] }),
          models: ModelRegistry.make({
            models: [{
              provider: "local",
              id: "test-model",
              api: "openai-completions",
              contextWindow: 100_000,
              reasoning: false
            }]
          }),
          retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 1000, budgetMs: 5000 },
          onEvent: (e) => Effect.sync(() => e._tag === "Retry" && retries.push(e))
        })
        const result = yield* session.prompt("hello")
        expect(result.stopReason).toBe("stop")
        expect(retries).toHaveLength(1)
        const replies_ = sm.getEntries().flatMap((e) =>
          e.type === "message" && e.message.role === "assistant" ? [e.message] : []
        )
        expect(replies_).toEqual([expect.objectContaining({ content: [{ type: "text", text: "The whole reply." }] })])
      }).pipe(
        Effect.provide(OpenAiCompatible.layer({ apiUrl, apiKey: "sk-test" })),
        Effect.provide(NodeHttpClient.layerUndici),
        Effect.provide(SessionStore.layerMemory())
      ),
    { timeout: 60_000 }
  )
})
