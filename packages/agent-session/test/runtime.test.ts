import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ToolError } from "../src/AgentError.js"
import * as BuiltinTools from "../src/BuiltinTools.js"
import * as Hooks from "../src/Hooks.js"
import { groups, runAll, runOne } from "../src/internal/toolRunner.js"
import * as ModelRegistry from "../src/ModelRegistry.js"
import * as SystemPrompt from "../src/SystemPrompt.js"
import * as Tool from "../src/Tool.js"
import * as ToolRegistry from "../src/ToolRegistry.js"
import * as Workspace from "../src/Workspace.js"

const call = (name: string, args: Record<string, unknown>, id = `c_${name}`) => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: args
})

describe("SystemPrompt", () => {
  it("pins the exact text for the default built-ins and one context file", () => {
    const registry = ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.memory()) })
    const text = SystemPrompt.fromRegistry(registry, SystemPrompt.DEFAULT_BASE, [
      { path: "AGENTS.md", content: "Run pnpm test before committing.\n" }
    ])
    expect(text).toBe(
      `You are a coding assistant. You help the user by reading files, running commands, editing code and writing new files.

Available tools:
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make surgical edits to files (find exact text and replace)
- write: Create or overwrite files

Guidelines:
- Use read to examine files before editing them.
- Use edit for precise changes; oldText must match exactly once.
- Use write only for new files or complete rewrites.

# Project Context

## AGENTS.md

Run pnpm test before committing.`
    )
  })

  it("follows the active set and leaves empty sections out", () => {
    const registry = ToolRegistry.make({
      builtinTools: BuiltinTools.all(Workspace.memory()),
      activeToolNames: ["bash"]
    })
    expect(SystemPrompt.fromRegistry(registry, "Base.")).toBe(
      "Base.\n\nAvailable tools:\n- bash: Execute bash commands (ls, grep, find, etc.)"
    )
    registry.setActiveToolsByName([])
    expect(SystemPrompt.fromRegistry(registry, "Base.")).toBe("Base.")
  })
})

describe("ModelRegistry", () => {
  const models = [
    { provider: "openai", id: "gpt-x", api: "openai-completions", contextWindow: 128_000, reasoning: true },
    { provider: "local", id: "small", api: "openai-completions", contextWindow: 8_000, reasoning: false }
  ]
  it.effect("switches models, clamps thinking for models that do not reason, rejects unknown ones", () =>
    Effect.gen(function*() {
      const r = ModelRegistry.make({ models, thinkingLevel: "high" })
      expect(r.current().id).toBe("gpt-x")
      expect(r.thinkingLevel()).toBe("high")
      yield* r.setCurrent("local", "small")
      expect(r.thinkingLevel()).toBe("off")
      expect(r.setThinkingLevel("low")).toBe("off")
      yield* r.setCurrent("openai", "gpt-x")
      expect(r.thinkingLevel()).toBe("low")
      const error = yield* Effect.flip(r.setCurrent("openai", "nope"))
      expect(error._tag).toBe("ModelNotFoundError")
      expect(error.message).toBe("Model openai/nope not found")
    }))
})

describe("built-in tools", () => {
  it.effect("read / write / edit / bash over an in-memory workspace", () =>
    Effect.gen(function*() {
      const files = new Map([["a.txt", "one\ntwo\nthree\n"]])
      const ws = Workspace.memory(files)
      const [read, bash, edit, write] = BuiltinTools.all(ws)
      expect((yield* read!.execute({ path: "a.txt", offset: 2, limit: 1 }, { toolCallId: "1" })).content).toEqual([{
        type: "text",
        text: "two"
      }])
      yield* write!.execute({ path: "dir/b.txt", content: "hello world" }, { toolCallId: "2" })
      expect(files.get("dir/b.txt")).toBe("hello world")
      yield* edit!.execute({ path: "dir/b.txt", oldText: "world", newText: "there" }, { toolCallId: "3" })
      expect(files.get("dir/b.txt")).toBe("hello there")
      const twice = yield* Effect.flip(
        edit!.execute({ path: "a.txt", oldText: "t", newText: "T" }, { toolCallId: "4" })
      )
      expect(twice.message).toBe("edit: text occurs more than once in a.txt")
      const escape = yield* Effect.flip(read!.execute({ path: "../etc/passwd" }, { toolCallId: "5" }))
      expect(escape.reason).toBe("path outside the workspace: ../etc/passwd")
      expect((yield* bash!.execute({ command: "cat dir/b.txt" }, { toolCallId: "6" })).content).toEqual([{
        type: "text",
        text: "hello there"
      }])
      const missing = yield* bash!.execute({ command: "rm -rf /" }, { toolCallId: "7" })
      expect(missing.isError).toBe(true)
    }))

  it.effect("read / write / bash over a real folder, refusing paths outside it", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-ws-"))
      const ws = Workspace.node(dir, { timeoutMs: 5000 })
      const [read, bash, , write] = BuiltinTools.all(ws)
      yield* write!.execute({ path: "src/x.ts", content: "export {}\n" }, { toolCallId: "1" })
      expect(fs.readFileSync(path.join(dir, "src/x.ts"), "utf8")).toBe("export {}\n")
      expect((yield* read!.execute({ path: "src/x.ts" }, { toolCallId: "2" })).content[0]).toEqual({
        type: "text",
        text: "export {}\n"
      })
      const out = yield* bash!.execute({ command: "ls src && exit 3" }, { toolCallId: "3" })
      expect(out.isError).toBe(true)
      expect(out.details).toEqual({ exitCode: 3 })
      expect((yield* Effect.flip(write!.execute({ path: "/tmp/elsewhere", content: "" }, { toolCallId: "4" }))).reason)
        .toContain("outside the workspace")
      fs.rmSync(dir, { recursive: true, force: true })
    }))
})

