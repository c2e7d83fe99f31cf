import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "vitest"
import { JsonView, Line, SessionState } from "../src/index.js"
import { counterMint } from "./support/fixtures.js"

describe.each(fixtures())("fixture $name", (fixture) => {
  const text = fixture.bytes.toString("utf8")
  const { state } = SessionState.fromText(text, counterMint())
  const expectAnswer = (section: "context" | "tree" | "info", actual: unknown) => {
    const { got, want } = comparable(fixture, section, actual)
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
