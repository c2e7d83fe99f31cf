import type { AgentMessage, Entry } from "@branchlog/session-core"
import { Tree } from "@branchlog/session-core"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as ClaudeCode from "../src/ClaudeCode.js"
import { splitLines } from "../src/internal/jsonl.js"
import { generate, sourceLines, type TurnSpec } from "./support/claudeGen.js"
import { contextOf, messages, stateOf, textOf } from "./support/samples.js"

const convert = (lines: ReturnType<typeof sourceLines>) =>
  ClaudeCode.convert(lines, { source: "gen.jsonl", fallbackSessionId: "gen" })[0]!

/** The messages of the active path, in order. */
const pathMessages = (session: ReturnType<typeof convert>) => messages(Tree.getBranch(stateOf(session), session.leafId))

/**
 * The problems of a path: a tool call not followed, before the next prompt or reply, by its
 * result, in the order of the calls; a result with no call before it.
 */
const problems = (path: ReadonlyArray<AgentMessage.AgentMessage>): Array<string> => {
  const out: Array<string> = []
  path.forEach((m, i) => {
    if (m.role !== "assistant") return
    const calls = (m as AgentMessage.AssistantMessage).content.flatMap((b) => b.type === "toolCall" ? [b.id] : [])
    const after = path.slice(i + 1, i + 1 + calls.length)
      .map((r) => r.role === "toolResult" ? (r as AgentMessage.ToolResultMessage).toolCallId : `(${r.role})`)
    if (JSON.stringify(after) !== JSON.stringify(calls)) {
      out.push(`message ${i}: calls ${calls.join(",")} followed by ${after.join(",")}`)
    }
  })
  return out
}

const line = (r: Record<string, unknown>) => JSON.stringify(r)
const at = (s: number) => new Date(Date.parse("2026-11-20T10:00:00.000Z") + s * 1000).toISOString()
const common = { isSidechain: false, cwd: "/w", sessionId: "s-1", version: "2.1.37" }
const user = (uuid: string, parentUuid: string | null, content: unknown, s: number, extra = {}) => ({
  ...common,
  type: "user",
  uuid,
  parentUuid,
  timestamp: at(s),
  message: { role: "user", content },
  ...extra
})
const assistant = (uuid: string, parentUuid: string, id: string, block: unknown, s: number, stop: string | null) => ({
  ...common,
  type: "assistant",
  uuid,
  parentUuid,
  timestamp: at(s),
  message: { id, role: "assistant", model: "claude-opus-4-5-20251101", content: [block], stop_reason: stop, usage: {} }
})
const call = (id: string) => ({ type: "tool_use", id, name: "Bash", input: { command: id } })
const result = (uuid: string, parentUuid: string, callId: string, s: number) =>
  user(uuid, parentUuid, [{ tool_use_id: callId, type: "tool_result", content: `out ${callId}` }], s, {
    sourceToolAssistantUUID: parentUuid
  })

