import { MemoryFileSystem } from "@branchlog/session-store/testing"
import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { referenceShape, runInMemory, runProcess } from "./support/harness.js"

const sections = ["context", "tree", "info"] as const

describe.each(fixtures())("fixture $name", (fixture) => {
  it.each(sections)(
    "`%s --json` prints the expected answer in process (memory layer), and leaves the file as it was",
    async (section) => {
      const volume = MemoryFileSystem.make()
      volume.writeFile("/sessions/f.jsonl", fixture.bytes)
      const outcome = await runInMemory(volume, [section, "/sessions/f.jsonl", "--json"])
      expect(outcome.code, outcome.stderr).toBe(0)
      const { got, want } = comparable(fixture, section, referenceShape(section, JSON.parse(outcome.stdout)))
      expect(got).toEqual(want)
      expect(Buffer.from(volume.readFile("/sessions/f.jsonl")!)).toEqual(fixture.bytes)
      expect(volume.list("/sessions")).toEqual(["f.jsonl"])
    }
  )

  it("prints the expected answers as a real process over a real file, and leaves it byte-identical", async () => {
    const dir = mkdtempSync(join(tmpdir(), "branchlog-cli-"))
    const file = join(dir, `${fixture.name}.jsonl`)
    copyFileSync(fixture.path, file)
    for (const section of sections) {
      const outcome = await runProcess([section, file, "--json"])
      expect(outcome.code, outcome.stderr).toBe(0)
      const { got, want } = comparable(fixture, section, referenceShape(section, JSON.parse(outcome.stdout)))
      expect(got).toEqual(want)
      expect(readFileSync(file)).toEqual(fixture.bytes)
    }
  })
})
