/**
 * The agent loop with the scripted model over a real session file: the transcript is checked
 * line by line (types, roles, parent chain), including a turn with two tool calls, an aborted
 * turn and a model error; then model / thinking changes and their restoration on resume.
 */
import { SessionManager } from "@branchlog/session-store"
import { SessionEvents, StoreBridge } from "@branchlog/sessions-semantics"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as AgentSession from "../src/AgentSession.js"
import * as ModelRegistry from "../src/ModelRegistry.js"
import * as ScriptedModel from "../src/ScriptedModel.js"
import * as ToolRegistry from "../src/ToolRegistry.js"
import { cleanup, models, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

const script: ReadonlyArray<ScriptedModel.Step> = [
  { text: "Hi there!" },
  {
    thinking: "Two files.",
    toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "b.txt" } }]
  },
  { text: "Both read." },
  { text: "Once upon a time, there was a very long story.", hang: true },
  { text: "Partial", error: "rate limited" },
  { text: "Recovered." }
]

describe("AgentSession loop", () => {
  it.live("writes user, assistant and tool results with the right parents; aborts and errors are recorded", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/work/project", dir)
      const { events, nextDelta, session } = yield* scripted(sm, { script })

      const r1 = yield* session.prompt("hello")
      expect(r1.stopReason).toBe("stop")
      const r2 = yield* session.prompt("read two files")
      expect(r2.stopReason).toBe("stop")
      expect(r2.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"])

      const delta = yield* nextDelta()
      const fiber = yield* Effect.fork(session.prompt("tell a long story"))
      yield* delta
      expect(session.isRunning()).toBe(true)
      const busy = yield* Effect.flip(session.prompt("again"))
      expect(busy._tag).toBe("AgentBusyError")
      yield* session.abort()
      const r3 = yield* Fiber.join(fiber)
      expect(r3.stopReason).toBe("aborted")
      expect(session.isRunning()).toBe(false)

      const r4 = yield* session.prompt("fail please")
      expect(r4.stopReason).toBe("error")
      expect(r4.errorMessage).toBe("scripted: rate limited")

      const rows = rowsOf(sm.getSessionFile()!)
      const shape = rows.map((r) =>
        r.type === "message" ? `message:${r.message.role}:${r.message.stopReason ?? ""}` : r.type
      )
      expect(shape).toEqual([
        "session",
        "thinking_level_change",
        "message:user:",
        "message:assistant:stop",
        "message:user:",
        "message:assistant:toolUse",
        "message:toolResult:",
        "message:toolResult:",
        "message:assistant:stop",
        "message:user:",
        "message:assistant:aborted",
        "message:user:",
        "message:assistant:error"
      ])
      // One chain: every entry's parent is the line before it.
      for (let i = 2; i < rows.length; i++) expect(rows[i]!.parentId).toBe(rows[i - 1]!.id)
      expect(rows[1]!.parentId).toBeNull()
      expect(rows[1]!.thinkingLevel).toBe("off")
      expect(rows[2]!.message.content).toBe("hello")
      expect(rows[3]!.message).toMatchObject({
        content: [{ type: "text", text: "Hi there!" }],
        api: "scripted",
        provider: "scripted",
        model: "scripted-1",
        stopReason: "stop"
      })
      expect(rows[3]!.message.usage.totalTokens).toBe(rows[3]!.message.usage.input + rows[3]!.message.usage.output)
      expect(rows[5]!.message.content).toEqual([
        { type: "thinking", thinking: "Two files." },
        { type: "toolCall", id: "call_1_0", name: "read", arguments: { path: "a.txt" } },
        { type: "toolCall", id: "call_1_1", name: "read", arguments: { path: "b.txt" } }
      ])
      expect(rows[6]!.message).toMatchObject({
        toolCallId: "call_1_0",
        toolName: "read",
        isError: false,
        content: [{ type: "text", text: "alpha\n" }]
      })
      expect(rows[7]!.message).toMatchObject({
        toolCallId: "call_1_1",
        toolName: "read",
        isError: false,
        content: [{ type: "text", text: "beta\n" }]
      })
      expect(rows[10]!.message.content).toEqual([{ type: "text", text: "Once upon a time" }])
      expect(rows[12]!.message).toMatchObject({
        stopReason: "error",
        errorMessage: "scripted: rate limited",
        content: [{ type: "text", text: "Partial" }]
      })

      // The entry ids the prompts report are the lines' ids.
      expect([...r1.entryIds, ...r2.entryIds, ...r3.entryIds, ...r4.entryIds]).toEqual(rows.slice(2).map((r) => r.id))
      expect(events.filter((e) => e._tag === "AgentEnd").map((e) => (e as any).stopReason)).toEqual([
        "stop",
        "stop",
        "aborted",
        "error"
      ])

      // After an error the session goes on, and the model sees the failed reply in its context.
      const r5 = yield* session.prompt("try again")
      expect(r5.stopReason).toBe("stop")
      expect(session.messages().map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant"
      ])
    }).pipe(Effect.provide(storeLayer)))

  it.live("an abort during tool execution records error results for unfinished calls", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      let abort: () => Effect.Effect<void> = () => Effect.void
      const { session } = yield* scripted(sm, {
        script: [{
          toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, {
            name: "bash",
            arguments: { command: "echo hi" }
          }]
        }, { text: "never" }],
        hooks: [{
          beforeToolCall: (call) =>
            call.toolName === "bash" ? Effect.zipRight(Effect.suspend(() => abort()), Effect.never) : Effect.void
        }]
      })
      abort = session.abort
      const r = yield* session.prompt("go")
      expect(r.stopReason).toBe("aborted")
      expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"])
      expect(r.messages[2]).toMatchObject({
        toolName: "read",
        isError: false,
        content: [{ type: "text", text: "alpha\n" }]
      })
      expect(r.messages[3]).toMatchObject({
        toolName: "bash",
        isError: true,
        content: [{ type: "text", text: "Tool execution aborted" }]
      })
    }).pipe(Effect.provide(storeLayer)))

  it.live("setModel / setThinkingLevel append changes; resume restores them and writes no second thinking level", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/work/project", dir)
      const { session } = yield* scripted(sm)
      yield* session.setThinkingLevel("high")
      yield* session.prompt("one")
      yield* session.setModel("scripted", "tiny")
      expect(yield* session.setThinkingLevel("low")).toBe("off")
      const missing = yield* Effect.flip(session.setModel("nobody", "x"))
      expect(missing._tag).toBe("ModelNotFoundError")
      const file = sm.getSessionFile()!
      const types = rowsOf(file).map((r) => r.type === "message" ? r.message.role : r.type)
      expect(types).toEqual([
        "session",
        "thinking_level_change",
        "thinking_level_change",
        "user",
        "assistant",
        "model_change",
        "thinking_level_change"
      ])
      const change = rowsOf(file).find((r) => r.type === "model_change")!
      expect(change).toMatchObject({ provider: "scripted", modelId: "tiny" })

      const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const resumed = yield* scripted(reopened)
      expect(resumed.session.models.current().id).toBe("tiny")
      expect(resumed.session.models.thinkingLevel()).toBe("off")
      reopened.getBranch()
      expect(rowsOf(file)).toHaveLength(7)
      yield* resumed.session.setModel("scripted", "scripted-1")
      expect(resumed.session.models.thinkingLevel()).toBe("low")
      const r = yield* resumed.session.prompt("two")
      expect((r.messages[1] as any).model).toBe("scripted-1")
    }).pipe(Effect.provide(storeLayer)))

  it.live("only active tools are offered and runnable; runtime state is never written", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const seen: Array<ReadonlyArray<string>> = []
      const { session } = yield* scripted(sm, {
        script: (request, turn) => {
          seen.push(request.tools.map((t) => t.name))
          return turn === 0
            ? { toolCalls: [{ name: "write", arguments: { path: "x", content: "y" } }] }
            : { text: "ok" }
        }
      })
      session.tools.setActiveToolsByName(["read"])
      const r = yield* session.prompt("write x")
      expect(seen[0]).toEqual(["read"])
      expect(r.messages[2] as any).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "write: tool not found or not active" }]
      })
      const types = sm.getEntries().map((e) => e.type)
      expect(new Set(types)).toEqual(new Set(["thinking_level_change", "message"]))
      expect(session.systemPrompt()).toContain("- read: Read file contents")
      expect(ToolRegistry.DEFAULT_ACTIVE_TOOLS).toEqual(["read", "bash", "edit", "write"])
      expect(ModelRegistry.scriptedModel.contextWindow).toBe(32_000)
      expect(models).toHaveLength(2)
      expect(typeof AgentSession.make).toBe("function")
    }).pipe(Effect.provide(storeLayer)))

  it.live("turn hooks see each model call; a failing turn hook does not stop the loop; before-hooks rewrite arguments", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const turns: Array<string> = []
      const { session } = yield* scripted(sm, {
        script: [{ toolCalls: [{ name: "read", arguments: { path: "missing.txt" } }] }, { text: "ok" }],
        hooks: [
          {
            beforeTurn: (info) => Effect.sync(() => void turns.push(`before ${info.turn} ${info.messages.length}`)),
            afterTurn: (info) => Effect.sync(() => void turns.push(`after ${info.turn} ${info.toolResults.length}`))
          },
          { afterTurn: () => Effect.fail("turn hook broke") },
          {
            beforeToolCall: (call) =>
              Effect.succeed({ _tag: "continue" as const, arguments: { ...call.arguments, path: "a.txt" } })
          }
        ]
      })
      const r = yield* session.prompt("go")
      expect(r.stopReason).toBe("stop")
      expect(turns).toEqual(["before 0 1", "after 0 1", "before 1 3", "after 1 0"])
      expect(r.messages[2]).toMatchObject({ isError: false, content: [{ type: "text", text: "alpha\n" }] })
      // The transcript keeps the model's own arguments.
      expect((r.messages[1] as any).content[0].arguments).toEqual({ path: "missing.txt" })
    }).pipe(Effect.provide(storeLayer)))

  it.live("a new session writes the registry's thinking level once", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const session = yield* AgentSession.make({
        sessionManager: sm,
        tools: ToolRegistry.make(),
        models: ModelRegistry.make({ models, thinkingLevel: "high" })
      }).pipe(Effect.provide(ScriptedModel.layer()))
      expect(sm.getEntries().map((e) => [e.type, (e as any).thinkingLevel])).toEqual([[
        "thinking_level_change",
        "high"
      ]])
      yield* session.prompt("hi")
      expect(session.models.thinkingLevel()).toBe("high")
      expect(sm.getEntries()).toHaveLength(3)
    }).pipe(Effect.provide(storeLayer)))

  it.live("transcript events reach sessions-semantics' SessionEvents through the store's observer", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents.SessionEvents
      const updates: Array<SessionEvents.TranscriptUpdate> = []
      events.onTranscript((u) => updates.push(u))
      const sm = yield* SessionManager.create("/work/project", tempDir())
      const { session } = yield* scripted(sm, {
        script: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "ok" }]
      })
      const result = yield* session.prompt("go")
      const lines = rowsOf(sm.getSessionFile()!).slice(1)
      expect(updates.map((u) => u.entryId)).toEqual(lines.map((l) => l.id))
      const messages = updates.filter((u) => u.messageSeq !== undefined)
      expect(messages.map((u) => u.messageSeq)).toEqual([1, 2, 3, 4])
      expect(messages.map((u) => (u.message as any).role)).toEqual(result.messages.map((m) => m.role))
      expect(new Set(updates.map((u) => u.sessionFile))).toEqual(new Set([sm.getSessionFile()]))
    }).pipe(Effect.provide(Layer.merge(storeLayer, StoreBridge.layerWithEvents))))

  it.live("tool calls of an aborted, failed or cut reply are answered with error results, not run", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const write = (path: string) => [{ name: "write", arguments: { path, content: path } }]
      const { files, nextDelta, session } = yield* scripted(sm, {
        script: [
          { text: "Writing", toolCalls: write("x.txt"), error: "cut off" },
          { toolCalls: write("y.txt"), hang: true },
          { toolCalls: write("z.txt"), stopReason: "length" }
        ]
      })
      const textOf = (m: any) => m.content[0].text
      const failed = yield* session.prompt("one")
      expect(failed.stopReason).toBe("error")
      expect(failed.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"])
      expect(textOf(failed.messages[2])).toBe("Tool call not executed: the reply failed")
      const delta = yield* nextDelta()
      const fiber = yield* Effect.fork(session.prompt("two"))
      yield* delta
      yield* session.abort()
      const aborted = yield* Fiber.join(fiber)
      expect(aborted.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"])
      expect(textOf(aborted.messages[2])).toBe("Tool execution aborted")
      const cut = yield* session.prompt("three")
      expect(cut.stopReason).toBe("length")
      expect(textOf(cut.messages[2])).toBe("Tool call not executed: the reply was cut at the length limit")
      expect([...files.keys()].sort()).toEqual(["a.txt", "b.txt"])
      for (const m of [failed, aborted, cut].map((r) => r.messages[2] as any)) expect(m.isError).toBe(true)
    }).pipe(Effect.provide(storeLayer)))
})
