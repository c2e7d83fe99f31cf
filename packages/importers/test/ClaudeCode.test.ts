import type { AgentMessage, Entry } from "@branchlog/session-core"
import { Tree } from "@branchlog/session-core"
import { describe, expect, it } from "vitest"
import * as ClaudeCode from "../src/ClaudeCode.js"
import { splitLines } from "../src/internal/jsonl.js"
import { claude, contextOf, messages, samples, stateOf, textOf, toolIds } from "./support/samples.js"

const byText = (entries: ReadonlyArray<Entry.Entry>, text: string) =>
  entries.find((e) => e.type === "message" && textOf(e.message).includes(text))!

describe("Claude Code 1.0.x (inline sidechain, rewind)", () => {
  const [main, side, ...rest] = claude(samples.claudeV1)

  it("keeps the tree: uuid → id, a rewind is a branch of the first prompt", () => {
    expect(rest).toEqual([])
    const prompt = byText(main!.entries, "off by a cent")
    expect(prompt.id).toBe("a1000000")
    const children = main!.entries.filter((e) => e.parentId === prompt.id)
    expect(children.map((e) => e.type === "message" && e.message.role)).toEqual(["assistant", "user"])
    const state = stateOf(main!)
    const roots = Tree.getTree(state)
    expect(roots).toHaveLength(1) // everything under the provenance entry
    // the leaf is the rewound branch's end (then the session name)
    const context = contextOf(main!)
    expect(textOf(context.messages[0] as AgentMessage.AgentMessage)).toBe(
      "The cart total is off by a cent. Find out why."
    )
    expect(context.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"])
    expect(textOf(context.messages.at(-1) as AgentMessage.AgentMessage)).toContain("Here is src/cart.ts")
  })

  it("names the session from the summary whose leaf is in this file (not a leaked one)", () => {
    expect(Tree.getSessionName(stateOf(main!))).toBe("Fix the cart total rounding")
  })

  it("puts the inline sidechain in its own session whose parent is the main one", () => {
    expect(side!.parentSessionId).toBe(main!.sessionId)
    expect(messages(side!.entries).map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"])
    expect(messages(main!.entries).some((m) => textOf(m) === "Find where cart totals are rounded.")).toBe(false)
    expect(toolIds(side!.entries)).toEqual({ calls: ["toolu_01Grep"], results: ["toolu_01Grep"] })
  })

  it("pairs the Task call with its result (toolCallId, toolName)", () => {
    const result = messages(main!.entries).find((m) => m.role === "toolResult") as AgentMessage.ToolResultMessage
    expect(result).toMatchObject({ toolCallId: "toolu_01Task", toolName: "Task", isError: false })
  })

  it("records the version and source in the provenance entry", () => {
    expect(main!.entries[0]).toMatchObject({ type: "custom", customType: "branchlog.import", parentId: null })
    expect(main!.provenance).toMatchObject({
      format: "claude-code",
      formatVersion: "1.0.43",
      sourceSessionId: main!.sessionId
    })
  })
})

describe("Claude Code 2.1.x (split lines, parallel tools, compaction, torn tail)", () => {
  const [main, ...others] = claude(samples.claudeV2)

  it("has no inline sidechain (2.x keeps subagents in their own files)", () => expect(others).toEqual([]))

  it("keeps each tool call once, in file order, with its source id; parallel results paired", () => {
    const { calls, results } = toolIds(main!.entries)
    expect(calls).toEqual(["toolu_02Read", "toolu_02Bash", "toolu_02Edit"])
    expect(results).toEqual(["toolu_02Read", "toolu_02Bash"])
    const bash = messages(main!.entries).find((m) =>
      m.role === "toolResult" && (m as AgentMessage.ToolResultMessage).toolCallId === "toolu_02Bash"
    )
    expect(bash).toMatchObject({ isError: true, toolName: "Bash" })
  })

  it("leaves the unpaired tool call as it is (no invented result)", () => {
    const last = messages(main!.entries).at(-1) as AgentMessage.AssistantMessage
    expect(last.content).toEqual([
      { type: "text", text: "Applying the guard now." },
      expect.objectContaining({ type: "toolCall", id: "toolu_02Edit" })
    ])
    expect(last.stopReason).toBe("toolUse")
  })

  it("merges the lines of one API message and puts its results after it, in the order of the calls", () => {
    const results = main!.entries.filter((e) => e.type === "message" && e.message.role === "toolResult")
    const parent = main!.entries.find((e) => e.id === results[0]!.parentId)!
    const content = parent.type === "message" ? (parent.message as AgentMessage.AssistantMessage).content : []
    expect(content.map((b) => b.type === "toolCall" ? b.id : b.type)).toEqual([
      "thinking",
      "toolu_02Read",
      "toolu_02Bash"
    ])
    expect(results[1]!.parentId).toBe(results[0]!.id)
  })

  it("turns compact_boundary + compact summary into a compaction whose outside parent makes it a root", () => {
    const compaction = main!.entries.find((e) => e.type === "compaction") as Entry.CompactionEntry
    expect(compaction.parentId).toBe(main!.entries[0]!.id)
    expect(compaction.summary).toContain("the checkout crashed on empty carts")
    expect(compaction.tokensBefore).toBe(155321)
    expect(compaction.details).toMatchObject({
      trigger: "auto",
      logicalParentUuid: "99999999-0000-4000-8000-000000000000"
    })
    expect(main!.warnings).toContain("1 record(s) point at a parent outside the source: imported as roots")
    const context = contextOf(main!)
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary", tokensBefore: 155321 })
    expect(textOf(context.messages[1] as AgentMessage.AgentMessage)).toBe("Apply the guard and run the tests.")
  })

  it("keeps thinking (with its signature), images, meta records and slash commands", () => {
    const first = messages(main!.entries)[0] as AgentMessage.UserMessage
    expect(first.content).toEqual([
      { type: "text", text: "Here is the failing checkout page, what is wrong?" },
      expect.objectContaining({ type: "image", mimeType: "image/png" })
    ])
    const thinking = messages(main!.entries)[1] as AgentMessage.AssistantMessage
    expect(thinking.content[0]).toMatchObject({ type: "thinking", thinkingSignature: "EqQBCkYIBxgCKkD..." })
    expect(main!.entries.find((e) => e.type === "custom_message")).toMatchObject({
      customType: "claude-code.meta",
      display: false
    })
    expect(messages(main!.entries).some((m) => textOf(m).startsWith("<command-name>/cost</command-name>"))).toBe(true)
  })

  it("reports the unknown record type and the torn last line with line and offset, and counts what it dropped", () => {
    expect(main!.skipped).toEqual([
      { line: 15, offset: expect.any(Number), reason: "unknown record type \"mystery-record\"" },
      { line: 21, offset: expect.any(Number), reason: expect.stringMatching(/^torn last line/) }
    ])
    expect(main!.warnings).toEqual(expect.arrayContaining([
      "dropped 1 progress records",
      "dropped 1 file-history-snapshot records",
      "dropped 1 queue-operation records",
      "dropped 1 system records (stop_hook_summary)",
      "dropped 1 repeated content blocks (same API message)"
    ]))
  })

  it("is deterministic: the same lines give the same entries", () => {
    expect(claude(samples.claudeV2)).toEqual(claude(samples.claudeV2))
  })
})

describe("Claude Code subagent files and odd input", () => {
  it("converts a subagents/agent-*.jsonl file as a session of its parent", () => {
    const [agent] = claude(samples.claudeV2Agent, { subagentOf: { parentSessionId: "main-id", agentId: "a7f3c21" } })
    expect(agent!.sessionId).toBe("main-id-agent-a7f3c21")
    expect(agent!.parentSessionId).toBe("main-id")
    expect(toolIds(agent!.entries)).toEqual({ calls: ["toolu_02Glob"], results: ["toolu_02Glob"] })
  })

  it("takes a file whose conversation is all sidechain (2.0.x's agent-<id>.jsonl beside the sessions) as a subagent's", () => {
    const [agent, ...rest] = claude(samples.claudeV2Agent, { fallbackSessionId: "agent-a7f3c21" })
    expect(rest).toEqual([])
    expect(agent!.parentSessionId).toBe("7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b")
    expect(agent!.sessionId).toBe("7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b-agent-a7f3c21")
    expect(messages(agent!.entries)).toHaveLength(4)
  })

  it("keeps only the new blocks of a line that repeats its API message so far (cumulative lines), in one message", () => {
    const base = { type: "assistant", sessionId: "s", cwd: "/w", timestamp: "2026-01-01T00:00:00.000Z" }
    const msg = (content: Array<unknown>) => ({ id: "msg_X", role: "assistant", model: "m", content })
    const text = { type: "text", text: "Reading both files." }
    const call = (id: string) => ({ type: "tool_use", id, name: "Read", input: { file_path: id } })
    const lines = [
      { ...base, type: "user", uuid: "u0", parentUuid: null, message: { role: "user", content: "go" } },
      { ...base, uuid: "u1", parentUuid: "u0", message: msg([text]) },
      { ...base, uuid: "u2", parentUuid: "u1", message: msg([text, call("t1")]) },
      { ...base, uuid: "u3", parentUuid: "u2", message: msg([text, call("t1"), call("t2")]) }
    ].map((l) => JSON.stringify(l)).join("\n")
    const [s] = ClaudeCode.convert(splitLines(new TextEncoder().encode(lines)), {
      source: "x",
      fallbackSessionId: "fb"
    })
    const assistants = messages(s!.entries).filter((m) => m.role === "assistant") as Array<
      AgentMessage.AssistantMessage
    >
    expect(assistants.map((m) => m.content.map((b) => b.type === "toolCall" ? b.id : b.type))).toEqual([
      ["text", "t1", "t2"]
    ])
    expect(s!.warnings).toContain("dropped 3 repeated content blocks (same API message)")
  })

  it("places a partial compaction (preservedMessages) between the kept segment's anchor and the segment", () => {
    const rec = (type: string, uuid: string, parentUuid: string | null, text: string, extra = {}) => ({
      type,
      uuid,
      parentUuid,
      sessionId: "s",
      cwd: "/w",
      timestamp: "2026-06-07T05:00:00.000Z",
      message: type === "user"
        ? { role: "user", content: text }
        : { id: `m-${uuid}`, role: "assistant", model: "m", content: [{ type: "text", text }] },
      ...extra
    })
    const lines = [
      rec("user", "u0", null, "dropped prompt"),
      rec("assistant", "a0", "u0", "dropped reply"),
      rec("user", "k1", "a0", "kept prompt"),
      {
        type: "system",
        subtype: "compact_boundary",
        uuid: "b1",
        parentUuid: null,
        timestamp: "2026-06-07T05:02:00.000Z",
        compactMetadata: { trigger: "auto", preTokens: 900, preservedMessages: { anchorUuid: "a0", uuids: ["k1"] } }
      },
      rec("user", "cs1", "b1", "the summary", { isCompactSummary: true }),
      rec("user", "u1", "k1", "new prompt")
    ].map((l) => JSON.stringify(l)).join("\n")
    const [s] = ClaudeCode.convert(splitLines(new TextEncoder().encode(lines)), {
      source: "x",
      fallbackSessionId: "fb"
    })
    const context = contextOf(s!)
    expect(
      context.messages.map((m) =>
        m.role === "compactionSummary" ? (m as { summary: string }).summary : textOf(m as AgentMessage.AgentMessage)
      )
    ).toEqual([
      "the summary",
      "kept prompt",
      "new prompt"
    ])
  })

  it("never throws on records of unexpected shapes", () => {
    const text = [
      "[1,2]",
      "{\"type\":\"user\",\"uuid\":\"u1\"}",
      "{\"type\":\"assistant\",\"uuid\":\"u2\",\"parentUuid\":\"u1\",\"message\":{\"content\":\"plain\"}}",
      "{\"type\":\"user\",\"uuid\":\"u3\",\"parentUuid\":\"u3\",\"message\":{\"content\":[{\"type\":\"tool_result\"},{\"type\":\"document\",\"source\":{\"media_type\":\"application/pdf\"}},7]}}",
      "{\"uuid\":\"u4\"}",
      "{\"type\":\"assistant\",\"uuid\":\"u5\",\"parentUuid\":\"u9\",\"message\":{\"content\":[{\"type\":\"tool_use\"},{\"type\":\"server_tool_use\",\"id\":\"s1\",\"name\":\"web_search\",\"input\":\"q\"}]}}"
    ].join("\n")
    const [s] = ClaudeCode.convert(splitLines(new TextEncoder().encode(text)), { source: "x", fallbackSessionId: "fb" })
    expect(s!.sessionId).toBe("fb")
    expect(s!.skipped.map((x) => x.line)).toEqual([1, 2, 5])
    expect(() => contextOf(s!)).not.toThrow()
  })
})
