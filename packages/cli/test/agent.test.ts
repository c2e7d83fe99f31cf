import { MemoryFileSystem } from "@branchlog/session-store/testing"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
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
    60_000
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
