/**
 * Sub-agents over real session files: the `task` tool two levels deep (each child a new file
 * whose header names its parent, a key one `:subagent:` deeper, its own tools, its answer as the
 * tool result), the depth limit as a tool error, the lifecycle events, and every file clean.
 */
import type { LlmMessages } from "@branchlog/session-core"
import { Diagnostics } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { SessionEvents } from "@branchlog/sessions-semantics"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as ScriptedModel from "../src/ScriptedModel.js"
import * as SubAgent from "../src/SubAgent.js"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

const textOf = (m: LlmMessages.LlmMessage): string =>
  typeof m.content === "string" ? m.content : m.content.map((b) => b.type === "text" ? b.text : "").join("")

/** Each session is told apart by its first user message. */
const makeRule = (tools: Map<string, ReadonlyArray<string>>): ScriptedModel.Script => (request) => {
  const first = textOf(request.messages.find((m) => m.role === "user")!)
  tools.set(first, request.tools.map((t) => t.name))
  const last = request.messages[request.messages.length - 1]!
  if (last.role === "toolResult") return { text: `${first} <- ${textOf(last)}` }
  if (first === "top") {
    return { toolCalls: [{ name: "task", arguments: { prompt: "level one", tools: ["read", "task"], label: "one" } }] }
  }
  if (first === "level one") {
    return { toolCalls: [{ name: "task", arguments: { prompt: "level two", tools: ["read", "task"] } }] }
  }
  if (first === "level two") return { toolCalls: [{ name: "task", arguments: { prompt: "level three" } }] }
  return { text: `answer to ${first}` }
}

const sessionFiles = (dir: string) =>
  fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl")).map((n) => path.join(dir, n))

const cleanFile = (file: string) =>
  Effect.gen(function*() {
    const sm = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
    const problems = Diagnostics.diagnose(sm.getState()).filter((p) => Diagnostics.severity(p) === "error")
    expect(problems, file).toEqual([])
    const rows = rowsOf(file).filter((r) => r.type === "message")
    const calls = rows.filter((r) => r.message.role === "assistant").flatMap((r) =>
      r.message.content.filter((b: any) => b.type === "toolCall").map((b: any) => b.id)
    )
    const results = rows.filter((r) => r.message.role === "toolResult").map((r) => r.message.toolCallId)
    expect(results.sort(), file).toEqual(calls.sort())
  })

const ids = () => {
  let n = 0
  return () => `id${++n}`
}

