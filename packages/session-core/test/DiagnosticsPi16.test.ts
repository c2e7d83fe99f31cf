// fsck's findings for pi 1.6's rows, and for rows of a canonical type that are not entries.
import { describe, expect, it } from "vitest"
import * as Diagnostics from "../src/Diagnostics.js"
import * as SessionContext from "../src/SessionContext.js"
import { compaction, entry, fileText, header, stateOf, user } from "./support/build.js"

const tags = (problems: ReadonlyArray<Diagnostics.Problem>) => problems.map((p) => p._tag)
const edit = (id: string, parentId: string | null, targetId: string, replacement: unknown) =>
  entry("context_edit", id, parentId, { targetId, replacement })

describe("Diagnostics for pi 1.6's rows", () => {
  it("finds nothing in usage entries and edits of existing entries", () => {
    const state = stateOf(
      header(),
      user("a", null),
      entry("usage", "u", "a", { kind: "k", provider: "p", model: "m", usage: {} }),
      edit("e", "u", "a", null),
      edit("f", "e", "g", { content: "ahead" }), // a later entry on the path
      user("g", "f")
    )
    expect(Diagnostics.diagnose(state)).toEqual([])
  })

  it("warns about an edit whose target does not exist, with its line and offset", () => {
    const rows = [header(), user("a", null), edit("e", "a", "missing", null)]
    const problems = Diagnostics.diagnose(stateOf(...rows))
    expect(problems).toEqual([{
      _tag: "DanglingContextEdit",
      id: "e",
      targetId: "missing",
      line: 3,
      offset: Buffer.byteLength(fileText(...rows.slice(0, 2)))
    }])
    expect(Diagnostics.severity(problems[0]!)).toBe("warning")
    expect(Diagnostics.describe(problems[0]!)).toContain("missing")
  })

  it("warns about an edit without a usable replacement", () => {
    const problems = Diagnostics.diagnose(stateOf(header(), user("a", null), edit("e", "a", "a", "text")))
    expect(tags(problems)).toEqual(["InvalidContextEdit"])
    expect(Diagnostics.severity(problems[0]!)).toBe("warning")
  })

  it("does not warn about compactions that keep nothing on purpose (null, or their own id)", () => {
    const own = { ...compaction("c", "a", "x"), firstKeptEntryId: "c" }
    const none = { ...compaction("d", "c", "x"), firstKeptEntryId: null }
    expect(Diagnostics.diagnose(stateOf(header(), user("a", null), own, none))).toEqual([])
    expect(tags(Diagnostics.diagnose(stateOf(header(), user("a", null), compaction("c", "a", "x"))))).toEqual([
      "KeptEntryOffPath"
    ])
  })
})

describe("Diagnostics for rows of a canonical type that are not entries", () => {
  it("reports a message with a non-string timestamp, which is left out of the context, with line and offset", () => {
    const bad = { ...user("b", "a"), timestamp: 1767225600000 }
    const rows = [header(), user("a", null), bad, user("c", "b")]
    const state = stateOf(...rows)
    expect(SessionContext.buildSessionContext(state).messages.map((m) => (m as { content: unknown }).content))
      .toEqual(["user a", "user c"]) // the row is transparent: c hangs under a
    const problems = Diagnostics.diagnose(state)
    expect(problems).toEqual([{
      _tag: "MalformedEntry",
      type: "message",
      id: "b",
      reason: "its timestamp is a number, not a string",
      line: 3,
      offset: Buffer.byteLength(fileText(...rows.slice(0, 2)))
    }])
    expect(Diagnostics.severity(problems[0]!)).toBe("error")
    expect(Diagnostics.describe(problems[0]!)).toContain("neither the tree nor the context")
  })

  it("names the other reasons: a blank id, a bad parentId, a message without a role", () => {
    const problems = Diagnostics.diagnose(stateOf(
      header(),
      { ...user("a", null), id: " " },
      { ...user("b", null), parentId: 5 },
      entry("message", "c", null, { message: { content: "no role" } }),
      entry("message", "d", null, { message: "text" })
    ))
    expect(problems.map((p) => (p as { reason?: string }).reason)).toEqual([
      "its id is blank",
      "its parentId is a number, not a string or null",
      "its message has no role",
      "its message is a string, not an object"
    ])
  })

  it("leaves rows of other types alone (opaque on purpose)", () => {
    expect(Diagnostics.diagnose(stateOf(header(), { type: "other", timestamp: 5 }))).toEqual([])
  })
})
