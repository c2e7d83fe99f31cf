import { describe, expect, it } from "vitest"
import { JsonView, Line, SessionState } from "../src/index.js"
import { idsAsStrings, json, maskPointers, structuralTree } from "./support/compare.js"
import { counterMint, fixtures } from "./support/fixtures.js"

describe.each(fixtures())("fixture $name", (fixture) => {
  const text = fixture.bytes.toString("utf8")
  const { state } = SessionState.fromText(text, counterMint())
  const volatile = fixture.expected.volatile ?? []
  const expectAnswer = (section: "context" | "tree" | "info", actual: unknown) => {
    let got = json(actual)
    let want = fixture.expected[section]
    const pointers = volatile.filter((p) => p.startsWith(`/${section}/`)).map((p) => p.slice(section.length + 1))
    got = maskPointers(got, pointers)
    want = maskPointers(want, pointers)
    if (fixture.expected.idsGenerated) {
      if (section === "tree") {
        got = structuralTree(got)
        want = structuralTree(want)
      } else {
        got = idsAsStrings(got)
        want = idsAsStrings(want)
      }
    }
    expect(got).toEqual(want)
  }

  it("builds the expected context", () => expectAnswer("context", JsonView.context(state)))
  it("builds the expected tree", () => expectAnswer("tree", JsonView.tree(state)))
  it("gives the expected info", () => expectAnswer("info", JsonView.info(state)))

  it("serialises every line back to the same bytes", () => {
    const lines = text.split("\n")
    if (lines[lines.length - 1] === "") lines.pop()
    const parsed = Line.parseText(text)
    expect(parsed.map(Line.serialize)).toEqual(lines)
  })
})
