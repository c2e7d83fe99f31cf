/**
 * `branchlog run` against a flaky loopback OpenAI-compatible endpoint (real processes): 503 twice
 * (once with `Retry-After: 1`), then a streamed reply; and an endpoint that always fails, within
 * the retry budget. Also `run '!cmd'` with the scripted model, `--verbose` lifecycle lines, and
 * `tree` listing a session's children.
 */
import { AgentSession, ModelRegistry, ScriptedModel, SubAgent, ToolRegistry } from "@branchlog/agent-session"
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import * as Effect from "effect/Effect"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runInMemory, runProcess } from "./support/harness.js"

const servers: Array<http.Server> = []
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve())))))

/** A chat-completions endpoint on 127.0.0.1; `answer(n)` decides the n-th request (0-based). */
const serve = async (answer: (n: number, res: http.ServerResponse) => void) => {
  let n = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => answer(n++, res))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, count: () => n }
}

const unavailable = (res: http.ServerResponse, headers: Record<string, string> = {}) =>
  res.writeHead(503, { "content-type": "application/json", ...headers }).end(
    JSON.stringify({ error: { message: "overloaded" } })
  )

const rowsOf = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))

describe("run: retries against a flaky endpoint (real process)", () => {
  it(
    "503, 503 with Retry-After: 1, then a streamed reply: exit 0, the context ends with the reply, no error entry",
    async () => {
      const server = await serve((n, res) => {
        if (n === 0) return unavailable(res)
        if (n === 1) return unavailable(res, { "retry-after": "1" })
        res.writeHead(200, { "content-type": "text/event-stream" })
        for (const chunk of ["Third ", "time lucky."]) {
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: chunk } }] })}\n\n`)
        }
        res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`)
        res.end("data: [DONE]\n\n")
      })
      const cwd = mkdtempSync(join(tmpdir(), "branchlog-run-retry-"))
      const session = join(cwd, "chat.jsonl")
      const outcome = await runProcess([
        "run",
        "hello",
        "--session",
        session,
        "--model",
        "openai-compatible",
        "--api-url",
        server.url,
        "--retry-delay",
        "50",
        "--verbose"
      ], { cwd })
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stdout).toContain("Third time lucky.")
      expect(server.count()).toBe(3)
      const retries = outcome.stderr.split("\n").filter((l) => l.startsWith("retry: "))
      expect(retries).toHaveLength(2)
      expect(retries[0]).toMatch(/^retry: attempt 1 failed \(openai-compatible: .*\(HTTP 503\)\); retrying in \d+ ms$/)
      expect(retries[1]).toMatch(/^retry: attempt 2 failed .*; retrying in 1000 ms$/)
      const lifecycle = outcome.stderr.split("\n").filter((l) => l.startsWith("session: "))
      expect(lifecycle.map((l) => l.split(" ")[1])).toEqual(["create", "turn-start", "turn-end"])
      expect(lifecycle[2]).toContain(" stop ")

      const messages = rowsOf(session).filter((r) => r.type === "message").map((r) => r.message)
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
      expect(messages.some((m) => m.stopReason === "error")).toBe(false)
      const context = await runProcess(["context", session, "--json"], { cwd })
      expect(context.code, context.stderr).toBe(0)
      const last = JSON.parse(context.stdout).messages.at(-1)
      expect(last).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Third time lucky." }] })
    },
    180_000
  )

  it("an endpoint that always fails: exit 1, one error entry, the waits within the budget", async () => {
    const server = await serve((_n, res) => unavailable(res))
    const cwd = mkdtempSync(join(tmpdir(), "branchlog-run-retry-"))
    const session = join(cwd, "chat.jsonl")
    const budget = 1500
    const started = Date.now()
    const outcome = await runProcess([
      "run",
      "hello",
      "--session",
      session,
      "--model",
      "openai-compatible",
      "--api-url",
      server.url,
      "--max-retries",
      "10",
      "--retry-delay",
      "200",
      "--retry-budget",
      String(budget),
      "--verbose"
    ], { cwd })
    const elapsed = Date.now() - started
    expect(outcome.code).toBe(1)
    const waits = outcome.stderr.split("\n").filter((l) => l.startsWith("retry: ")).map((l) =>
      Number(/retrying in (\d+) ms/.exec(l)![1])
    )
    // 200, 400, 800 ms (±20%): a fourth wait would pass 1500 ms in all
    expect(waits.length).toBeGreaterThanOrEqual(2)
    expect(waits.length).toBeLessThanOrEqual(3)
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(budget)
    expect(server.count()).toBe(waits.length + 1)
    expect(elapsed).toBeGreaterThanOrEqual(waits.reduce((a, b) => a + b, 0))
    const messages = rowsOf(session).filter((r) => r.type === "message").map((r) => r.message)
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"])
    expect(messages.filter((m) => m.stopReason === "error")).toHaveLength(1)
    expect(messages[1].errorMessage).toContain(`(after ${waits.length + 1} attempts)`)
    expect(outcome.stderr).toContain("session: turn-end agent:main:main error")
  }, 180_000)
})

