/** `--help` a person can read: one line per flag, the global flags listed once, examples; real processes. */
import { describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const commands = [
  "demo",
  "run",
  "ls",
  "info",
  "tree",
  "context",
  "show",
  "continue",
  "branch",
  "label",
  "name",
  "fork",
  "append",
  "fsck",
  "repair",
  "migrate",
  "export",
  "import",
  "copy",
  "search",
  "follow"
]
const env = { COLUMNS: "" } as Record<string, string>
const noise = ["A true or false value", "This setting is optional", "A user-defined piece of text", "--wizard"]

describe("--help", () => {
  it("the overview: every command on one line, the global flags once, examples, the exit codes", async () => {
    const outcome = await runProcess(["--help"], { env })
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = outcome.stdout.trimEnd().split("\n")
    expect(lines.length).toBeLessThan(70)
    for (const command of commands) {
      expect(lines.filter((line) => new RegExp(`^  ${command} +\\S`).test(line)), command).toHaveLength(1)
    }
    for (const flag of ["--verbose", "--lock-timeout DURATION", "-h, --help", "--version", "--completions"]) {
      expect(lines.filter((line) => line.startsWith(`  ${flag}`)), flag).toHaveLength(1)
    }
    expect(outcome.stdout).toContain("Global flags (anywhere on the line):")
    expect(outcome.stdout).toMatch(/Examples:\n  branchlog continue +the latest session/)
    expect(outcome.stdout.replace(/\s+/g, " ")).toContain(
      "Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error."
    )
    for (const phrase of noise) expect(outcome.stdout).not.toContain(phrase)
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80)
    // no arguments at all: the same overview
    expect((await runProcess([], { env })).stdout).toBe(outcome.stdout)
  })

  it("each command's help: its usage, each flag on one line, no built-ins repeated, within the width", async () => {
    for (const command of commands) {
      const outcome = await runProcess([command, "--help"], { env })
      expect(outcome.code, `${command}: ${outcome.stderr}`).toBe(0)
      const lines = outcome.stdout.trimEnd().split("\n")
      expect(lines[0]).toMatch(new RegExp(`^Usage: branchlog ${command}\\b`))
      const usage = outcome.stdout.slice(0, outcome.stdout.indexOf("\n\n"))
      const flags = [...usage.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]!)
      for (const flag of flags) {
        expect(lines.filter((line) => line === `  ${flag}` || line.startsWith(`  ${flag} `)), `${command} ${flag}`)
          .toHaveLength(1)
      }
      expect(lines.filter((line) => line.startsWith("Global flags: --verbose, --lock-timeout"))).toHaveLength(1)
      for (const phrase of noise) expect(outcome.stdout, command).not.toContain(phrase)
      expect(Math.max(...lines.map((line) => line.length)), command).toBeLessThanOrEqual(80)
      expect(lines.length, command).toBeLessThan(45)
    }
  }, 120_000)

  it("show's flags and examples; help COMMAND and -h say the same; a narrow terminal wraps", async () => {
    const shown = await runProcess(["show", "--help"], { env })
    expect(shown.stdout.replace(/\s+/g, " ")).toContain(
      "Usage: branchlog show [FILE|ID] [--last] [--dir DIR] [--leaf ID] [--full] [--json]"
    )
    expect(shown.stdout).toMatch(/^  --last +the most recent session of the working folder/m)
    expect(shown.stdout).toMatch(/^  branchlog show ef958aa1 +by id prefix$/m)
    expect((await runProcess(["help", "show"], { env })).stdout).toBe(shown.stdout)
    expect((await runProcess(["show", "-h"], { env })).stdout).toBe(shown.stdout)
    // what the descriptors hold: value names, choices and defaults
    const run = (await runProcess(["run", "--help"], { env })).stdout
    expect(run).toMatch(/^  --max-retries N +retries of a model call .*\(default: 4\)/ms)
    expect(run).toMatch(/^  --model scripted\|openai-compatible/m)
    expect(run).toMatch(/^  PROMPT\b/m)
    expect((await runProcess(["fsck", "--help"], { env })).stdout).toMatch(/^  FILE\|DIR\.\.\. +session files/m)
    const narrow = await runProcess(["import", "--help"], { env: { COLUMNS: "60" } })
    expect(Math.max(...narrow.stdout.trimEnd().split("\n").map((line) => line.length))).toBeLessThanOrEqual(60)
  })

  it("help for a command that does not exist: the overview on stdout, exit 2", async () => {
    const outcome = await runProcess(["help", "nope"], { env })
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toContain("no command \"nope\"")
    expect(outcome.stdout).toContain("Commands:")
  })
})
