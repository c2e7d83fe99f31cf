import { describe, expect, it } from "vitest"
import type { BashExecutionMessage, ContextMessage } from "../src/AgentMessage.js"
import * as LlmMessages from "../src/LlmMessages.js"

const bash = (fields: Partial<BashExecutionMessage> = {}): BashExecutionMessage => ({
  role: "bashExecution",
  command: "npm test",
  output: "ok",
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: 5,
  ...fields
})

describe("convertToLlm", () => {
  it("passes user, assistant and tool result messages as they are", () => {
    const user: ContextMessage = { role: "user", content: "hi", timestamp: 1 }
    expect(LlmMessages.convertToLlm([user])[0]).toBe(user)
  })

  it("gives a model an assistant or tool result message's string or object content as blocks", () => {
    const assistant = { role: "assistant", content: "plain", provider: "p", model: "m", timestamp: 2 }
    const result = { role: "toolResult", toolCallId: "c", toolName: "read", content: { type: "text", text: "obj" } }
    const blocks = [{ type: "text", text: "as is" }]
    const kept = { role: "assistant", content: blocks, provider: "p", model: "m", timestamp: 3 }
    const [a, t, k] = LlmMessages.convertToLlm([assistant, result, kept] as unknown as Array<ContextMessage>)
    expect(a).toEqual({ ...assistant, content: [{ type: "text", text: "plain" }] })
    expect(t).toEqual({ ...result, content: [{ type: "text", text: "obj" }] })
    expect(k).toBe(kept)
    expect(assistant.content).toBe("plain")
  })

  it("wraps compaction and branch summaries in the references' exact text", () => {
    const [compaction, branch] = LlmMessages.convertToLlm([
      { role: "compactionSummary", summary: "S1", tokensBefore: 10, timestamp: 1 },
      { role: "branchSummary", summary: "S2", fromId: "x", timestamp: 2 }
    ])
    expect(compaction).toEqual({
      role: "user",
      content: [{
        type: "text",
        text:
          "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>"
      }],
      timestamp: 1
    })
    expect(branch).toEqual({
      role: "user",
      content: [{
        type: "text",
        text: "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>"
      }],
      timestamp: 2
    })
  })

  it("turns custom messages into user messages with the same content", () => {
    const [fromString, fromBlocks] = LlmMessages.convertToLlm([
      { role: "custom", customType: "n", content: "text", display: true, timestamp: 3 },
      {
        role: "custom",
        customType: "n",
        content: [{ type: "image", data: "AA==", mimeType: "image/png" }],
        display: false,
        timestamp: 4
      }
    ])
    expect(fromString).toEqual({ role: "user", content: [{ type: "text", text: "text" }], timestamp: 3 })
    expect(fromBlocks!.content).toEqual([{ type: "image", data: "AA==", mimeType: "image/png" }])
  })

  it("renders bash executions, and leaves out those excluded from the context", () => {
    expect(LlmMessages.bashExecutionToText(bash())).toBe("Ran `npm test`\n```\nok\n```")
    expect(LlmMessages.bashExecutionToText(bash({ output: "", exitCode: 2 }))).toBe(
      "Ran `npm test`\n(no output)\n\nCommand exited with code 2"
    )
    expect(LlmMessages.bashExecutionToText(bash({ cancelled: true, exitCode: 1 }))).toBe(
      "Ran `npm test`\n```\nok\n```\n\n(command cancelled)"
    )
    expect(LlmMessages.bashExecutionToText(bash({ truncated: true, fullOutputPath: "/tmp/out.log" }))).toBe(
      "Ran `npm test`\n```\nok\n```\n\n[Output truncated. Full output: /tmp/out.log]"
    )
    expect(LlmMessages.convertToLlm([bash({ excludeFromContext: true })])).toEqual([])
    expect(LlmMessages.convertToLlm([bash()])[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Ran `npm test`\n```\nok\n```" }],
      timestamp: 5
    })
  })

  it("leaves out roles a model has no use for", () => {
    expect(LlmMessages.convertToLlm([{ role: "somethingElse" } as ContextMessage])).toEqual([])
  })
})