describe("run '!cmd' with the scripted model", () => {
  it("runs the command, prints its output and records a bashExecution message", async () => {
    const volume = MemoryFileSystem.make()
    const outcome = await runInMemory(volume, ["run", "!echo from-the-shell; exit 4", "--session", "/s/bash.jsonl"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toContain("bash: echo from-the-shell; exit 4")
    expect(outcome.stdout).toContain("from-the-shell")
    expect(outcome.stdout).toContain("exit code: 4")
    const rows = volume.readText("/s/bash.jsonl")!.trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(rows.filter((r) => r.type === "message").map((r) => r.message)).toEqual([
      expect.objectContaining({ role: "bashExecution", exitCode: 4, output: "from-the-shell\n", cancelled: false })
    ])
  })
})

describe("tree lists child sessions", () => {
  it("the sessions whose header names this one as parent, and theirs", async () => {
    const volume = MemoryFileSystem.make()
    const header = (id: string, parent?: string) =>
      JSON.stringify({
        type: "session",
        version: 3,
        id,
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/w",
        ...(parent === undefined ? {} : { parentSession: parent })
      })
    const user = (id: string, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId: null,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: text, timestamp: 1 }
      })
    volume.writeFile("/s/parent.jsonl", `${header("p")}\n${user("aaaaaaaa", "top task")}\n`)
    volume.writeFile("/s/child.jsonl", `${header("c", "/s/parent.jsonl")}\n${user("bbbbbbbb", "level one")}\n`)
    volume.writeFile("/s/grandchild.jsonl", `${header("g", "/s/child.jsonl")}\n${user("cccccccc", "level two")}\n`)
    volume.writeFile("/s/other.jsonl", `${header("o")}\n${user("dddddddd", "unrelated")}\n`)
    const outcome = await runInMemory(volume, ["tree", "/s/parent.jsonl"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = outcome.stdout.split("\n")
    const at = lines.indexOf("child sessions (sub-agents, forks):")
    expect(at).toBeGreaterThan(0)
    expect(lines.slice(at + 1).filter((l) => l !== "")).toEqual([
      "  /s/child.jsonl  (level one)",
      "    /s/grandchild.jsonl  (level two)"
    ])
    const leaf = await runInMemory(volume, ["tree", "/s/other.jsonl"])
    expect(leaf.stdout).not.toContain("child sessions")
  })
})

describe("sub-agent sessions on disk (real process)", () => {
  it("tree of the parent lists the child and grandchild the task tool made; fsck is clean on the folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "branchlog-subagents-"))
    const parentFile = await Effect.runPromise(
      Effect.gen(function*() {
        const sm = yield* SessionManager.create(dir, dir)
        const first = (
          request: { readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }> }
        ) => String(request.messages.find((m) => m.role === "user")?.content ?? "")
        const session = yield* AgentSession.make({
          sessionManager: sm,
          tools: ToolRegistry.make({ builtinTools: [] }),
          models: ModelRegistry.make({ models: [ModelRegistry.scriptedModel] }),
          subagents: { sessions: yield* SubAgent.storeSessions, maxDepth: 2 }
        }).pipe(Effect.provide(ScriptedModel.layer({
          script: (request) => {
            const text = first(request)
            if (request.messages.at(-1)!.role === "toolResult") return { text: `${text}: done` }
            if (text === "plan the release") {
              return { toolCalls: [{ name: "task", arguments: { prompt: "check the changelog", tools: ["task"] } }] }
            }
            if (text === "check the changelog") {
              return { toolCalls: [{ name: "task", arguments: { prompt: "read the tags", tools: [] } }] }
            }
            return { text: "tags read" }
          }
        })))
        yield* session.prompt("plan the release")
        return sm.getSessionFile()!
      }).pipe(Effect.provide(SessionStore.layerNode))
    )
    expect(readdirSync(dir).filter((n) => n.endsWith(".jsonl"))).toHaveLength(3)
    // wide enough that the long temporary paths leave the first messages whole
    const tree = await runProcess(["tree", parentFile], { env: { COLUMNS: "400" } })
    expect(tree.code, tree.stderr).toBe(0)
    const lines = tree.stdout.split("\n")
    const at = lines.indexOf("child sessions (sub-agents, forks):")
    expect(lines.slice(at + 1, at + 3).map((l) => l.replace(/\/[^ ]+\.jsonl/, "FILE"))).toEqual([
      "  FILE  (check the changelog)",
      "    FILE  (read the tags)"
    ])
    const fsck = await runProcess(["fsck", dir])
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0)
  }, 180_000)
})
