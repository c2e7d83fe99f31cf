/**
 * The CLI over SQLite references, as real processes on real files: `context` / `tree` /
 * `info --json` through `sqlite:PATH#ID` give a fixture's expected answers after `copy FILE
 * sqlite:PATH --json` (`{from, to}`, `to` the full reference), and `copy` back to a file is
 * byte-identical (a legacy fixture: to the file `migrate` made of it; a torn last line kept);
 * `copy DIR sqlite:PATH` imports a folder, `ls --store sqlite:PATH` and `$BRANCHLOG_STORE` list
 * it, and `search` finds messages in it, ranked, with snippets.
 */
import { join } from "node:path"
import { describe, it } from "vitest"
import { caseFolders, fixtureRoundTrip, folderImport, roundTripFixtures } from "./support/storeCases.js"

const { fresh } = caseFolders("branchlog-cli-sqlite-")

describe("branchlog over sqlite:PATH#ID (real processes)", () => {
  it.each(roundTripFixtures.map((f) => [f.name, f] as const))(
    "%s: copy file → sqlite prints {from, to}; context/tree/info --json through the reference are the expected; copied back byte-identical",
    async (_, fixture) => {
      const dir = fresh()
      await fixtureRoundTrip(fixture, `sqlite:${join(dir, "sessions.db")}`, dir)
    }
  )

  it("copy DIR sqlite:PATH imports a folder; ls --store and $BRANCHLOG_STORE list it; search finds its messages", async () => {
    await folderImport(`sqlite:${join(fresh(), "team.db")}`, fresh())
  })
})
