/**
 * The daily commands as a user meets them, in real processes with `$HOME` at a temporary folder:
 * `continue` / `--last`, session-id prefixes, pi's and OpenClaw's default folders, usage totals.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const home = mkdtempSync(join(tmpdir(), "branchlog-daily-"))
const project = join(home, "work", "project")
const other = join(home, "work", "other")
mkdirSync(project, { recursive: true })
mkdirSync(other, { recursive: true })
const enc = (cwd: string) => `--${cwd.replace(/^\//, "").replace(/[/\\:]/g, "-")}--`

/** A session of one user message and one reply, its activity at `minute`. */
const session = (id: string, cwd: string, minute: number, text: string) => {
  const at = Date.UTC(2026, 0, 1, 10, minute)
  const iso = new Date(at).toISOString()
  return [
    { type: "session", version: 3, id, timestamp: iso, cwd },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: iso,
      message: { role: "user", content: text, timestamp: at }
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: iso,
      message: {
        role: "assistant",
        content: [{ type: "text", text: `reply to ${text}` }],
        provider: "p",
        model: "m",
        usage: { input: 5, output: 7, cacheRead: 1, cacheWrite: 2, totalTokens: 15, cost: { total: 0.25 } },
        stopReason: "stop",
        timestamp: at
      }
    }
  ].map((line) => JSON.stringify(line)).join("\n") + "\n"
}

const put = (dir: string, name: string, text: string) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, name), text)
  return join(dir, name)
}

const ownDir = join(home, ".branchlog", "agent", "sessions", enc(project))
const piDir = join(home, ".pi", "agent", "sessions", enc(project))
const gatewayDir = join(home, ".openclaw", "agents", "main", "sessions")
const ownFile = put(ownDir, "own_aaaa1111-0000.jsonl", session("aaaa1111-0000", project, 1, "own older"))
const piFile = put(piDir, "pi_aaaa2222-0000.jsonl", session("aaaa2222-0000", project, 5, "pi newest"))
const gatewayFile = put(gatewayDir, "cccc3333-0000.jsonl", session("cccc3333-0000", project, 3, "gateway middle"))
put(gatewayDir, "dddd4444-0000.jsonl", session("dddd4444-0000", other, 9, "gateway other cwd"))
put(join(home, ".pi", "agent", "sessions", enc(other)), "x.jsonl", session("eeee5555-0000", other, 8, "pi other cwd"))

const env = {
  HOME: home,
  BRANCHLOG_AGENT_DIR: undefined,
  PI_CODING_AGENT_DIR: undefined,
  OPENCLAW_AGENT_DIR: undefined,
  BRANCHLOG_STORE: undefined
} as unknown as Record<string, string>
const run = (args: ReadonlyArray<string>, cwd = project) => runProcess(args, { cwd, env })

