/** `-` as an output path means stdout (`import --out -`), in real processes. */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const samples = resolve(import.meta.dirname, "..", "..", "importers", "test", "fixtures")
const temp = mkdtempSync(join(tmpdir(), "branchlog-cli-stdout-"))

describe("import --out -", () => {
  it("prints the one session on stdout, byte for byte what an import to a folder writes, and creates no file named -", async () => {
    const src = join(samples, "codex", "rollout-2025-11-03T08-00-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl")
    const outcome = await runProcess(["import", src, "--out", "-"], { cwd: temp })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stderr).toMatch(/codex \S+: \d+ entries → stdout/)
    const folder = join(temp, "folder")
    const written = JSON.parse((await runProcess(["import", src, "--out", folder, "--json"])).stdout)
    expect(outcome.stdout).toBe(readFileSync(written.to, "utf8"))
    expect(JSON.parse(outcome.stdout.split("\n")[0]!)).toMatchObject({ type: "session", id: written.sessionId })
    expect(existsSync(join(temp, "-"))).toBe(false)
    expect(readdirSync(temp)).toEqual(["folder"])
  })

  it("a session with subagents: the main session on stdout, the subagents named on stderr", async () => {
    const src = join(temp, "cc")
    cpSync(join(samples, "claude-code"), src, { recursive: true })
    const file = join(src, "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b.jsonl")
    const outcome = await runProcess(["import", file, "--out", "-"], { cwd: temp })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(JSON.parse(outcome.stdout.split("\n")[0]!)).toMatchObject({ id: "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b" })
    expect(outcome.stderr).toMatch(/subagent of 7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b, not printed/)
  })

  it("refuses a source of several sessions, and --json beside it (exit 2, nothing on stdout)", async () => {
    const several = await runProcess(["import", join(samples, "codex"), "--out", "-"], { cwd: temp })
    expect(several.code).toBe(2)
    expect(several.stdout).toBe("")
    expect(several.stderr).toContain("--out - prints one session, and this source holds 2")
    const both = await runProcess(["import", join(samples, "codex"), "--out", "-", "--json"], { cwd: temp })
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("--json cannot go there too")
  })
})

describe("copy SRC -", () => {
  it("prints the session's lines on stdout, byte for byte, and creates no file named -; --json beside it is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "branchlog-cli-copy-stdout-"))
    const src = join(dir, "s.jsonl")
    cpSync(
      resolve(import.meta.dirname, "..", "..", "..", "fixtures", "differential", "differential-pi16-1173.jsonl"),
      src
    )
    const outcome = await runProcess(["copy", src, "-"], { cwd: dir })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toBe(readFileSync(src, "utf8"))
    expect(outcome.stderr).toMatch(/→ stdout \(\d+ rows\)/)
    expect(readdirSync(dir).filter((n) => n === "-")).toEqual([])
    const both = await runProcess(["copy", src, "-", "--json"], { cwd: dir })
    expect(both.code).toBe(2)
    expect(both.stdout).toBe("")
  })
})
