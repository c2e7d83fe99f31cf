import type { AgentMessage, Entry } from "@branchlog/session-core"
import { describe, expect, it } from "@effect/vitest"
import * as Compaction from "../src/Compaction.js"
import * as LM from "../src/LanguageModel.js"

const ts = "2026-05-01T10:00:00.000Z"
let n = 0
const chain: Array<Entry.Entry> = []
const reset = () => {
  chain.length = 0
  n = 0
}
const push = (entry: Omit<Entry.Entry, "id" | "parentId" | "timestamp">, id = `e${++n}`): string => {
  chain.push({ ...entry, id, parentId: chain[chain.length - 1]?.id ?? null, timestamp: ts } as Entry.Entry)
  return id
}
const text = (tokens: number, c = "x") => c.repeat(tokens * 4)
const user = (tokens: number) =>
  push({ type: "message", message: { role: "user", content: text(tokens), timestamp: 0 } } as any)
const assistant = (tokens: number, calls: ReadonlyArray<{ id: string; name: string; path?: string }> = []) =>
  push({
    type: "message",
    message: {
      ...LM.emptyAssistant({ api: "t", provider: "p", model: "m", timestamp: 0 }),
      content: [
        { type: "text", text: text(tokens) },
        ...calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.path ? { path: c.path } : {} }))
      ],
      stopReason: calls.length > 0 ? "toolUse" : "stop"
    }
  } as any)
const result = (id: string, tokens: number) =>
  push(
    {
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: id,
        toolName: "t",
        content: [{ type: "text", text: text(tokens) }],
        isError: false,
        timestamp: 0
      }
    } as any
  )

describe("token estimates", () => {
  it("counts chars / 4 over text, thinking, tool calls and images", () => {
    expect(Compaction.estimateTokens({ role: "user", content: "abcdefghi", timestamp: 0 })).toBe(3)
    expect(
      Compaction.estimateTokens({
        role: "user",
        content: [{ type: "image", data: "..", mimeType: "image/png" }],
        timestamp: 0
      })
    ).toBe(1200)
    const a: AgentMessage.AssistantMessage = {
      ...LM.emptyAssistant({ api: "t", provider: "p", model: "m", timestamp: 0 }),
      content: [{ type: "thinking", thinking: "1234" }, {
        type: "toolCall",
        id: "1",
        name: "read",
        arguments: { path: "a" }
      }]
    }
    expect(Compaction.estimateTokens(a)).toBe(Math.ceil((4 + 4 + JSON.stringify({ path: "a" }).length) / 4))
    expect(Compaction.estimateTokens({ role: "compactionSummary", summary: "12345678", tokensBefore: 1, timestamp: 0 }))
      .toBe(2)
  })

  it("uses the last successful reply's usage plus what follows it", () => {
    const a = {
      ...LM.emptyAssistant({ api: "t", provider: "p", model: "m", timestamp: 0 }),
      usage: { ...LM.emptyUsage(), totalTokens: 500 }
    }
    const u: AgentMessage.UserMessage = { role: "user", content: text(10), timestamp: 0 }
    expect(Compaction.estimateContextTokens([u, a, u])).toBe(510)
    expect(Compaction.estimateContextTokens([u, { ...a, stopReason: "error" }, u])).toBe(20)
  })

  it("compacts above the threshold of the window", () => {
    const s = { enabled: true, thresholdRatio: 0.5, keepRecentTokens: 10 }
    expect(Compaction.shouldCompact(500, 1000, s)).toBe(false)
    expect(Compaction.shouldCompact(501, 1000, s)).toBe(true)
    expect(Compaction.shouldCompact(10_000, 1000, { ...s, enabled: false })).toBe(false)
  })
})

