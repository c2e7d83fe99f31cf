/**
 * What the CLI tests of each database store (`sqlite.test.ts`, `postgres.test.ts`) check the same
 * way, over real processes: a fixture copied into the store answers `context` / `tree` / `info
 * --json` through its reference as expected and comes back byte-identical; a folder copied in is
 * listed by `ls --store` and `$BRANCHLOG_STORE`, and `search` finds its messages, ranked, with
 * snippets.
 */
import { comparable, type Fixture, fixtures } from "@branchlog/tooling/fixtures"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, expect } from "vitest"
import { referenceShape, runProcess } from "./harness.js"

/** A temporary folder for the test file (removed after it) and a fresh case folder in it per call. */
export const caseFolders = (prefix: string) => {
  const temp = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(temp, { recursive: true, force: true }))
  let n = 0
  return {
    temp,
    fresh: () => {
      const dir = join(temp, `case-${++n}`)
      mkdirSync(dir)
      return dir
    }
  }
}

const all = fixtures()

/** The fixture of that name. */
export const pick = (name: string): Fixture => {
  const found = all.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no fixture ${name}`)
  return found
}

/** A current file, branches and labels, a torn last line and damaged rows, and a legacy (v1) file. */
export const roundTripFixtures = ["branching", "labels", "damaged-lines", "legacy-v1"].map(pick)

/**
 * Copies `fixture` (migrated first if legacy) into the store `destination` with `copy --json`:
 * `{from, to}` with `to` a reference of that store; the answers through `to` are the fixture's;
 * copied back to a file it is byte-identical; a second copy into the store is refused.
 */
export const fixtureRoundTrip = async (fixture: Fixture, destination: string, dir: string): Promise<void> => {
  const file = join(dir, "source.jsonl")
  writeFileSync(file, fixture.bytes)
  if (fixture.expected.mayRewrite === true) {
    const migrated = await runProcess(["migrate", file])
    expect(migrated.code, migrated.stderr).toBe(0)
  }
  const original = readFileSync(file)
  const copied = await runProcess(["copy", file, destination, "--json"])
  expect(copied.code, copied.stderr).toBe(0)
  const { from, to } = JSON.parse(copied.stdout) as { from: string; to: string }
  expect(from).toBe(file)
  expect(to.startsWith(`${destination}#`), to).toBe(true)
  for (const section of ["context", "tree", "info"] as const) {
    const outcome = await runProcess([section, to, "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const { got, want } = comparable(fixture, section, referenceShape(section, JSON.parse(outcome.stdout)))
    expect(got, section).toEqual(want)
  }
  const back = join(dir, "back.jsonl")
  const returned = await runProcess(["copy", to, back, "--json"])
  expect(returned.code, returned.stderr).toBe(0)
  expect(JSON.parse(returned.stdout)).toEqual({ from: to, to: back })
  expect(readFileSync(back).equals(original)).toBe(true)
  // the store holds the session already: a second copy there is refused
  const again = await runProcess(["copy", file, destination])
  expect(again.code).not.toBe(0)
}

/**
 * Copies a folder of current fixtures into the store `destination` (`copy DIR STORE --json`),
 * checks that `ls --store` and `$BRANCHLOG_STORE` list exactly the copies, that `search` finds the
 * longest word of their first messages (ranked, at most `--limit`, the match marked, each hit a
 * session `info` opens) and that a word nobody wrote finds nothing.
 */
export const folderImport = async (destination: string, from: string): Promise<void> => {
  const current = all.filter((f) => f.expected.mayRewrite !== true).slice(0, 8)
  for (const fixture of current) copyFileSync(fixture.path, join(from, `${fixture.name}.jsonl`))
  const copied = await runProcess(["copy", from, destination, "--json"])
  expect(copied.code, copied.stderr).toBe(0)
  const pairs = JSON.parse(copied.stdout) as Array<{ from: string; to: string }>
  expect(pairs.map((p) => p.from).sort()).toEqual(current.map((f) => join(from, `${f.name}.jsonl`)).sort())
  for (const pair of pairs) expect(pair.to.startsWith(`${destination}#`)).toBe(true)

  const listed = await runProcess(["ls", "--store", destination, "--json"])
  expect(listed.code, listed.stderr).toBe(0)
  const sessions = JSON.parse(listed.stdout) as Array<{ ref: string; path: string; firstMessage: string }>
  expect(sessions.map((s) => s.ref).sort()).toEqual(pairs.map((p) => p.to).sort())
  expect(sessions.map((s) => s.path).sort()).toEqual(pairs.map((p) => p.to).sort())
  const byEnv = await runProcess(["ls", "--json"], { env: { BRANCHLOG_STORE: destination } })
  expect(byEnv.code, byEnv.stderr).toBe(0)
  expect(JSON.parse(byEnv.stdout)).toEqual(sessions)

  const words = sessions.flatMap((s) => s.firstMessage.toLowerCase().match(/[a-z]{6,}/g) ?? [])
  const word = words.sort((a, b) => b.length - a.length)[0]
  expect(word).toBeDefined()
  const found = await runProcess(["search", word!, "--store", destination, "--json", "--limit", "5"])
  expect(found.code, found.stderr).toBe(0)
  const hits = JSON.parse(found.stdout) as Array<{ session: string; entryId: string; snippet: string; score: number }>
  expect(hits.length).toBeGreaterThan(0)
  expect(hits.length).toBeLessThanOrEqual(5)
  for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
  for (const hit of hits) {
    expect(hit.snippet).toMatch(/\[[^\]]+\]/)
    expect(pairs.map((p) => p.to)).toContain(hit.session)
    const shown = await runProcess(["info", hit.session, "--json"])
    expect(shown.code, shown.stderr).toBe(0)
  }
  expect(hits.some((hit) => hit.snippet.toLowerCase().includes(`[${word}]`))).toBe(true)
  const none = await runProcess(["search", "zzzqqqxxx", "--store", destination])
  expect(none.code).toBe(0)
  expect(none.stderr).toContain("no matches")
}
