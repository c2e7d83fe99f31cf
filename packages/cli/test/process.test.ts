import { Synthetic } from "@branchlog/session-core/testing"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const dir = mkdtempSync(join(tmpdir(), "branchlog-process-"))

describe("the executable", () => {
  it("documents every command and the exit codes in --help, without colours when piped", async () => {
    const outcome = await runProcess(["--help"], { env: { NO_COLOR: "" } })
    expect(outcome.code).toBe(0)
    expect(outcome.stdout).not.toMatch(/\u001b\[/)
    for (
      const command of [
        "ls",
        "info",
        "show",
        "tree",
        "context",
        "branch",
        "label",
        "name",
        "fork",
        "append",
        "fsck",
        "repair",
        "migrate",
        "export"
      ]
    ) {
      expect(outcome.stdout).toMatch(new RegExp(`^  ${command} `, "m"))
    }
    expect(outcome.stdout.replace(/\s+/g, " ")).toContain(
      "Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error."
    )
  })

  it("prints its version and shell completions", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"))
    expect((await runProcess(["--version"])).stdout.trim()).toBe(version)
    expect((await runProcess(["--completions", "bash"])).stdout).toContain("_branchlog_bash_completions")
  })

  it("appends from stdin through the locked path, and every entry is on disk when it exits", async () => {
    const file = join(dir, "appended.jsonl")
    const messages = Array.from(
      { length: 20 },
      (_, i) => JSON.stringify({ role: "user", content: `message ${i}`, timestamp: i })
    )
    const outcome = await runProcess(["append", file], { input: messages.join("\n") + "\n" })
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(lines.filter((line) => line.type === "message").map((line) => line.message.content)).toEqual(
      messages.map((m) => JSON.parse(m).content)
    )
  })

  it("folds long linear runs so a 100k-entry tree stays readable", async () => {
    const file = join(dir, "big.jsonl")
    writeFileSync(file, Synthetic.toText(Synthetic.session({ entries: 100_000, seed: 3, branchRate: 0.0005 })))
    const outcome = await runProcess(["tree", file])
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = outcome.stdout.trimEnd().split("\n")
    expect(lines.length).toBeLessThan(5_000)
    expect(outcome.stdout).toMatch(/⋮ \d+ entries/)
    expect(outcome.stdout).toContain("◀ leaf")
  }, 120_000)

  it("keeps lines narrow when branches nest thousands deep, and prints listings of any length", async () => {
    // a branch point every ~50 entries: the current path nests under thousands of them
    const file = join(dir, "nested.jsonl")
    writeFileSync(file, Synthetic.toText(Synthetic.session({ entries: 60_000, seed: 5, branchRate: 0.02 })))
    const outcome = await runProcess(["tree", file])
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = outcome.stdout.trimEnd().split("\n")
    expect(lines.length).toBeGreaterThan(4096) // printed in several writes
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(260)
    expect(outcome.stdout).toMatch(/^«\d+» /m)
    expect(outcome.stdout).toContain("◀ leaf")
    const ids = new Set(lines.map((line) => /\b([0-9a-f]{8})\b/.exec(line)?.[1]).filter((id) => id !== undefined))
    const leaf = JSON.parse((await runProcess(["info", file, "--json"])).stdout).leafId
    expect(ids.has(leaf)).toBe(true)
  }, 120_000)

  it("reports a missing file in one line, without a stack trace", async () => {
    const outcome = await runProcess(["info", join(dir, "missing.jsonl")])
    expect(outcome.code).toBe(1)
    expect(outcome.stderr.trim().split("\n")).toEqual([`branchlog: ${join(dir, "missing.jsonl")}: no such file`])
  })
})
