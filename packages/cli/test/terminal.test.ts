/**
 * Terminal escape injection: a session's escapes (clear screen, OSC 52 clipboard write, title, OSC
 * 8 link, C1 CSI, BEL, DEL, CR) never reach the terminal raw from any command's human output, in
 * a pipe or on a terminal; the real executable runs each command on a hostile session.
 */
import { spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bin, type Outcome, runProcess } from "./support/harness.js"
import { ids, sessionText } from "./support/hostile.js"

const dir = mkdtempSync(join(tmpdir(), "branchlog-terminal-"))
const sessions = join(dir, "sessions")
mkdirSync(sessions)
const file = join(sessions, "hostile.jsonl")
writeFileSync(file, sessionText())
/** The hostile session with damage that fsck reports: a corrupt line, a dangling label, an orphan. */
const damaged = join(dir, "damaged.jsonl")
writeFileSync(
  damaged,
  sessionText() +
    "{\"type\":\"message\",\"id\":\"\u001b]0;corrupt\u0007\u009b2J\",\"parentId\":null\n" +
    JSON.stringify({
      type: "label",
      id: "label\u001b]0;x\u0007",
      parentId: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      targetId: "gone\u001b]52;c;eA==\u0007",
      label: "l\u001b[2J"
    }) + "\n" +
    JSON.stringify({
      type: "message",
      id: "orphan\u001b[2J",
      parentId: "nowhere\u001b]0;t\u0007",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: "x", timestamp: 1 }
    }) + "\n"
)
let copies = 0
/** A fresh copy of the hostile session, for a command that writes. */
const copy = () => {
  const path = join(dir, `copy-${++copies}.jsonl`)
  copyFileSync(file, path)
  return path
}

/** Control characters but newline and tab: ESC, BEL, CR, the rest of C0, DEL, C1. */
const rawControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

/** The first raw control character of `text` and what is around it, or `undefined`. */
const firstRaw = (text: string): string | undefined => {
  const at = text.search(rawControl)
  return at < 0 ? undefined : JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))
}

/** Each command's human output over the hostile session: what runs, and what must be seen. */
const commands: ReadonlyArray<
  { readonly args: () => ReadonlyArray<string>; readonly shows: string; readonly code?: number }
> = [
  { args: () => ["tree", file], shows: "␛]52;c;" },
  { args: () => ["show", file], shows: "␛]52;c;" },
  { args: () => ["context", file], shows: "␛]52;c;" },
  // --llm prints JSON: escaped as JSON escapes it
  { args: () => ["context", file, "--llm"], shows: "\\u001b]52;c;" },
  { args: () => ["info", file], shows: "␛]0;t␇session-id" },
  { args: () => ["ls", "--dir", sessions], shows: "␛]0;t␇" },
  { args: () => ["fsck", damaged], shows: "gone␛]52;c;eA==␇", code: 1 },
  {
    args: () => ["label", copy(), ids.assistant, "label\u001b]52;c;eA==\u0007\u009b2J"],
    shows: "label␛]52;c;eA==␇\\x9b2J"
  },
  { args: () => ["name", copy(), "name\u001b]0;title\u0007"], shows: "name␛]0;title␇" },
  { args: () => ["branch", copy(), ids.side], shows: "id-side␛[2J" },
  { args: () => ["branch", copy(), ids.side, "--summary", "s\u001b[2J"], shows: "id-side␛[2J" },
  // errors: an unknown entry, a missing file, a bad input line
  { args: () => ["label", copy(), "nope\u001b]52;c;eA==\u0007"], shows: "no entry nope␛]52;c;eA==␇", code: 2 },
  {
    args: () => ["info", join(dir, "missing\u001b]0;t\u0007.jsonl")],
    shows: "missing␛]0;t␇.jsonl: no such file",
    code: 1
  },
  {
    args: () => ["export", join(dir, "missing\u001b[2J.jsonl"), "--md", join(dir, "x.md")],
    shows: "missing␛[2J",
    code: 1
  }
]

