/** Human output fits the terminal: its width on a terminal, 80 in a pipe, `$COLUMNS` over both; real processes. */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bin, runProcess } from "./support/harness.js"

const dir = mkdtempSync(join(tmpdir(), "branchlog-width-"))
const sessions = join(dir, "sessions")
mkdirSync(sessions)
const long = (word: string) => Array.from({ length: 80 }, (_, i) => `${word}${i}`).join(" ")
const file = join(sessions, "long.jsonl")
writeFileSync(
  file,
  [
    { type: "session", version: 3, id: "01-width", timestamp: "2026-01-01T00:00:00.000Z", cwd: dir },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: long("ask"), timestamp: 1 }
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: "2026-01-01T00:00:02.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: long("say") }],
        provider: "p",
        model: "m",
        timestamp: 2
      }
    }
  ].map((l) => JSON.stringify(l)).join("\n") + "\n"
)
const env = { COLUMNS: "" } as Record<string, string>
/** The longest line (a progress bar that a terminal shows on stderr, then erases, left out). */
const widest = (text: string, keep: (line: string) => boolean = () => true) =>
  Math.max(
    ...text.trimEnd().split(/\r?\n/).map((line) => line.slice(line.lastIndexOf("\u001b[K") + 1 || 0)).filter(keep).map(
      (line) => line.replace(/^\[K/, "").length
    )
  )
const listed = (line: string) => !line.startsWith("  /") // ls's second line is the path, never cut

describe("output width", () => {
  it("in a pipe: 80 columns", async () => {
    expect(widest((await runProcess(["context", file], { env })).stdout)).toBe(80)
    expect(widest((await runProcess(["tree", file], { env })).stdout)).toBeLessThanOrEqual(80)
    expect(widest((await runProcess(["tree", file], { env })).stdout)).toBeGreaterThan(70)
    expect(widest((await runProcess(["ls", "--dir", sessions], { env })).stdout, listed)).toBe(80)
  })

  it("$COLUMNS sets it", async () => {
    for (const columns of [60, 132, 200]) {
      const e = { COLUMNS: String(columns) }
      expect(widest((await runProcess(["context", file], { env: e })).stdout)).toBe(columns)
      expect(widest((await runProcess(["ls", "--dir", sessions], { env: e })).stdout, listed)).toBe(columns)
      const tree = widest((await runProcess(["tree", file], { env: e })).stdout)
      expect(tree).toBeLessThanOrEqual(columns)
      expect(tree).toBeGreaterThan(columns - 12)
    }
  })

  it.skipIf(spawnSync("script", ["--version"]).status !== 0)("on a terminal: the terminal's width", () => {
    const shell = (command: string) =>
      execFileSync("script", ["-qec", `stty cols 111 rows 40; ${command}`, "/dev/null"], {
        env: { ...process.env, COLUMNS: "", NO_COLOR: "1" },
        encoding: "utf8"
      })
    expect(widest(shell(`${JSON.stringify(process.execPath)} ${bin} context ${file}`))).toBe(111)
    expect(widest(shell(`${JSON.stringify(process.execPath)} ${bin} ls --dir ${sessions}`), listed)).toBe(111)
  })
})