describe("sub-agents (the task tool)", () => {
  it.live("two levels deep, then the depth limit; child files name their parent; answers come back as results", () => {
    const events = SessionEvents.unsafeMake()
    const lifecycle: Array<SessionEvents.LifecycleEvent> = []
    events.onLifecycle((e) => lifecycle.push(e))
    return Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create(dir, dir)
      const tools = new Map<string, ReadonlyArray<string>>()
      const { session } = yield* scripted(sm, {
        script: makeRule(tools),
        extra: { events, subagents: { sessions: yield* SubAgent.storeSessions, maxDepth: 2, newId: ids() } }
      })
      const result = yield* session.prompt("top")
      expect(result.stopReason).toBe("stop")
      const parentFile = sm.getSessionFile()!

      const files = sessionFiles(dir)
      expect(files).toHaveLength(3)
      const headerOf = (f: string) => rowsOf(f)[0]!
      const child = files.find((f) => headerOf(f).parentSession === parentFile)!
      const grandchild = files.find((f) => headerOf(f).parentSession === child)!
      expect(child).toBeDefined()
      expect(grandchild).toBeDefined()

      const limit = "task: sub-agent depth limit reached: this session is 2 deep, the limit is 2"
      const resultsIn = (f: string) =>
        rowsOf(f).filter((r) => r.type === "message" && r.message.role === "toolResult").map((r) => r.message)
      const [deepest] = resultsIn(grandchild)
      expect(deepest).toMatchObject({ toolName: "task", isError: true, content: [{ type: "text", text: limit }] })
      const [fromGrandchild] = resultsIn(child)
      expect(fromGrandchild).toMatchObject({
        isError: false,
        content: [{ type: "text", text: `level two <- ${limit}` }],
        details: { sessionKey: "agent:main:subagent:id1:subagent:id2", sessionFile: grandchild, stopReason: "stop" }
      })
      const [fromChild] = resultsIn(parentFile)
      expect(fromChild).toMatchObject({
        content: [{ type: "text", text: `level one <- level two <- ${limit}` }],
        details: { sessionKey: "agent:main:subagent:id1", sessionFile: child }
      })
      const finalReply = result.messages.at(-1) as { readonly content?: unknown }
      expect(finalReply.content).toEqual([{
        type: "text",
        text: `top <- level one <- level two <- ${limit}`
      }])

      // the children's own tools: the allow-list of the call
      expect(tools.get("top")).toEqual(["read", "bash", "edit", "write", "task"])
      expect(tools.get("level one")).toEqual(["read", "task"])
      expect(tools.get("level two")).toEqual(["read", "task"])

      const about = (key: string) =>
        lifecycle.filter((e) => e.sessionKey === key).map((e) => `${e.reason}${e.status ? `:${e.status}` : ""}`)
      expect(about("agent:main:subagent:id1")).toEqual([
        "create",
        "subagent-status:running",
        "turn-start",
        "turn-end",
        "subagent-status:done"
      ])
      expect(lifecycle.find((e) => e.sessionKey === "agent:main:subagent:id1" && e.reason === "create")).toMatchObject({
        parentSessionKey: "agent:main:main",
        label: "one",
        sessionFile: child
      })
      expect(lifecycle.find((e) => e.reason === "create" && e.sessionKey.endsWith(":id2"))).toMatchObject({
        parentSessionKey: "agent:main:subagent:id1",
        sessionFile: grandchild
      })
      for (const f of files) yield* cleanFile(f)
    }).pipe(Effect.provide(storeLayer))
  })

  it.live("maxDepth 0 refuses at once with a tool error and makes no child; unknown tools in the allow-list are refused", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create(dir, dir)
      const sessions = yield* SubAgent.storeSessions
      const script: ScriptedModel.Script = (request) =>
        request.messages.at(-1)!.role === "toolResult"
          ? { text: "ok" }
          : { toolCalls: [{ name: "task", arguments: { prompt: "x" } }] }
      const first = yield* scripted(sm, { script, extra: { subagents: { sessions, maxDepth: 0 } } })
      const result = yield* first.session.prompt("go")
      expect(result.messages.find((m) => m.role === "toolResult")).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "task: sub-agent depth limit reached: this session is 0 deep, the limit is 0" }]
      })
      expect(sessionFiles(dir)).toEqual([sm.getSessionFile()])

      const other = yield* SessionManager.create(dir, dir)
      const second = yield* scripted(other, {
        script: (request) =>
          request.messages.at(-1)!.role === "toolResult"
            ? { text: "ok" }
            : { toolCalls: [{ name: "task", arguments: { prompt: "x", tools: ["nope"] } }] },
        extra: { subagents: { sessions } }
      })
      const refused = yield* second.session.prompt("go")
      expect(refused.messages.find((m) => m.role === "toolResult")).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "task: tools not available to a sub-agent: nope" }]
      })
      expect(sessionFiles(dir)).toHaveLength(2)
      for (const f of sessionFiles(dir)) yield* cleanFile(f)
    }).pipe(Effect.provide(storeLayer)))

  it.live(
    "aborting the parent aborts the sub-agent: both record an aborted reply, the status says aborted",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const sm = yield* SessionManager.create(dir, dir)
        const started = yield* Deferred.make<void>()
        const lifecycle: Array<SessionEvents.LifecycleEvent> = []
        const script: ScriptedModel.Script = (request) => {
          const first = textOf(request.messages.find((m) => m.role === "user")!)
          if (first === "child work") return { text: "working on it", hang: true }
          return request.messages.at(-1)!.role === "toolResult"
            ? { text: "never" }
            : { toolCalls: [{ name: "task", arguments: { prompt: "child work", tools: ["read"] } }] }
        }
        const { session } = yield* scripted(sm, {
          script,
          extra: {
            subagents: { sessions: yield* SubAgent.storeSessions, newId: ids() },
            onLifecycle: (e) =>
              Effect.suspend(() => {
                lifecycle.push(e)
                return e.reason === "turn-start" && e.sessionKey.includes(":subagent:")
                  ? Deferred.succeed(started, undefined)
                  : Effect.void
              })
          }
        })
        const fiber = yield* Effect.fork(session.prompt("go"))
        yield* Deferred.await(started)
        yield* session.abort()
        const result = yield* Fiber.join(fiber)
        expect(result.stopReason).toBe("aborted")
        const child = sessionFiles(dir).find((f) => rowsOf(f)[0]!.parentSession === sm.getSessionFile())!
        const childReplies = rowsOf(child).filter((r) => r.message?.role === "assistant").map((r) => r.message)
        expect(childReplies).toEqual([expect.objectContaining({ stopReason: "aborted" })])
        const parentResults = rowsOf(sm.getSessionFile()!).filter((r) => r.message?.role === "toolResult")
        expect(parentResults).toHaveLength(1)
        expect(parentResults[0]!.message.isError).toBe(true)
        expect(lifecycle.filter((e) => e.reason === "subagent-status").map((e) => e.status)).toEqual([
          "running",
          "aborted"
        ])
        for (const f of sessionFiles(dir)) yield* cleanFile(f)
      }).pipe(Effect.provide(storeLayer)),
    60_000
  )
})
