import { createHash } from "node:crypto"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const samples = resolve(import.meta.dirname, "..", "..", "importers", "test", "fixtures")
const temp = mkdtempSync(join(tmpdir(), "branchlog-cli-import-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let n = 0
const fresh = () => join(temp, `case-${++n}`)

const hashes = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      out[join(e.parentPath, e.name)] = createHash("sha256").update(readFileSync(join(e.parentPath, e.name))).digest(
        "hex"
      )
    }
  }
  return out
}
const json = (outcome: { stdout: string }) => JSON.parse(outcome.stdout)

describe("branchlog import (a real process over real files)", () => {
  it("prints the issue's --json shape, and the session opens in context and tree with the source's conversation", async () => {
    const src = fresh()
    cpSync(join(samples, "claude-code"), src, { recursive: true })
    const before = hashes(src)
    const out = fresh()
    const file = join(src, "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b.jsonl")
    const outcome = await runProcess(["import", file, "--out", out, "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const report = json(outcome)
    expect(Object.keys(report)).toEqual(["format", "from", "to", "sessionId", "entries", "skipped", "warnings"])
    expect(report).toMatchObject({
      format: "claude-code",
      from: file,
      sessionId: "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b",
      entries: 11
    })
    expect(report.skipped).toEqual([
      { line: 15, reason: "unknown record type \"mystery-record\" (at byte 7776)" },
      { line: 21, reason: expect.stringMatching(/^torn last line .* \(at byte 10934\)$/) }
    ])
    expect(report.warnings).toContain("dropped 1 progress records")
    expect(outcome.stderr).toMatch(/subagent session 7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b-agent-a7f3c21: /)
    expect(hashes(src)).toEqual(before)

    const context = json(await runProcess(["context", report.to, "--json"]))
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary", tokensBefore: 155321 })
    expect(context.messages[1]).toMatchObject({ role: "user", content: "Apply the guard and run the tests." })
    expect(context.messages.at(-1).content).toEqual([
      { type: "text", text: "Applying the guard now." },
      expect.objectContaining({ type: "toolCall", id: "toolu_02Edit" })
    ])
    expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-opus-4-5-20251101" })
    const tree = json(await runProcess(["tree", report.to, "--json"]))
    expect(tree.roots).toHaveLength(1)
    expect(tree.leafId).toBe(context.messages.length > 0 ? tree.nodes.at(-1).id : null)
    const fsck = await runProcess(["fsck", out])
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0)

    // again: the same files, nothing written twice
    const written = hashes(out)
    const again = json(await runProcess(["import", file, "--out", out, "--json"]))
    expect(again.to).toBe(report.to)
    expect(hashes(out)).toEqual(written)
    expect(again.warnings.at(-1)).toMatch(/entries were already in/)
  })

  it("imports a Codex rollout into branchlog's session folder for its cwd by default", async () => {
    const agent = fresh()
    const file = join(samples, "codex", "rollout-2025-11-03T08-00-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl")
    const outcome = await runProcess(["import", file, "--json"], { env: { BRANCHLOG_AGENT_DIR: agent } })
    expect(outcome.code, outcome.stderr).toBe(0)
    const report = json(outcome)
    expect(report.to.startsWith(join(agent, "sessions"))).toBe(true)
    const ls = json(
      await runProcess(["ls", "--cwd", "/home/dev/projects/api", "--json"], { env: { BRANCHLOG_AGENT_DIR: agent } })
    )
    expect(ls.map((s: { id: string }) => s.id)).toEqual(["019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"])
    const context = json(await runProcess(["context", report.to, "--json"]))
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-5.1-codex-max" })
    expect(context.messages.at(-2)).toMatchObject({ role: "user" })
    const md = join(fresh() + ".md")
    expect((await runProcess(["export", report.to, "--md", md])).code).toBe(0)
    expect(readFileSync(md, "utf8")).toContain("Imported from codex 0\\.63\\.0\\:")
    const html = join(fresh() + ".html")
    expect((await runProcess(["export", report.to, "--html", html])).code).toBe(0)
    expect(readFileSync(html, "utf8")).toContain(
      `<p class="meta provenance">Imported from codex 0.63.0: ${file} (session 019a2d7a-41c4-78b1-b7cc-a45d62a89cd5)</p>`
    )
  })

  it("imports an OpenClaw agent database (an array: one object per session), leaving its folder as it was", async () => {
    const src = fresh()
    cpSync(join(samples, "openclaw"), src, { recursive: true })
    const before = hashes(src)
    const outcome = await runProcess(["import", join(src, "openclaw-agent.sqlite"), "--out", fresh(), "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const reports = json(outcome)
    expect(reports).toHaveLength(7)
    for (const r of reports) expect(r).toMatchObject({ format: "openclaw", skipped: [] })
    expect(hashes(src)).toEqual(before)
    const side = reports.find((r: { sessionId: string }) => r.sessionId === "019e01d1-88a4-70ef-82a5-f99f7bb08c13")
    const tree = json(await runProcess(["tree", side.to, "--json"]))
    expect(tree.leafId).toBe("725e6f75")
  })

  it("exits 1 naming the file for a source of no known format, 2 for an unknown --format", async () => {
    const bad = await runProcess(["import", join(samples, "make-samples.py")])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(
      /make-samples\.py: not a Claude Code transcript, a Codex rollout or an OpenClaw agent database/
    )
    const usage = await runProcess(["import", join(samples, "make-samples.py"), "--format", "gemini"])
    expect(usage.code).toBe(2)
  })

  it("prints one line per session for what it skipped and left out (--verbose: every one), and shows thinking-only turns as (thinking)", async () => {
    const src = fresh()
    mkdirSync(src)
    const file = join(src, "5e551011-0000-4000-8000-000000000000.jsonl")
    const base = { sessionId: "5e551011-0000-4000-8000-000000000000", cwd: "/w", version: "2.1.37", isSidechain: false }
    const rows = [
      { ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "think first" } },
      ...[1, 2, 3].map((i) => ({
        ...base,
        type: "progress",
        uuid: `p${i}`,
        parentUuid: "u1",
        data: { type: "hook_progress" }
      })),
      {
        ...base,
        type: "assistant",
        uuid: "a1",
        parentUuid: "p3",
        message: {
          id: "msg_1",
          role: "assistant",
          model: "claude-opus-4-5-20251101",
          content: [{ type: "redacted_thinking", data: "opaque" }],
          stop_reason: "end_turn"
        }
      },
      { type: "mystery-record", uuid: "m1" }
    ]
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
    const out = join(fresh(), "s.jsonl")
    const quiet = await runProcess(["import", file, "--out", out])
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr.trim().split("\n")).toEqual([
      `${file}: 1 skipped, 3 records left out on purpose (--verbose lists them)`
    ])
    const loud = await runProcess(["import", file, "--out", join(fresh(), "s.jsonl"), "--verbose"])
    expect(loud.stderr).toMatch(/:6: skipped: unknown record type "mystery-record"/)
    expect(loud.stderr).toMatch(/dropped 3 progress records/)
    const tree = await runProcess(["tree", out])
    expect(tree.stdout).toMatch(/assistant: \(thinking\)/)
    const show = await runProcess(["show", out])
    expect(show.stdout).toMatch(/assistant[^\n]*\n  \(thinking\)/)
  })

  it("writes a subagent file imported alone to the --out FILE given, and nothing beside it", async () => {
    const src = join(samples, "claude-code", "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b", "subagents", "agent-a7f3c21.jsonl")
    const dir = fresh()
    const out = join(dir, "agent.jsonl")
    const outcome = await runProcess(["import", src, "--out", out, "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(json(outcome).to).toBe(out)
    expect(readdirSync(dir)).toEqual(["agent.jsonl"])
  })
})
