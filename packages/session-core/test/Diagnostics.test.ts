import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "vitest"
import * as Diagnostics from "../src/Diagnostics.js"
import * as Line from "../src/Line.js"
import * as SessionState from "../src/SessionState.js"
import { assistant, compaction, header, label, leaf, stateOf, user } from "./support/build.js"

const tags = (problems: ReadonlyArray<Diagnostics.Problem>) => problems.map((p) => p._tag)

describe("Diagnostics.diagnose", () => {
  it("finds nothing in a clean session", () => {
    expect(Diagnostics.diagnose(stateOf(header(), user("a", null), assistant("b", "a")))).toEqual([])
  })

  it("reports corrupt lines with line and byte offset, and marks the last one", () => {
    const state = stateOf(header(), "not json", user("a", null), "{\"type\":\"mess")
    const problems = Diagnostics.diagnose(state)
    expect(tags(problems)).toEqual(["CorruptLine", "CorruptLine"])
    expect(problems[0]).toMatchObject({ line: 2, last: false })
    expect(problems[1]).toMatchObject({ line: 4, last: true })
    expect(problems[0]!.offset).toBe(Buffer.byteLength(JSON.stringify(header())) + 1)
    expect(Diagnostics.describe(problems[1]!)).toContain("torn")
  })

  it("reports a missing header, a late header and a duplicate header", () => {
    expect(tags(Diagnostics.diagnose(stateOf(user("a", null))))).toEqual(["MissingHeader"])
    expect(tags(Diagnostics.diagnose(stateOf(user("a", null), header())))).toEqual(["HeaderNotFirst"])
    expect(tags(Diagnostics.diagnose(stateOf(header(), user("a", null), header({ id: "again" }))))).toEqual([
      "DuplicateHeader"
    ])
  })

  it("reports duplicate ids, orphans and dangling labels with their lines", () => {
    const problems = Diagnostics.diagnose(
      stateOf(header(), user("a", null), user("a", null), user("b", "ghost"), label("l", "b", "nobody", "x"))
    )
    expect(problems.map((p) => [p._tag, p.line])).toEqual([["DuplicateId", 3], ["Orphan", 4], ["DanglingLabel", 5]])
    expect(problems[0]).toMatchObject({ firstLine: 2 })
  })

  it("reports a parent cycle once, with what hangs below it", () => {
    const problems = Diagnostics.diagnose(
      stateOf(header(), user("a", null), user("x", "y"), user("y", "x"), user("z", "y"))
    )
    expect(problems).toEqual([{ _tag: "Cycle", ids: ["x", "y"], detached: 1, line: 3, offset: expect.any(Number) }])
    expect(tags(Diagnostics.diagnose(stateOf(header(), user("s", "s"))))).toEqual([])
  })

  it("warns about a compaction that keeps nothing, and about an invalid leaf control", () => {
    const problems = Diagnostics.diagnose(
      stateOf(header(), user("a", null), user("side", null), compaction("c", "a", "side"), leaf("l", "c", "later"))
    )
    expect(tags(problems)).toEqual(["KeptEntryOffPath", "InvalidLeafControl"])
    expect(problems.map(Diagnostics.severity)).toEqual(["warning", "warning"])
  })

  it.each(fixtures().map((f) => [f.name, f] as const))("reads fixture %s", (_, fixture) => {
    const state = SessionState.fromRecords(Line.parseText(fixture.bytes.toString("utf8")))
    const problems = Diagnostics.diagnose(state)
    const corrupt = problems.filter((p) => p._tag === "CorruptLine").length
    expect(corrupt).toBe(state.corrupt.length)
    for (const problem of problems) expect(Diagnostics.describe(problem).length).toBeGreaterThan(0)
  })
})