describe("Claude Code 2.1.x parallel tool calls", () => {
  // three parallel calls: each result hangs on its own tool_use line, the second written before
  // the third call's line (streaming execution), the results out of order; then a rewind of the
  // first prompt, whose new branch has two more parallel calls
  const records = [
    user("u1", null, "find the bug", 0),
    assistant("a1", "u1", "msg_1", { type: "thinking", thinking: "three at once", signature: "s" }, 1, null),
    assistant("a2", "a1", "msg_1", call("t1"), 2, null),
    assistant("a3", "a2", "msg_1", call("t2"), 3, null),
    result("r2", "a3", "t2", 4),
    assistant("a4", "r2", "msg_1", call("t3"), 5, "tool_use"),
    result("r3", "a4", "t3", 6),
    { type: "progress", ...common, uuid: "p1", parentUuid: "r3", timestamp: at(6), data: { type: "hook_progress" } },
    result("r1", "a2", "t1", 7),
    assistant("a5", "r1", "msg_2", { type: "text", text: "found it" }, 8, "end_turn"),
    { type: "permission-mode", permissionMode: "plan", sessionId: "s-1" },
    // the rewind: a new first prompt
    user("u2", null, "find the bug, but only in src/", 9),
    assistant("b1", "u2", "msg_3", call("t4"), 10, null),
    assistant("b2", "b1", "msg_3", call("t5"), 11, "tool_use"),
    result("s5", "b2", "t5", 12),
    result("s4", "s5", "t4", 13),
    assistant("b3", "s4", "msg_4", { type: "text", text: "src/ is clean" }, 14, "end_turn")
  ]
  const session = convert(splitLines(new TextEncoder().encode(records.map(line).join("\n") + "\n")))

  it("keeps one assistant message per message.id, every call followed by its result, in order", () => {
    const path = pathMessages(session)
    expect(path.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "assistant"])
    expect(problems(path)).toEqual([])
    expect(textOf(path[0])).toBe("find the bug, but only in src/")
  })

  it("keeps the rewound branch as a branch, with its three results in the order of the calls", () => {
    const all = messages(session.entries)
    const first = session.entries.find((e) => e.type === "message" && textOf(e.message) === "find the bug")!
    const state = stateOf(session)
    const oldLeaf = session.entries.find((e) => e.type === "message" && textOf(e.message) === "found it")!
    const old = messages(Tree.getBranch(state, oldLeaf.id))
    expect(old.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"])
    expect(problems(old)).toEqual([])
    expect((old[1] as AgentMessage.AssistantMessage).content.map((b) => b.type)).toEqual([
      "thinking",
      "toolCall",
      "toolCall",
      "toolCall"
    ])
    expect(all.filter((m) => m.role === "toolResult")).toHaveLength(5)
    // both prompts hang on the provenance entry: two branches
    expect(first.parentId).toBe(session.entries[0]!.id)
  })

  it("keeps the permission-mode record as a custom entry on the path where it was written", () => {
    const custom = session.entries.find((e): e is Entry.CustomEntry =>
      e.type === "custom" && e.customType === "claude-code.permission-mode"
    )!
    expect(custom.data).toMatchObject({ permissionMode: "plan" })
    const found = session.entries.find((e) => e.id === custom.parentId)!
    expect(found.type === "message" && textOf(found.message)).toBe("found it")
    expect(session.skipped).toEqual([])
  })

  it("gives the context the model saw: calls with their results", () => {
    const context = contextOf(session)
    expect(problems(context.messages as Array<AgentMessage.AgentMessage>)).toEqual([])
  })

  it("property: any parallelism, result order, linking and rewinds: every call on the active path is followed by its result", () => {
    const turn: fc.Arbitrary<TurnSpec> = fc.record({
      rounds: fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }),
      thinking: fc.boolean(),
      seed: fc.integer(),
      rewind: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 3 }))
    })
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 8 }), (turns) => {
        const g = generate(turns)
        const s = convert(sourceLines(g))
        const path = pathMessages(s)
        expect(problems(path)).toEqual([])
        // nothing lost: one assistant message per API message, one result per call
        const all = messages(s.entries)
        expect(all.filter((m) => m.role === "assistant")).toHaveLength(g.messages.length)
        expect(all.filter((m) => m.role === "toolResult")).toHaveLength(
          g.messages.reduce((n, m) => n + m.calls.length, 0)
        )
        // every branch's end, too
        const state = stateOf(s)
        const ends = s.entries.filter((e) => !s.entries.some((c) => c.parentId === e.id))
        for (const end of ends) expect(problems(messages(Tree.getBranch(state, end.id)))).toEqual([])
        // the active path ends with the last turn's reply
        expect(textOf(path.at(-1))).toBe(`reply ${turns.length - 1}`)
        expect(s.skipped).toEqual([])
      }),
      { numRuns: 150 }
    )
  })
})

describe("Claude Code 2.1.x records around the messages", () => {
  const records = [
    user("u1", null, "hello", 0),
    {
      ...assistant("a1", "u1", "msg_s", { type: "text", text: "API Error: 529 overloaded" }, 1, "stop_sequence"),
      isApiErrorMessage: true
    },
    { type: "ai-title", aiTitle: "Greeting the assistant", sessionId: "s-1" },
    { type: "agent-name", agentName: "helper", sessionId: "s-1" },
    { type: "mode", mode: "normal", sessionId: "s-1" }
  ]
  const synthetic = records[1] as { message: { model: string } }
  synthetic.message.model = "<synthetic>"
  const session = convert(splitLines(new TextEncoder().encode(records.map(line).join("\n") + "\n")))

  it("marks a message Claude Code wrote itself as synthetic, not as a model's", () => {
    const reply = messages(session.entries).find((m) => m.role === "assistant") as AgentMessage.AssistantMessage
    expect(reply).toMatchObject({ provider: "claude-code", model: "synthetic", stopReason: "error" })
  })

  it("keeps metadata records as custom entries in the order written, and names the session from ai-title", () => {
    const customs = session.entries.filter((e): e is Entry.CustomEntry =>
      e.type === "custom" && e.customType.startsWith("claude-code.")
    )
    expect(customs.map((e) => e.customType)).toEqual([
      "claude-code.ai-title",
      "claude-code.agent-name",
      "claude-code.mode"
    ])
    // a chain on the path, not branches
    expect(customs[1]!.parentId).toBe(customs[0]!.id)
    expect(customs[2]!.parentId).toBe(customs[1]!.id)
    expect(Tree.getSessionName(stateOf(session))).toBe("Greeting the assistant")
    expect(session.skipped).toEqual([])
    const path = Tree.getBranch(stateOf(session), session.leafId).map((e) => e.type)
    expect(path).toEqual(["custom", "message", "message", "custom", "custom", "custom", "session_info"])
  })
})
