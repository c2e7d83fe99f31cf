import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as AgentId from "../src/AgentId.js"

describe("AgentId", () => {
  it.each([
    ["main", "main"],
    ["Ops", "ops"],
    ["  research_2  ", "research_2"],
    ["My Agent!", "my-agent"],
    ["--x--", "x"],
    ["__x", "x"],
    ["a/b\\c", "a-b-c"],
    ["日本語", "main"],
    ["", "main"],
    ["   ", "main"],
    [null, "main"],
    [undefined, "main"],
    ["a".repeat(64), "a".repeat(64)],
    ["a".repeat(80), "a".repeat(64)],
    [`${"a".repeat(63)} b`, "a".repeat(63)]
  ])("normalize(%j) is %j", (input, expected) => {
    expect(AgentId.normalize(input)).toBe(expected)
    expect(AgentId.isValid(expected)).toBe(true)
  })

  it("validates with the spec's pattern", () => {
    expect(AgentId.isValid("main")).toBe(true)
    expect(AgentId.isValid("Main")).toBe(false)
    expect(AgentId.isValid("-main")).toBe(false)
    expect(AgentId.isValid("a".repeat(65))).toBe(false)
    expect(Schema.is(AgentId.AgentId)("ops-1")).toBe(true)
    expect(Schema.is(AgentId.AgentId)("ops 1")).toBe(false)
  })
})
