import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { referenceShape, runInMemory, runProcess } from "./support/harness.js"

const sections = ["context", "tree", "info"] as const

/**
 * `info` is compared with its whole answer (`--full`: the reference's fields and the usage totals);
 * from the index it has no totals, and tree-index.test.ts checks its fields against `--full`.
 */
const full = (section: string): Array<string> => (section === "info" ? ["--full"] : [])

const all = fixtures()

describe.each(all)("fixture $name", (fixture) => {
  it.each(sections)(
    "`%s --json` prints the expected answer in process (memory layer), and leaves the file as it was (its index beside it; with --no-index, nothing)",
    async (section) => {
      const volume = MemoryFileSystem.make()
      volume.writeFile("/sessions/f.jsonl", fixture.bytes)
      const skipped = await runInMemory(volume, [section, "/sessions/f.jsonl", "--json", "--no-index"])
      expect(skipped.code, skipped.stderr).toBe(0)
      expect(volume.list("/sessions")).toEqual(["f.jsonl"])
      // the first read builds the index (when the file is one it can index), the second reads through it
      for (let read = 0; read < 2; read++) {
        const outcome = await runInMemory(volume, [section, "/sessions/f.jsonl", "--json", ...full(section)])
        expect(outcome.code, outcome.stderr).toBe(0)
        const { got, want } = comparable(fixture, section, referenceShape(section, JSON.parse(outcome.stdout)))
        expect(got).toEqual(want)
        expect(Buffer.from(volume.readFile("/sessions/f.jsonl")!)).toEqual(fixture.bytes)
        expect(volume.list("/sessions").filter((name) => name !== "f.jsonl.index")).toEqual(["f.jsonl"])
      }
    }
  )

  it("prints the expected answers as a real process over a real file, and leaves it byte-identical", async () => {
    const dir = mkdtempSync(join(tmpdir(), "branchlog-cli-"))
    const file = join(dir, `${fixture.name}.jsonl`)
    copyFileSync(fixture.path, file)
    // two processes: the first reads the file without an index and writes it, the second reads
    // through it. Which two commands turn with the fixture, so each of the three runs in both states
    // over a third of the fixtures (in process, above, every command runs in both over every one)
    const first = all.indexOf(fixture) % sections.length
    for (const section of [sections[first]!, sections[(first + 1) % sections.length]!]) {
      const outcome = await runProcess([section, file, "--json", ...full(section)])
      expect(outcome.code, outcome.stderr).toBe(0)
      const { got, want } = comparable(fixture, section, referenceShape(section, JSON.parse(outcome.stdout)))
      expect(got).toEqual(want)
      expect(readFileSync(file)).toEqual(fixture.bytes)
    }
  })
})
