/**
 * The progress line of a long read of one file (issue 27): past its delay, "reading FILE: done of
 * total (percent), rate" on stderr; on a terminal only (a real pseudo-terminal through `script`),
 * never on a pipe and never with `--json`.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bytesLine } from "../src/internal/fileProgress.js"
import { bin, runProcess } from "./support/harness.js"

const temp = mkdtempSync(join(tmpdir(), "branchlog-progress-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
const file = join(temp, "session.jsonl")
cpSync(resolve(import.meta.dirname, "..", "..", "..", "fixtures", "differential", "differential-pi16-1173.jsonl"), file)

const stream = (isTTY = true) => {
  const writes: Array<string> = []
  return { writes, isTTY, write: (text: string) => writes.push(text) }
}

describe("bytesLine", () => {
  it("shows nothing before its delay, then done of total with the rate, at most every 100 ms; clears what it drew", () => {
    const out = stream()
    let clock = 0
    const line = bytesLine("big.jsonl", 400e6, out, { showAfterMs: 1000, now: () => clock })
    clock = 500
    line.update(100e6)
    expect(out.writes).toEqual([])
    clock = 2000
    line.update(200e6)
    clock = 2050
    line.update(210e6)
    clock = 2100
    line.update(220e6)
    expect(out.writes).toEqual([
      "\rreading big.jsonl: 200 MB of 400 MB (50%), 100 MB/s\u001b[K",
      "\rreading big.jsonl: 220 MB of 400 MB (55%), 105 MB/s\u001b[K"
    ])
    line.end()
    expect(out.writes.at(-1)).toBe("\r\u001b[K")
  })

  it("a read that ends before its delay leaves nothing on the terminal", () => {
    const out = stream()
    let clock = 0
    const line = bytesLine("small.jsonl", 1000, out, { now: () => clock })
    clock = 10
    line.update(1000)
    line.end()
    expect(out.writes).toEqual([])
  })
})

describe("the progress line of a real process", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0
  const onTerminal = (args: string) =>
    execFileSync("script", ["-qec", `${JSON.stringify(process.execPath)} ${bin} ${args}`, "/dev/null"], {
      env: { ...process.env, BRANCHLOG_PROGRESS_AFTER_MS: "0", NO_COLOR: "1" },
      encoding: "utf8"
    })

  it.skipIf(!hasScript)("shows on a terminal, for fsck and a full read, and not with --json", () => {
    expect(onTerminal(`fsck ${file}`)).toMatch(/reading session\.jsonl: [\d.]+ MB of [\d.]+ MB \(\d+%\), [\d.]+ MB\/s/)
    expect(onTerminal(`context ${file} --full --no-index`)).toMatch(/reading session\.jsonl: .* MB\/s/)
    expect(onTerminal(`context ${file} --full --json`)).not.toMatch(/reading session\.jsonl/)
  })

  it("never on a pipe", async () => {
    const env = { BRANCHLOG_PROGRESS_AFTER_MS: "0" }
    for (const args of [["fsck", file], ["context", file, "--full"]]) {
      const outcome = await runProcess(args, { env })
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stderr + outcome.stdout).not.toMatch(/reading session\.jsonl/)
    }
  })
})
