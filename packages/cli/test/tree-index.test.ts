/**
 * `tree` and `info` from the sidecar index (issue 27), as real processes: for every reference
 * fixture, `tree` (and `tree --depth 1`, `tree --around` the leaf) through the index prints what
 * the whole read prints (`--no-index`); `info --json` from the index keeps today's fields.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"

const shared = "/work/shared/fixtures"
const temp = mkdtempSync("/tmp/branchlog-tree-index-")
afterAll(() => rmSync(temp, { recursive: true, force: true }))
// legacy-v1 has no ids: each read mints its own, so two reads never print the same tree
const names = readdirSync(shared).filter((name) => name.endsWith(".jsonl") && name !== "legacy-v1.jsonl")

describe("tree through the sidecar index", () => {
  for (const name of names) {
    it(`${name}: tree, tree --depth 1 and tree --around the leaf print what --no-index prints`, async () => {
      const dir = join(temp, name)
      mkdirSync(dir)
      const file = join(dir, name)
      cpSync(join(shared, name), file)
      const built = await runProcess(["context", file, "--json"])
      expect(built.code, built.stderr).toBe(0)
      const leaf = JSON.parse((await runProcess(["info", file, "--json", "--full"])).stdout).leafId as string | null
      const variants = [[], ["--depth", "1"], ...(leaf === null ? [] : [["--around", leaf]])]
      for (const extra of variants) {
        const indexed = await runProcess(["tree", file, ...extra])
        const whole = await runProcess(["tree", file, ...extra, "--no-index"])
        expect(indexed.code, indexed.stderr).toBe(0)
        expect(indexed.stdout).toBe(whole.stdout)
      }
      const info = JSON.parse((await runProcess(["info", file, "--json"])).stdout)
      const full = JSON.parse((await runProcess(["info", file, "--json", "--full"])).stdout)
      for (const key of ["id", "version", "cwd", "name", "entries", "leafId"]) expect(info[key]).toEqual(full[key])
    }, 60_000)
  }
})
