/**
 * The commands across stores over real processes and real files: `copy` (a session to a file or
 * into a folder, byte for byte; a folder of sessions into another), `ls --store` and
 * `$BRANCHLOG_STORE`, `search`, and the clear error for a reference whose backend is absent.
 */
import { fixtures } from "@branchlog/tooling/fixtures"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const temp = mkdtempSync(join(tmpdir(), "branchlog-cli-stores-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const dir = join(temp, `case-${++n}`)
  mkdirSync(dir)
  return dir
}
const current = fixtures().filter((f) => f.expected.mayRewrite !== true).slice(0, 6)

describe("branchlog copy / ls --store / search (real processes)", () => {
  it("copies a session to a file and into a folder, byte for byte, and prints {from, to} with --json", async () => {
    const dir = fresh()
    const fixture = current[0]!
    const source = join(dir, "source.jsonl")
    writeFileSync(source, fixture.bytes)
    const toFile = await runProcess(["copy", source, join(dir, "copy.jsonl"), "--json"])
    expect(toFile.code, toFile.stderr).toBe(0)
    expect(JSON.parse(toFile.stdout)).toEqual({ from: source, to: join(dir, "copy.jsonl") })
    expect(readFileSync(join(dir, "copy.jsonl")).equals(fixture.bytes)).toBe(true)

    const into = fresh()
    const toFolder = await runProcess(["copy", source, into, "--json"])
    expect(toFolder.code, toFolder.stderr).toBe(0)
    const { to } = JSON.parse(toFolder.stdout) as { to: string }
    expect(readdirSync(into)).toEqual([to.slice(into.length + 1)])
    expect(readFileSync(to).equals(fixture.bytes)).toBe(true)

    const again = await runProcess(["copy", source, join(dir, "copy.jsonl")])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("already exists")
    expect(readFileSync(join(dir, "copy.jsonl")).equals(fixture.bytes)).toBe(true)
  })

  it("names the lines of bytes that are not UTF-8, which the copy holds as U+FFFD (and says nothing of a clean file)", async () => {
    const dir = fresh()
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "u8",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/w"
    })
    const row = (id: string, parentId: string | null, text: Buffer) =>
      Buffer.concat([
        Buffer.from(`{"type":"message","id":"${id}","parentId":${JSON.stringify(parentId)},`),
        Buffer.from(`"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"`),
        text,
        Buffer.from(`","timestamp":1}}`)
      ])
    const lines = [
      Buffer.from(header),
      row("a", null, Buffer.from("clean ✓")),
      row("b", "a", Buffer.from([0x61, 0xff, 0x62]))
    ]
    const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")]))
    const source = join(dir, "source.jsonl")
    writeFileSync(source, bytes)
    const copied = await runProcess(["copy", source, join(dir, "copy.jsonl")])
    expect(copied.code, copied.stderr).toBe(0)
    const at = lines[0]!.length + 1 + lines[1]!.length + 1 +
      row("b", "a", Buffer.alloc(0)).indexOf("\",\"timestamp\":1}") + 1
    expect(copied.stderr).toContain(
      `${source}: 1 line(s) hold bytes that are not UTF-8 (the first: line 3, offset ${at})`
    )
    // the copy holds U+FFFD where the source holds 0xFF; everything else is the same bytes
    const copy = readFileSync(join(dir, "copy.jsonl"))
    expect(copy.equals(bytes)).toBe(false)
    expect(copy.toString("utf8")).toBe(bytes.toString("utf8"))
    // a clean source: no note
    const clean = join(dir, "clean.jsonl")
    writeFileSync(clean, Buffer.concat([lines[0]!, Buffer.from("\n"), lines[1]!, Buffer.from("\n")]))
    const quiet = await runProcess(["copy", clean, join(dir, "clean-copy.jsonl")])
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr).not.toContain("UTF-8")
  })

  it("copies a folder of sessions into another, then lists and searches it with --store and $BRANCHLOG_STORE", async () => {
    const from = fresh()
    for (const fixture of current) writeFileSync(join(from, `${fixture.name}.jsonl`), fixture.bytes)
    const to = fresh()
    const copied = await runProcess(["copy", from, to, "--json"])
    expect(copied.code, copied.stderr).toBe(0)
    const pairs = JSON.parse(copied.stdout) as Array<{ from: string; to: string }>
    expect(pairs.length).toBe(current.length)
    for (const pair of pairs) expect(readFileSync(pair.to).equals(readFileSync(pair.from))).toBe(true)

    const listed = await runProcess(["ls", "--store", to, "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    const sessions = JSON.parse(listed.stdout) as Array<{ ref: string; id: string }>
    expect(sessions.map((s) => s.ref).sort()).toEqual(pairs.map((p) => p.to).sort())
    const byEnv = await runProcess(["ls", "--json"], { env: { BRANCHLOG_STORE: to } })
    expect(JSON.parse(byEnv.stdout)).toEqual(sessions)

    // a word of the first user message of one session finds it
    const words = (JSON.parse(listed.stdout)[0].firstMessage as string).match(/[a-z]{4,}/g) ?? []
    expect(words.length).toBeGreaterThan(0)
    const found = await runProcess(["search", words[0]!, "--store", to, "--json", "--limit", "50"])
    expect(found.code, found.stderr).toBe(0)
    const hits = JSON.parse(found.stdout) as Array<{ session: string; entryId: string; snippet: string }>
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.length).toBeLessThanOrEqual(50)
    for (const hit of hits) {
      expect(hit.snippet.toLowerCase()).toContain(`[${words[0]}`)
      expect(pairs.map((p) => p.to)).toContain(hit.session)
    }
    const none = await runProcess(["search", "zzzqqqxxx", "--store", to])
    expect(none.code).toBe(0)
    expect(none.stderr).toContain("no matches")
  })

  it("a reference whose backend is not present fails clearly, naming it", async () => {
    const outcome = await runProcess(["info", "memory:/x#s1"])
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toContain("memory:/x#s1")
    expect(outcome.stderr).toContain("no backend for this kind of reference")
  })
})
