// Files crafted for each rule of spec §15 (test/fixtures/pi16/craft.mjs), with the answers of
// pi 1.6.0 itself (generate.mjs): context, tree and info at the file's leaf, and the context at
// every entry taken as the leaf.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { JsonView, Line, SessionState } from "../src/index.js"
import { counterMint } from "./support/fixtures.js"

const dir = join(import.meta.dirname, "fixtures", "pi16")
const json = (value: unknown) => JSON.parse(JSON.stringify(value))
const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()

describe.each(files)("pi 1.6 fixture %s", (file) => {
  const text = readFileSync(join(dir, file), "utf8")
  const expected = JSON.parse(readFileSync(join(dir, file.replace(/\.jsonl$/, ".expected.json")), "utf8"))
  const { state } = SessionState.fromText(text, counterMint())

  it("builds pi 1.6's context", () => expect(json(JsonView.context(state))).toEqual(expected.context))
  it("builds pi 1.6's tree", () => expect(json(JsonView.tree(state))).toEqual(expected.tree))
  it("gives pi 1.6's info", () => expect(json(JsonView.info(state))).toEqual(expected.info))
  it("builds pi 1.6's context at every entry taken as the leaf", () => {
    const ids = Object.keys(expected.contextAt)
    expect(ids.length).toBe(state.entries.length)
    for (const id of ids) expect([id, json(JsonView.context(state, id))]).toEqual([id, expected.contextAt[id]])
  })
  it("serialises every line back to the same bytes", () => {
    const lines = text.split("\n").slice(0, -1)
    expect(Line.parseText(text).map(Line.serialize)).toEqual(lines)
  })
})

it("covers both new entry types and the compaction fields", () => {
  const all = files.map((file) => readFileSync(join(dir, file), "utf8")).join("")
  for (
    const needle of [
      "\"type\":\"usage\"",
      "\"type\":\"context_edit\"",
      "\"systemMessage\"",
      "\"firstKeptEntryId\":null"
    ]
  ) {
    expect(all).toContain(needle)
  }
})