describe("tool execution with hooks", () => {
  const echo = Tool.make({
    name: "echo",
    description: "Echo.",
    parameters: Schema.Struct({ text: Schema.String }),
    execute: ({ text }) => Effect.succeed(Tool.text(text))
  })
  const boom = Tool.make({
    name: "boom",
    description: "Fails.",
    parameters: Schema.Struct({}),
    execute: () => Effect.fail(new ToolError({ toolName: "boom", reason: "it broke" }))
  })
  const crash = Tool.make({
    name: "crash",
    description: "Dies.",
    parameters: Schema.Struct({}),
    execute: () => Effect.die(new Error("kaput"))
  })
  const tools = new Map<string, Tool.AnyTool>([["echo", echo], ["boom", boom], ["crash", crash]])
  const textOf = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) =>
    r.content.map((b) => b.text).join("")

  it.effect("before may block or rewrite arguments, after may rewrite the result", () =>
    Effect.gen(function*() {
      const hooks: ReadonlyArray<Hooks.Hooks> = [
        {
          beforeToolCall: (c) =>
            Effect.succeed(
              c.arguments.text === "secret"
                ? Hooks.block("no secrets")
                : Hooks.proceed({ text: `${c.arguments.text}!` })
            )
        },
        { afterToolCall: (_c, r) => Effect.succeed({ ...r, details: { seen: true } }) }
      ]
      const ok = yield* runOne({ tools, hooks }, call("echo", { text: "hi" }))
      expect(ok).toMatchObject({
        role: "toolResult",
        toolCallId: "c_echo",
        toolName: "echo",
        isError: false,
        details: { seen: true }
      })
      expect(textOf(ok)).toBe("hi!")
      const blocked = yield* runOne({ tools, hooks }, call("echo", { text: "secret" }))
      expect(blocked.isError).toBe(true)
      expect(textOf(blocked)).toBe("echo: blocked: no secrets")
    }))

  it.effect("failing hooks, tools, defects, bad arguments and unknown tools become error results", () =>
    Effect.gen(function*() {
      const failing: ReadonlyArray<Hooks.Hooks> = [{ beforeToolCall: () => Effect.fail("nope") }]
      const dying: ReadonlyArray<Hooks.Hooks> = [{ afterToolCall: () => Effect.die(new Error("after died")) }]
      expect(textOf(yield* runOne({ tools, hooks: failing }, call("echo", { text: "x" })))).toBe(
        "echo: beforeToolCall hook failed: nope"
      )
      expect(textOf(yield* runOne({ tools, hooks: dying }, call("echo", { text: "x" })))).toBe(
        "echo: afterToolCall hook failed: after died"
      )
      expect(textOf(yield* runOne({ tools, hooks: [] }, call("boom", {})))).toBe("boom: it broke")
      expect(textOf(yield* runOne({ tools, hooks: [] }, call("crash", {})))).toBe("crash: tool crashed: kaput")
      expect(textOf(yield* runOne({ tools, hooks: [] }, call("echo", { text: 3 })))).toMatch(
        /^echo: invalid arguments: /
      )
      expect(textOf(yield* runOne({ tools, hooks: [] }, call("ghost", {})))).toBe("ghost: tool not found or not active")
    }))

  it.live("runs independent calls in parallel, exclusive ones alone, results in call order", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const slow = (name: string, ms: number, parallel: boolean) =>
        Tool.make({
          name,
          description: name,
          parallel,
          parameters: Schema.Struct({}),
          execute: () =>
            Effect.gen(function*() {
              log.push(`start ${name}`)
              yield* Effect.sleep(ms)
              log.push(`end ${name}`)
              return Tool.text(name)
            })
        })
      const ts = new Map<string, Tool.AnyTool>([["a", slow("a", 40, true)], ["b", slow("b", 5, true)], [
        "w",
        slow("w", 1, false)
      ]])
      const calls = [call("a", {}, "1"), call("b", {}, "2"), call("w", {}, "3"), call("a", {}, "4")]
      expect(groups(ts, calls).map((g) => g.map((c) => c.id))).toEqual([["1", "2"], ["3"], ["4"]])
      const results = yield* runAll({ tools: ts, hooks: [] }, calls)
      expect(results.map((r) => r.toolCallId)).toEqual(["1", "2", "3", "4"])
      expect(log.slice(0, 4)).toEqual(["start a", "start b", "end b", "end a"])
      expect(log.slice(4)).toEqual(["start w", "end w", "start a", "end a"])
    }))
})
