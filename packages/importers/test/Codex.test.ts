import type { AgentMessage, Entry } from "@branchlog/session-core"
import { describe, expect, it } from "vitest"
import * as Codex from "../src/Codex.js"
import { splitLines } from "../src/internal/jsonl.js"
import { codex, contextOf, messages, samples, textOf, toolIds } from "./support/samples.js"

describe("Codex rollout (0.6x)", () => {
  const session = codex(samples.codex)

  it("takes the header from session_meta and makes one linear chain", () => {
    expect(session.sessionId).toBe("019a2d7a-41c4-78b1-b7cc-a45d62a89cd5")
    expect(session.cwd).toBe("/home/dev/projects/api")
    expect(session.timestamp).toBe("2025-11-03T08:00:00.000Z")
    expect(session.provenance).toMatchObject({ format: "codex", formatVersion: "0.63.0" })
    for (let i = 1; i < session.entries.length; i++) {
      expect(session.entries[i]!.parentId).toBe(session.entries[i - 1]!.id)
    }
    expect(session.leafId).toBe(session.entries.at(-1)!.id)
  })

  it("takes the prompts from user_message events; injected context is a codex.context custom message", () => {
    const prompts = messages(session.entries).filter((m) => m.role === "user").map(textOf)
    expect(prompts).toEqual([
      "Why does GET /health return 503? My token is sk-[REDACTED].",
      "Now add a test for the 503 path."
    ])
    const injected = session.entries.filter((e): e is Entry.CustomMessageEntry => e.type === "custom_message")
    expect(injected.map((e) => e.customType)).toEqual(["codex.context", "codex.context"])
    expect(textOf({ role: "user", content: injected[1]!.content, timestamp: 0 })).toMatch(/^<environment_context>/)
  })

  it("maps function_call, custom_tool_call and local_shell_call to tool calls with call_id, paired with their outputs", () => {
    const { calls, results } = toolIds(session.entries)
    expect(calls).toEqual(["call_Hx1", "call_Hx2", "call_Pt1", "call_Ls1", "call_Hx9"])
    expect(results).toEqual(["call_Hx1", "call_Hx2", "call_Pt1", "call_Ls1"])
    const first = messages(session.entries).find((m) => m.role === "assistant") as AgentMessage.AssistantMessage
    // parallel calls in one assistant message, after the readable reasoning
    expect(first.content.map((b) => b.type)).toEqual(["thinking", "toolCall", "toolCall"])
    expect(first.content[1]).toMatchObject({
      name: "shell",
      arguments: { command: ["bash", "-lc", "rg -n health src"] }
    })
    expect(first.usage).toMatchObject({ input: 2100, cacheRead: 6000, output: 210, totalTokens: 8310 })
    const failed = messages(session.entries).find((m) =>
      m.role === "toolResult" && (m as AgentMessage.ToolResultMessage).toolCallId === "call_Hx2"
    )
    expect(failed).toMatchObject({ isError: true, toolName: "shell" })
    const patch = messages(session.entries).find((m) =>
      m.role === "assistant" &&
      (m as AgentMessage.AssistantMessage).content.some((b) => b.type === "toolCall" && b.id === "call_Pt1")
    ) as AgentMessage.AssistantMessage
    expect(patch.content[0]).toMatchObject({
      name: "apply_patch",
      arguments: { input: expect.stringContaining("*** Begin Patch") }
    })
  })

  it("keeps encrypted reasoning as a redacted thinking block and carries redacted text unchanged", () => {
    const last = messages(session.entries).at(-1) as AgentMessage.AssistantMessage
    expect(last.content[0]).toEqual({
      type: "thinking",
      thinking: "",
      redacted: true,
      thinkingSignature: "gAAAAABpEnc-0003"
    })
    const answer = messages(session.entries).filter((m) => m.role === "assistant").map(textOf).find((t) => t.length > 0)
    expect(answer).toContain("sk-[REDACTED] was not needed")
  })

  it("turns model and effort changes into model_change / thinking_level_change", () => {
    const changes = session.entries.filter((e) => e.type === "model_change" || e.type === "thinking_level_change")
    expect(
      changes.map((e) =>
        e.type === "model_change" ? e.modelId : e.type === "thinking_level_change" ? e.thinkingLevel : ""
      )
    ).toEqual([
      "gpt-5-codex",
      "medium",
      "gpt-5.1-codex-max",
      "high"
    ])
    const context = contextOf(session)
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-5.1-codex-max" })
    expect(context.thinkingLevel).toBe("high")
  })

  it("turns a remote compaction with replacement_history into a compaction (history rendered, kept raw)", () => {
    const compaction = session.entries.find((e) => e.type === "compaction") as Entry.CompactionEntry
    expect(compaction.summary).toContain("user: Why does GET /health return 503?")
    expect((compaction.details as { replacement_history: Array<unknown> }).replacement_history).toHaveLength(2)
    const context = contextOf(session)
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary" })
    expect(textOf(context.messages[1] as AgentMessage.AgentMessage)).toBe("Now add a test for the 503 path.")
  })

  it("keeps the prompt's image, the mid-turn stop (unpaired call), and reports the unknown line and the torn tail", () => {
    const prompt = messages(session.entries).filter((m) => m.role === "user").at(-1) as AgentMessage.UserMessage
    expect(prompt.content).toEqual([
      { type: "text", text: "Now add a test for the 503 path." },
      expect.objectContaining({ type: "image", mimeType: "image/png" })
    ])
    expect(session.skipped).toEqual([
      { line: 23, offset: expect.any(Number), reason: "unknown record type \"ghost_commit\"" },
      { line: 30, offset: expect.any(Number), reason: expect.stringMatching(/^torn last line/) }
    ])
  })
})

describe("Codex legacy rollout and odd input", () => {
  it("reads the bare meta line and bare items of old rollouts (prompts from the response items)", () => {
    const session = codex(samples.codexLegacy)
    expect(session.sessionId).toBe("5973b6c0-94b8-487b-a530-2aeb6098ae0e")
    expect(session.cwd).toBe("/home/dev/old")
    expect(messages(session.entries).map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"])
    expect(textOf(messages(session.entries)[0])).toBe("list the files")
    expect(toolIds(session.entries)).toEqual({ calls: ["call_old1"], results: ["call_old1"] })
  })

  it("never throws on payloads of unexpected shapes", () => {
    const lines = [
      { timestamp: 5, type: "response_item", payload: { type: "function_call", arguments: "{not json" } },
      { timestamp: "x", type: "response_item", payload: { type: "function_call_output", output: 42 } },
      { type: "response_item", payload: { type: "brand_new_item" } },
      { type: "event_msg", payload: { type: "user_message" } },
      { type: "compacted", payload: {} },
      { type: "turn_context", payload: { model: 7 } }
    ].map((l) => JSON.stringify(l)).join("\n")
    const session = Codex.convert(splitLines(new TextEncoder().encode(lines)), { source: "x", fallbackSessionId: "fb" })
    expect(session.sessionId).toBe("fb")
    expect(session.skipped).toEqual([{
      line: 3,
      offset: expect.any(Number),
      reason: "unknown response_item type \"brand_new_item\""
    }])
    expect(() => contextOf(session)).not.toThrow()
  })
})