const check = (args: ReadonlyArray<string>, outcome: Outcome, shows: string) => {
  const what = `${args[0]}: ${outcome.stderr.slice(0, 300)}`
  expect(firstRaw(outcome.stdout.replace(/[\n\t]/g, "")), what).toBeUndefined()
  expect(firstRaw(outcome.stderr.replace(/[\n\t]/g, "")), what).toBeUndefined()
  expect(outcome.stdout + outcome.stderr, what).toContain(shows)
}

describe("human output through a pipe", () => {
  it("shows every control character of a hostile session, from every command, errors included", async () => {
    for (const { args: make, code = 0, shows } of commands) {
      const args = make()
      // NO_COLOR empty: colours would be allowed, but a pipe is not a terminal
      const outcome = await runProcess(args, { env: { NO_COLOR: "" } })
      expect(outcome.code, `${args[0]}: ${outcome.stderr.slice(0, 300)}`).toBe(code)
      check(args, outcome, shows)
    }
  }, 180_000)

  it("shows them in a bad input line's error, from append's stdin", async () => {
    const outcome = await runProcess(["append", join(dir, "appended.jsonl")], {
      input: "\u001b]0;x\u0007 not json\n"
    })
    expect(outcome.code).toBe(2)
    check(["append"], outcome, "␛]0;x␇")
  })

  it("keeps --json exact: the same values, and no raw control character either", async () => {
    const outcome = await runProcess(["tree", file, "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(firstRaw(outcome.stdout.replace(/[\n\t]/g, ""))).toBeUndefined()
    const tree = JSON.parse(outcome.stdout)
    expect(new Set(tree.nodes.map((node: { id: string }) => node.id))).toEqual(new Set(Object.values(ids)))
    const info = JSON.parse((await runProcess(["info", file, "--json"])).stdout)
    expect(info.id).toBe(JSON.parse(readFileSync(file, "utf8").split("\n")[0]!).id)
  })
})

let terminals = 0
/** Runs `branchlog ARGS` with stdout on a pseudo-terminal (util-linux `script`), colours allowed; stderr to a file. */
const onTerminal = (args: ReadonlyArray<string>): Promise<Outcome> => {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`
  const errors = join(dir, `terminal-${++terminals}.stderr`)
  const line = `${[process.execPath, bin, ...args].map(quote).join(" ")} 2>${quote(errors)}`
  const env: Record<string, string | undefined> = { ...process.env, TERM: "xterm-256color" }
  delete env.NO_COLOR
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", line, "/dev/null"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, stdout: out, stderr: readFileSync(errors, "utf8") })
    })
  })
}

/** The command's own styling: the SGR sequences of `style.ts`, nothing else. */
const ownStyling = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g

describe("human output on a terminal", () => {
  it("has the command's own colours and no other escape", async () => {
    const runs = [
      { args: ["tree", file], styled: true },
      { args: ["show", file], styled: true },
      { args: ["ls", "--dir", sessions], styled: true },
      { args: ["context", file], styled: false },
      { args: ["info", file], styled: false },
      { args: ["fsck", damaged], styled: false }
    ]
    for (const { args, styled } of runs) {
      const outcome = await onTerminal(args)
      const styling = outcome.stdout.match(ownStyling)?.length ?? 0
      if (styled) expect(styling, args[0]).toBeGreaterThan(0)
      // the terminal writes a newline as CRLF
      const rest = outcome.stdout.replace(ownStyling, "").replace(/\r\n/g, "\n")
      expect(firstRaw(rest.replace(/[\n\t]/g, "")), args[0]).toBeUndefined()
      expect(rest, args[0]).toContain("␛")
      expect(firstRaw(outcome.stderr.replace(/[\n\t]/g, "")), args[0]).toBeUndefined()
    }
  }, 180_000)
})