describe("continue and --last", () => {
  it("continue shows the most recent session of the working folder, from whichever tool's folder it is in", async () => {
    const outcome = await run(["continue"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toContain("pi newest")
    expect(outcome.stdout).toContain("reply to pi newest")
    expect(outcome.stderr).toContain(piFile)
    expect((await run(["continue"], other)).stdout).toContain("gateway other cwd")
  })

  it("--last on show, context and tree, and continue --json", async () => {
    expect((await run(["show", "--last"])).stdout).toContain("pi newest")
    const context = JSON.parse((await run(["context", "--last", "--json"])).stdout)
    expect(context.messages[0].content).toBe("pi newest")
    expect((await run(["tree", "--last"])).stdout).toContain("pi newest")
    const shown = JSON.parse((await run(["continue", "--json"])).stdout)
    expect(shown).toMatchObject({ file: piFile, sessionId: "aaaa2222-0000", leafId: "a1", bounded: false })
    expect(shown.entries.map((e: { id: string }) => e.id)).toEqual(["u1", "a1"])
  })

  it("a folder with no session: exit 1 naming the folders searched", async () => {
    const empty = join(home, "work", "empty")
    mkdirSync(empty, { recursive: true })
    const outcome = await run(["continue"], empty)
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toContain(`no session for ${empty}`)
    expect(outcome.stderr).toContain(join(".pi", "agent", "sessions", enc(empty)))
    expect((await run(["show", "--last", ownFile])).code).toBe(2)
    const none = await run(["show"])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain("a session is needed: FILE, a session id (prefix), or --last")
  })
})

describe("session-id prefixes", () => {
  it("a unique prefix opens that session, in any default folder", async () => {
    expect((await run(["show", "aaaa1"], other)).stdout).toContain("own older")
    expect((await run(["show", "cccc"], other)).stdout).toContain("gateway middle")
    expect(JSON.parse((await run(["info", "aaaa2222", "--json"], other)).stdout).id).toBe("aaaa2222-0000")
    expect((await run(["context", "eeee"])).stdout).toContain("pi other cwd")
    expect((await run(["tree", "dddd4444-0000"])).stdout).toContain("gateway other cwd")
  })

  it("an ambiguous prefix is refused with the candidates (exit 2)", async () => {
    const outcome = await run(["show", "aaaa"])
    expect(outcome.code).toBe(2)
    expect(outcome.stdout).toBe("")
    expect(outcome.stderr).toContain("ambiguous session id prefix, 2 sessions match")
    expect(outcome.stderr).toContain(`aaaa1111-0000 (${ownFile})`)
    expect(outcome.stderr).toContain(`aaaa2222-0000 (${piFile})`)
  })

  it("no match says so, and a path that does not exist is still no such file", async () => {
    const outcome = await run(["show", "ef958aa1"])
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toContain("ef958aa1: no such file, and no session id starts with it (searched ")
    expect(outcome.stderr).toContain(join(home, ".pi", "agent", "sessions"))
    const missing = await run(["show", "./nothing.jsonl"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("nothing.jsonl: no such file")
  })

  it("--dir limits the lookup to one folder", async () => {
    expect((await run(["show", "aaaa", "--dir", piDir])).stdout).toContain("pi newest")
    expect((await run(["show", "cccc", "--dir", piDir])).code).toBe(1)
  })
})

describe("session-id prefixes in $BRANCHLOG_STORE", () => {
  it("a prefix of a session held in a SQLite store opens it through its reference", async () => {
    const db = join(home, "team.db")
    const source = put(join(home, "to-copy"), "s.jsonl", session("9999abcd-0000", project, 2, "in the database"))
    const copied = await runProcess(["copy", source, `sqlite:${db}`, "--json"], { env })
    expect(copied.code, copied.stderr).toBe(0)
    const withStore = { ...env, BRANCHLOG_STORE: `sqlite:${db}` }
    const outcome = await runProcess(["show", "9999ab"], { cwd: other, env: withStore })
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toContain("in the database")
    const info = JSON.parse((await runProcess(["info", "9999ab", "--json"], { cwd: other, env: withStore })).stdout)
    expect(info.id).toBe("9999abcd-0000")
    // without the store, the prefix names nothing
    expect((await run(["show", "9999ab"])).code).toBe(1)
  })
})

describe("the default folders in ls", () => {
  it("ls lists branchlog's, pi's and OpenClaw's sessions of the working folder, newest first, writing nothing into theirs", async () => {
    const listed = JSON.parse((await run(["ls", "--json"])).stdout) as Array<{ id: string; path: string }>
    expect(listed.map((s) => s.id)).toEqual(["aaaa2222-0000", "cccc3333-0000", "aaaa1111-0000"])
    expect(listed.map((s) => s.path)).toEqual([piFile, gatewayFile, ownFile])
    // no catalog in theirs (a session's own sidecar index is there when a read command read it)
    const sessionFiles = (dir: string) => readdirSync(dir).filter((n) => !n.endsWith(".jsonl.index")).sort()
    expect(sessionFiles(piDir)).toEqual(["pi_aaaa2222-0000.jsonl"])
    expect(sessionFiles(gatewayDir)).toEqual(["cccc3333-0000.jsonl", "dddd4444-0000.jsonl"])
  })

  it("ls --all lists every session of every folder", async () => {
    const listed = JSON.parse((await run(["ls", "--all", "--json"])).stdout) as Array<{ id: string }>
    expect(listed.map((s) => s.id)).toEqual([
      "dddd4444-0000",
      "eeee5555-0000",
      "aaaa2222-0000",
      "cccc3333-0000",
      "aaaa1111-0000"
    ])
  })

  it("PI_CODING_AGENT_DIR moves pi's folder", async () => {
    const elsewhere = join(home, "pi-elsewhere")
    put(join(elsewhere, "sessions", enc(project)), "moved.jsonl", session("ffff6666-0000", project, 30, "moved pi"))
    const outcome = await runProcess(["continue"], { cwd: project, env: { ...env, PI_CODING_AGENT_DIR: elsewhere } })
    expect(outcome.stdout).toContain("moved pi")
    expect(existsSync(join(home, ".pi", "agent", "sessions", enc(project), "moved.jsonl"))).toBe(false)
  })
})

describe("usage totals in info", () => {
  const fixtures = join(import.meta.dirname, "..", "..", "..", "fixtures", "differential")
  const files = readdirSync(fixtures).filter((name) => /^differential-pi16-.*\.jsonl$/.test(name))

  /** The sums computed from the raw lines: every entry, and the path from the last entry up its parents. */
  const expected = (text: string) => {
    const rows = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l)).filter((r) =>
      r.type !== "session"
    )
    const usageOf = (r: any) =>
      r.type === "message" ? (r.message?.role === "assistant" ? r.message.usage : undefined) : r.type === "usage" ||
          r.type === "compaction" || r.type === "branch_summary"
        ? r.usage
        : undefined
    const sum = (rs: Array<any>) => {
      const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, records: 0 }
      for (const r of rs) {
        const u = usageOf(r)
        if (u === undefined || u === null) continue
        t.input += u.input ?? 0
        t.output += u.output ?? 0
        t.cacheRead += u.cacheRead ?? 0
        t.cacheWrite += u.cacheWrite ?? 0
        t.totalTokens += u.totalTokens ?? 0
        t.cost += u.cost?.total ?? 0
        t.records++
      }
      return t
    }
    const byId = new Map(rows.map((r) => [r.id, r]))
    const path: Array<any> = []
    for (let r = rows[rows.length - 1]; r !== undefined; r = r.parentId == null ? undefined : byId.get(r.parentId)) {
      path.push(r)
    }
    return { all: sum(rows), activePath: sum(path) }
  }

  it(`matches the sums of each pi 1.6 session's own lines (${files.length} sessions)`, async () => {
    expect(files.length).toBeGreaterThan(10)
    let withUsageEntries = 0
    for (const name of files) {
      // a copy: a read command writes the sidecar index beside the session, never into the fixtures
      const file = join(home, name)
      writeFileSync(file, readFileSync(join(fixtures, name)))
      const want = expected(readFileSync(file, "utf8"))
      const outcome = await run(["info", file, "--json", "--full"])
      expect(outcome.code, outcome.stderr).toBe(0)
      const { usage } = JSON.parse(outcome.stdout)
      for (const scope of ["all", "activePath"] as const) {
        const got = usage[scope]
        const { records, ...sums } = want[scope]
        expect({ ...got, cost: Number(got.cost.toFixed(9)) }, `${name} ${scope}`).toMatchObject({
          ...sums,
          cost: Number(sums.cost.toFixed(9))
        })
        expect(got.assistantMessages + got.usageEntries + got.summaries, `${name} ${scope}`).toBe(records)
      }
      if (usage.all.usageEntries > 0) withUsageEntries++
    }
    expect(withUsageEntries).toBeGreaterThan(5)
  }, 120_000)

  it("prints the totals for people, over all entries and the active path (--full; from the index, a pointer to it)", async () => {
    const indexed = await run(["info", ownFile])
    expect(indexed.stdout).toContain("`branchlog info --full` gives the totals")
    const outcome = await run(["info", ownFile, "--full"])
    expect(outcome.stdout).toContain(
      "usage    all entries: 15 tokens (input 5, output 7, cache read 1, cache write 2), cost 0.25 from 1 assistant message(s)"
    )
    expect(outcome.stdout).toMatch(/^ +active path: 15 tokens/m)
  })
})
