/**
 * The CLI over SQLite references, as real processes on real files: `context` / `tree` /
 * `info --json` through `sqlite:PATH#ID` give a fixture's expected answers after `copy FILE
 * sqlite:PATH --json` (`{from, to}`, `to` the full reference), and `copy` back to a file is
 * byte-identical (a legacy fixture: to the file `migrate` made of it; a torn last line kept);
 * `copy DIR sqlite:PATH` imports a folder, `ls --store sqlite:PATH` and `$BRANCHLOG_STORE` list
 * it, and `search` finds messages in it, ranked, with snippets.
 */
import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const temp = mkdtempSync(join(tmpdir(), "branchlog-cli-sqlite-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
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

describe("branchlog over sqlite:PATH#ID (real processes)", () => {
  it.each(chosen.map((f) => [f.name, f] as const))(
    "%s: copy file → sqlite prints {from, to}; context/tree/info --json through the reference are the expected; copied back byte-identical",
    async (_, fixture) => {
      const dir = fresh()
      const file = join(dir, "source.jsonl")
      writeFileSync(file, fixture.bytes)
      if (fixture.expected.mayRewrite === true) {
        const migrated = await runProcess(["migrate", file])
        expect(migrated.code, migrated.stderr).toBe(0)
      }
      const original = readFileSync(file)
      const db = join(dir, "sessions.db")
      const copied = await runProcess(["copy", file, `sqlite:${db}`, "--json"])
      expect(copied.code, copied.stderr).toBe(0)
      const { from, to } = JSON.parse(copied.stdout) as { from: string; to: string }
      expect(from).toBe(file)
      expect(to).toMatch(new RegExp(`^sqlite:${db.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}#.+`))
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
      // the database is not a second copy's place: the session is there already
      const again = await runProcess(["copy", file, `sqlite:${db}`])
      expect(again.code).not.toBe(0)
    }
  )

  it("copy DIR sqlite:PATH imports a folder; ls --store and $BRANCHLOG_STORE list it; search finds its messages", async () => {
    const from = fresh()
    const current = all.filter((f) => f.expected.mayRewrite !== true).slice(0, 8)
    for (const fixture of current) copyFileSync(fixture.path, join(from, `${fixture.name}.jsonl`))
    const db = join(fresh(), "team.db")
    const copied = await runProcess(["copy", from, `sqlite:${db}`, "--json"])
    expect(copied.code, copied.stderr).toBe(0)
    const pairs = JSON.parse(copied.stdout) as Array<{ from: string; to: string }>
    expect(pairs.map((p) => p.from).sort()).toEqual(current.map((f) => join(from, `${f.name}.jsonl`)).sort())
    for (const pair of pairs) expect(pair.to.startsWith(`sqlite:${db}#`)).toBe(true)

    const listed = await runProcess(["ls", "--store", `sqlite:${db}`, "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    const sessions = JSON.parse(listed.stdout) as Array<{ path: string; id: string; messageCount: number }>
    expect(sessions.map((s) => s.path).sort()).toEqual(pairs.map((p) => p.to).sort())
    const byEnv = await runProcess(["ls", "--json"], { env: { BRANCHLOG_STORE: `sqlite:${db}` } })
    expect(byEnv.code, byEnv.stderr).toBe(0)
    expect(JSON.parse(byEnv.stdout)).toEqual(sessions)

    // a word of some session's first user message finds it, the word marked in the snippet
    const first = JSON.parse(listed.stdout)[0] as { firstMessage: string; path: string }
    const word = (first.firstMessage.match(/[a-z]{4,}/g) ?? [])[0]
    expect(word).toBeDefined()
    const found = await runProcess(["search", word!, "--store", `sqlite:${db}`, "--json", "--limit", "5"])
    expect(found.code, found.stderr).toBe(0)
    const hits = JSON.parse(found.stdout) as Array<{ session: string; entryId: string; snippet: string; score: number }>
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.length).toBeLessThanOrEqual(5)
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
    for (const hit of hits) {
      expect(hit.snippet.toLowerCase()).toContain(`[${word}]`)
      expect(pairs.map((p) => p.to)).toContain(hit.session)
      const shown = await runProcess(["info", hit.session, "--json"])
      expect(shown.code, shown.stderr).toBe(0)
    }
    const none = await runProcess(["search", "zzzqqqxxx", "--store", `sqlite:${db}`])
    expect(none.code).toBe(0)
    expect(none.stderr).toContain("no matches")
  })
})