describe("cut point", () => {
  it("keeps the most recent tokens and moves the cut back to a user message", () => {
    reset()
    user(100) // e1  (0)
    assistant(100) // e2  (1)
    user(100) // e3  (2)
    assistant(10, [{ id: "c1", name: "read", path: "a.txt" }]) // e4 (3)
    result("c1", 100) // e5 (4)
    assistant(50) // e6 (5)
    user(20) // e7 (6)
    assistant(20) // e8 (7)
    // Keeping 100 tokens reaches e6 (index 5): the cut moves back to the user message e3.
    expect(Compaction.findCutIndex(chain, 100)).toBe(2)
    // Keeping 40 tokens reaches e7 exactly: a user message, kept as is.
    expect(Compaction.findCutIndex(chain, 40)).toBe(6)
    // Keeping 41 reaches e6 → back to e3; never the tool result e5 nor the assistant e4.
    expect(Compaction.findCutIndex(chain, 41)).toBe(2)
    // Everything fits: nothing to compact.
    expect(Compaction.findCutIndex(chain, 10_000)).toBeUndefined()
    // The cut lands on the first entry: nothing before it to summarise.
    expect(Compaction.findCutIndex(chain, 430)).toBeUndefined()
    // Entries without a message before the first user message (a thinking level) are not enough to summarise.
    const withSetting = [
      { type: "thinking_level_change", id: "t", parentId: null, timestamp: ts, thinkingLevel: "off" } as Entry.Entry,
      ...chain
    ]
    expect(Compaction.findCutIndex(withSetting, 430)).toBeUndefined()
    expect(Compaction.findCutIndex(withSetting, 100)).toBe(3)
  })

  it("never cuts between a tool call and its result, even at a user message", () => {
    reset()
    user(100) // 0
    assistant(100) // 1
    user(10) // 2
    assistant(10, [{ id: "c1", name: "bash" }]) // 3
    user(10) // 4: a user message while c1 is open (another writer): not a valid cut
    result("c1", 10) // 5
    assistant(10) // 6
    expect(Compaction.findCutIndex(chain, 15)).toBe(2) // reaches the result (5): 4 is open, 3 is an assistant
    expect(Compaction.findCutIndex(chain, 25)).toBe(2) // reaches the interleaved user message (4) itself
  })

  it("starts from the previous compaction's kept entries and merges its details", () => {
    reset()
    user(100) // e1
    assistant(100, [{ id: "r", name: "read", path: "old.txt" }]) // e2
    result("r", 1) // e3
    const kept = user(100) // e4
    assistant(100) // e5
    push(
      {
        type: "compaction",
        summary: "S1",
        firstKeptEntryId: kept,
        tokensBefore: 400,
        details: { readFiles: ["old.txt"], modifiedFiles: [] }
      } as any
    ) // e6
    user(100) // e7
    assistant(10, [{ id: "w", name: "write", path: "b.txt" }, { id: "r2", name: "read", path: "b.txt" }, {
      id: "r3",
      name: "read",
      path: "c.txt"
    }]) // e8
    result("w", 1) // e9
    result("r2", 1) // e10
    result("r3", 1) // e11
    const recent = user(50) // e12
    assistant(50) // e13
    const live = Compaction.liveEntries(chain)
    expect(live.entries.map((e) => e.id)).toEqual(["e4", "e5", "e7", "e8", "e9", "e10", "e11", "e12", "e13"])
    expect(live.previous?.summary).toBe("S1")
    const plan = Compaction.prepare(chain, { enabled: true, thresholdRatio: 0.8, keepRecentTokens: 100 })!
    expect(plan.firstKeptEntryId).toBe(recent)
    expect(plan.previousSummary).toBe("S1")
    expect(plan.messagesToSummarize.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult"
    ])
    expect(plan.details).toEqual({ readFiles: ["c.txt", "old.txt"], modifiedFiles: ["b.txt"] })
    expect(plan.tokensBefore).toBe(
      Math.ceil(2 / 4) + 100 + 100 + 100 + Compaction.estimateTokens((chain[7] as any).message) + 3 + 50 + 50
    )
  })

  it("a summary request carries the conversation as text, the previous summary, and no tools", () => {
    const req = Compaction.summaryRequest({
      purpose: "compaction",
      model: { provider: "p", id: "m" },
      messages: [{ role: "user", content: "hi", timestamp: 0 }],
      previousSummary: "before"
    })
    expect(req.tools).toEqual([])
    expect(req.messages).toHaveLength(1)
    expect((req.messages[0]!.content as any)[0].text).toBe(
      "<conversation>\n[User]: hi\n</conversation>\n\n<previous-summary>\nbefore\n</previous-summary>\n\nSummarise the conversation so far, merging the previous summary if there is one."
    )
  })
})
