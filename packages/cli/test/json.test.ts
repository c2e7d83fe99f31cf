/** `--json` on every command that prints data, and `context --llm`, in real processes over real files. */
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const reference = join(import.meta.dirname, "..", "..", "..", "fixtures", "reference")
const dir = mkdtempSync(join(tmpdir(), "branchlog-json-"))
let n = 0
/** A fresh copy of a reference fixture. */
const copy = (name: string) => {
  const file = join(dir, `${name}-${n++}.jsonl`)
  copyFileSync(join(reference, `${name}.jsonl`), file)
  return file
}
const rows = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
const jsonOf = async (args: ReadonlyArray<string>, input?: string) => {
  const outcome = await runProcess(args, { cwd: dir, ...(input === undefined ? {} : { input }) })
  expect(outcome.code, outcome.stderr).toBe(0)
  return JSON.parse(outcome.stdout)
}

describe("--json on the write commands", () => {
  it("branch, with and without a summary", async () => {
    const file = copy("linear-basic")
    expect(await jsonOf(["branch", file, "9685090c", "--json"])).toEqual({
      file,
      leafId: "9685090c",
      branchedFrom: "9685090c",
      summaryId: null
    })
    const summarised = await jsonOf(["branch", file, "38617aaf", "--summary", "went back", "--json"])
    expect(summarised).toMatchObject({ file, branchedFrom: "38617aaf" })
    expect(summarised.leafId).toBe(summarised.summaryId)
    expect(rows(file).find((r) => r.id === summarised.summaryId)).toMatchObject({
      type: "branch_summary",
      summary: "went back"
    })
  })

  it("label and name, set and cleared", async () => {
    const file = copy("linear-basic")
    const set = await jsonOf(["label", file, "9685090c", "start", "--json"])
    expect(set).toMatchObject({ file, targetId: "9685090c", label: "start" })
    expect(rows(file).find((r) => r.id === set.entryId)).toMatchObject({ type: "label", targetId: "9685090c" })
    expect(await jsonOf(["label", file, "9685090c", "--json"])).toMatchObject({ label: null })
    const named = await jsonOf(["name", file, "  my session ", "--json"])
    expect(named).toMatchObject({ file, name: "my session" })
    expect(rows(file).find((r) => r.id === named.entryId)).toMatchObject({ type: "session_info" })
    expect(await jsonOf(["name", file, "", "--json"])).toMatchObject({ name: null })
  })

  it("fork, whole and from an entry", async () => {
    const file = copy("linear-basic")
    const whole = await jsonOf(["fork", file, "--json"])
    expect(whole).toMatchObject({ from: file, cwd: "/home/dev/projects/demo-2101" })
    expect(existsSync(whole.to)).toBe(true)
    expect(rows(whole.to)[0]).toMatchObject({ type: "session", id: whole.sessionId, parentSession: file })
    const part = await jsonOf(["fork", file, "--from", "9685090c", "--cwd", "/elsewhere", "--json"])
    expect(part).toMatchObject({ from: file, cwd: "/elsewhere", leafId: expect.any(String) })
    expect(rows(part.to)[0]).toMatchObject({ id: part.sessionId, cwd: "/elsewhere" })
  })

  it("append", async () => {
    const file = join(dir, "appended.jsonl")
    const input = [1, 2].map((i) => JSON.stringify({ role: "user", content: `m${i}`, timestamp: i })).join("\n")
    const answer = await jsonOf(["append", file, "--json"], input)
    expect(answer).toEqual({ file, appended: 2, leafId: rows(file).at(-1).id })
  })

  it("repair, with nothing to do and with fixes", async () => {
    const clean = copy("linear-basic")
    expect(await jsonOf(["repair", clean, "--json"])).toEqual({
      file: clean,
      repaired: false,
      backup: null,
      fixed: [],
      headerCreated: false,
      moved: 0,
      removedLines: null
    })
    const damaged = copy("damaged-lines")
    const fixed = await jsonOf(["repair", damaged, "--json"])
    expect(fixed).toMatchObject({ file: damaged, repaired: true, headerCreated: false })
    expect(fixed.fixed.length).toBeGreaterThan(0)
    expect(fixed.fixed[0]).toMatchObject({ file: damaged, severity: "error", line: expect.any(Number) })
    expect(existsSync(fixed.backup)).toBe(true)
  })

  it("migrate, one entry per file", async () => {
    const old = copy("legacy-v1")
    const current = copy("linear-basic")
    const answer = await jsonOf(["migrate", old, current, "--json"])
    expect(answer).toHaveLength(2)
    expect(answer[0]).toMatchObject({ file: old, from: 1, to: 3, migrated: true })
    expect(answer[0].backups.length).toBe(1)
    expect(answer[1]).toEqual({ file: current, from: 3, to: 3, migrated: false, backups: [] })
  })

  it("run (the scripted model)", async () => {
    const file = join(dir, "run.jsonl")
    const answer = await jsonOf(["run", "hello there", "--session", file, "--json"])
    expect(answer).toMatchObject({ file, errorMessage: null, sessionId: rows(file)[0].id })
    expect(answer.messages[0]).toMatchObject({ role: "user" })
    expect(answer.messages.some((m: { role: string }) => m.role === "assistant")).toBe(true)
  })
})

