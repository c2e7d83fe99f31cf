/**
 * `SessionContext.currentSystemMessage` against pi 1.6.0 itself: every compaction that pi 1.6's
 * `appendCompaction` wrote in the differential fixtures carries the system messages of the context
 * at its parent replayed into one; ours, from the same context, must be the same message.
 */
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "vitest"
import type { ContextMessage } from "../src/AgentMessage.js"
import { SessionContext, SessionState } from "../src/index.js"
import { counterMint } from "./support/fixtures.js"

const pi16 = fixtures().filter((fixture) => fixture.name.startsWith("differential-pi16-"))

describe("currentSystemMessage", () => {
  // the expected values are what pi-ai 1.6.0's getCurrentSystemMessage returned for these inputs
  it("joins the texts by a blank line, patches sections and tools by name, keeps the first timestamp", () => {
    const messages = [
      { role: "user", content: "hi", timestamp: 1 },
      {
        role: "system",
        content: "base prompt",
        sections: { a: "A1", b: "B1" },
        toolsAdded: [{ name: "read", description: "r" }, { name: "bash" }],
        timestamp: 5
      },
      { role: "assistant", content: [{ type: "text", text: "x" }], timestamp: 6 },
      {
        role: "system",
        content: [{ type: "text", text: "more" }, { type: "image", data: "x", mimeType: "image/png" }, {
          type: "text",
          text: "lines"
        }],
        sections: { a: null, c: "C" },
        toolsRemoved: [{ name: "bash" }],
        toolsAdded: [{ name: "read", description: "r2" }, { name: "edit" }],
        timestamp: 7
      },
      { role: "system", content: "", timestamp: 8 }
    ] as unknown as Array<ContextMessage>
    expect(SessionContext.currentSystemMessage(messages)).toEqual({
      role: "system",
      content: "base prompt\n\nmore\nlines",
      sections: { b: "B1", c: "C" },
      toolsAdded: [{ name: "read", description: "r2" }, { name: "edit" }],
      timestamp: 5
    })
  })

  it("is undefined without a system message, and an empty one still counts", () => {
    const user = { role: "user", content: "x", timestamp: 1 } as ContextMessage
    expect(SessionContext.currentSystemMessage([user])).toBeUndefined()
    const empty = { role: "system", content: "", toolsAdded: [], timestamp: 3 } as unknown as ContextMessage
    expect(SessionContext.currentSystemMessage([empty])).toEqual({ role: "system", content: "", timestamp: 3 })
  })
})

describe("currentSystemMessage: the compactions pi 1.6 wrote", () => {
  it("has pi 1.6 fixtures with a systemMessage to compare", () => {
    expect(pi16.some((fixture) => fixture.bytes.toString("utf8").includes("\"systemMessage\""))).toBe(true)
  })

  it.each(pi16)("$name: each compaction's systemMessage is the replay of the context at its parent", (fixture) => {
    const text = fixture.bytes.toString("utf8")
    const { state } = SessionState.fromText(text, counterMint())
    const rows = text.split("\n").filter((line) => line.includes("\"type\":\"compaction\"")).map((line) =>
      JSON.parse(line)
    )
    for (const row of rows) {
      const context = SessionContext.buildSessionContext(state, row.parentId)
      const replayed = SessionContext.currentSystemMessage(context.messages)
      const expected = row.systemMessage === undefined
        ? undefined
        : { ...row.systemMessage, timestamp: expect.any(Number) }
      expect(replayed, row.id).toEqual(expected)
    }
  })
})
