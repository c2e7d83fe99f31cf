import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runInMemory, runProcess } from "./support/harness.js"

describe("demo", () => {
  it(
    "runs the scripted agent through turns, a label, a branch with a summary, a compaction and a fork (real process)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "branchlog-demo-test-"))
      const outcome = await runProcess(["demo", "--dir", dir])
      expect(outcome.code, outcome.stderr).toBe(0)
      for (
        const step of [
          "1. a turn with two parallel tool calls",
          "2. labelled",
          "4. branched back",
          "5. compacted",
          "6. forked"
        ]
      ) {
        expect(outcome.stdout).toContain(step)
      }
      expect(outcome.stdout).toContain("◀ leaf")
      expect(outcome.stdout).toMatch(/context at the leaf \(\d+ messages/)
      const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"))
      expect(files).toHaveLength(2)
      const file = outcome.stdout.match(/session file: (.+)/)![1]!
      const rows = readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
      const types = new Set(rows.map((row) => row.type))
      for (
        const type of ["session", "message", "label", "branch_summary", "compaction", "thinking_level_change"]
      ) expect(types).toContain(type)
      const fsck = await runProcess(["fsck", dir])
      expect(fsck.code, fsck.stdout).toBe(0)
    },
    180_000
  )

  it("runs in process over the memory layer too", async () => {
    const volume = MemoryFileSystem.make()
    const outcome = await runInMemory(volume, ["demo", "--dir", "/demo"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(volume.list("/demo").filter((name) => name.endsWith(".jsonl"))).toHaveLength(2)
  })
})

describe("run", () => {
  it("runs one turn with the scripted model and continues the same session", async () => {
    const volume = MemoryFileSystem.make()
    const first = await runInMemory(volume, ["run", "hello there", "--session", "/s/chat.jsonl"])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain("assistant: You said: hello there")
    await runInMemory(volume, ["run", "again", "--session", "/s/chat.jsonl"])
    const rows = volume.readText("/s/chat.jsonl")!.trimEnd().split("\n").map((line) => JSON.parse(line))
    const messages = rows.filter((row) => row.type === "message").map((row) => `${row.message.role}`)
    expect(messages).toEqual(["user", "assistant", "user", "assistant"])
    expect(rows.filter((row) => row.type === "session")).toHaveLength(1)
  })

  it("needs --api-url for the OpenAI-compatible model (usage error)", async () => {
    const outcome = await runInMemory(MemoryFileSystem.make(), [
      "run",
      "hi",
      "--model",
      "openai-compatible",
      "--session",
      "/s/x.jsonl"
    ])
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toContain("--api-url")
  })
})

describe("run --model openai-compatible (real process, a loopback endpoint)", () => {
  // a chat-completions endpoint on 127.0.0.1 that streams the queued replies as server-sent events
  const requests: Array<{ readonly auth: string | undefined; readonly body: any }> = []
  const replies: Array<ReadonlyArray<unknown>> = []
  let server: http.Server
  let apiUrl = ""
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const parts: Array<Buffer> = []
      req.on("data", (part: Buffer) => parts.push(part))
      req.on("end", () => {
        requests.push({ auth: req.headers.authorization, body: JSON.parse(Buffer.concat(parts).toString("utf8")) })
        const chunks = replies.shift()
        if (chunks === undefined || requests.length > 10) {
          res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "none" } }))
          return
        }
        res.writeHead(200, { "content-type": "text/event-stream" })
        for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
        res.end("data: [DONE]\n\n")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("runs a turn with a tool call through the endpoint and writes it to the session", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "branchlog-run-openai-"))
    writeFileSync(join(cwd, "note.txt"), "the note says hi\n")
    replies.push([
      { choices: [{ delta: { role: "assistant", content: "Reading it." } }] },
      {
        choices: [{
          delta: {
            tool_calls: [{
              index: 0,
              id: "call_1",
              type: "function",
              function: { name: "read", arguments: "{\"path\":\"note.txt\"}" }
            }]
          },
          finish_reason: "tool_calls"
        }]
      }
    ])
    replies.push([{ choices: [{ delta: { content: "It says hi." }, finish_reason: "stop" }] }])
    const session = join(cwd, "chat.jsonl")
    const outcome = await runProcess(
      [
        "run",
        "what does note.txt say?",
        "--session",
        session,
        "--model",
        "openai-compatible",
        "--api-url",
        apiUrl,
        "--model-id",
        "local-model",
        "--api-key",
        "secret"
      ],
      { cwd }
    )
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toContain("It says hi.")
    expect(requests).toHaveLength(2)
    expect(requests[0]!.auth).toBe("Bearer secret")
    expect(requests[0]!.body.model).toBe("local-model")
    expect(requests[0]!.body.stream).toBe(true)
    expect(requests[0]!.body.messages.at(-1)).toMatchObject({ role: "user" })
    // the second request carries the tool call and its result, read from the real file
    const toolMessage = requests[1]!.body.messages.find((m: { role: string }) => m.role === "tool")
    expect(toolMessage.tool_call_id).toBe("call_1")
    expect(JSON.stringify(toolMessage.content)).toContain("the note says hi")
    const rows = readFileSync(session, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    const messages = rows.filter((row) => row.type === "message").map((row) => row.message)
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"])
    expect(messages[1]).toMatchObject({ provider: "openai-compatible", model: "local-model", stopReason: "toolUse" })
    expect(messages[3].content).toEqual([{ type: "text", text: "It says hi." }])
  }, 180_000)

  it("exits 1 with the endpoint's error in one line when the turn fails, and keeps what it wrote", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "branchlog-run-openai-"))
    const session = join(cwd, "chat.jsonl")
    const outcome = await runProcess(
      [
        "run",
        "hello",
        "--session",
        session,
        "--model",
        "openai-compatible",
        "--api-url",
        apiUrl,
        "--retry-delay",
        "20"
      ],
      { cwd, env: { OPENAI_API_KEY: "from-env" } }
    )
    expect(outcome.code).toBe(1)
    expect(outcome.stderr.trim().split("\n")).toHaveLength(1)
    expect(outcome.stderr).toContain(`${session}: the turn failed:`)
    expect(requests.at(-1)!.auth).toBe("Bearer from-env")
    const rows = readFileSync(session, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    const messages = rows.filter((row) => row.type === "message").map((row) => row.message)
    expect(messages[0]).toMatchObject({ role: "user", content: "hello" })
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" })
  }, 180_000)
})