describe("--json on the read commands", () => {
  it("show: the branch's entries as stored", async () => {
    const file = copy("linear-basic")
    const answer = await jsonOf(["show", file, "--json", "--full"])
    const stored = rows(file).filter((r) => r.type !== "session")
    expect(answer).toMatchObject({ file, sessionId: rows(file)[0].id, leafId: stored.at(-1).id, bounded: false })
    expect(answer.entries).toEqual(stored)
  })
})

describe("context --llm", () => {
  it("prints what the model receives as provider-neutral JSON, tool calls paired by id with their results", async () => {
    const file = copy("linear-basic")
    const outcome = await runProcess(["context", file, "--llm"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const view = JSON.parse(outcome.stdout)
    const context = JSON.parse((await runProcess(["context", file, "--json"])).stdout)
    expect(view.model).toEqual(
      context.model === null ? null : {
        provider: context.model.provider,
        modelId: context.model.modelId
      }
    )
    expect(view.thinkingLevel).toBe(context.thinkingLevel)
    expect(Object.keys(view).sort()).toEqual(["messages", "model", "thinkingLevel"])
    for (const message of view.messages) {
      expect(["user", "assistant", "tool"]).toContain(message.role)
      expect(Array.isArray(message.content)).toBe(true)
      for (const block of message.content) {
        expect(["text", "thinking", "image", "tool_call", "tool_result"]).toContain(block.type)
      }
    }
    const calls = view.messages.flatMap((m: any) => m.content.filter((b: any) => b.type === "tool_call"))
    const results = view.messages.flatMap((m: any) => m.content.filter((b: any) => b.type === "tool_result"))
    expect(calls.length).toBeGreaterThan(0)
    expect(results.map((r: any) => r.toolCallId)).toEqual(calls.map((c: any) => c.id))
    expect(calls[0]).toEqual({
      type: "tool_call",
      id: calls[0].id,
      name: expect.any(String),
      arguments: expect.anything()
    })
    expect(view.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: context.messages[0].content }] })
    // the text of `context` is another thing
    expect((await runProcess(["context", file])).stdout).toMatch(/^thinking level /)
  })

  it("summaries become the user text the model reads", async () => {
    const file = copy("compactions")
    const view = JSON.parse((await runProcess(["context", file, "--llm"])).stdout)
    expect(view.messages[0].role).toBe("user")
    expect(view.messages[0].content[0].text).toMatch(/^The conversation history before this point was compacted/)
  })
})
