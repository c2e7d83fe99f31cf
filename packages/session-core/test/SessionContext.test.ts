import { describe, expect, it } from "vitest"
import * as SessionContext from "../src/SessionContext.js"
import { assistant, compaction, entry, header, roles, stateOf, user } from "./support/build.js"

const ctx = (...rows: ReadonlyArray<unknown>) => SessionContext.buildSessionContext(stateOf(...rows))

describe("buildSessionContext", () => {
  it("emits the path's messages in order, with defaults when nothing sets the settings", () => {
    const result = SessionContext.buildSessionContext(stateOf(header(), user("a", null)))
    expect(roles(result.messages)).toEqual(["user"])
    expect(result.thinkingLevel).toBe("off")
    expect(result.model).toBeNull()
  })

  it("returns the stored message objects themselves", () => {
    const state = stateOf(header(), user("a", null))
    const entry = state.byId.get("a") as { message: unknown }
    expect(SessionContext.buildSessionContext(state).messages[0]).toBe(entry.message)
  })

  it("is empty for a null leaf and for a session without entries", () => {
    expect(SessionContext.buildSessionContext(stateOf(header(), user("a", null)), null)).toEqual({
      messages: [],
      thinkingLevel: "off",
      model: null
    })
    expect(ctx(header())).toEqual({ messages: [], thinkingLevel: "off", model: null })
  })

  it("uses the last entry in file order when the leaf is not found", () => {
    const state = stateOf(header(), user("a", null), assistant("b", "a"), user("c", "a"))
    expect(roles(SessionContext.buildSessionContext(state, "nope").messages)).toEqual(["user", "user"])
  })

  it("stops at a missing parent (orphaned entries)", () => {
    expect(roles(ctx(header(), user("a", null), user("b", "missing")).messages)).toEqual(["user"])
  })

  it("takes the last thinking level and model on the path, from model_change or assistant messages", () => {
    const result = ctx(
      header(),
      entry("thinking_level_change", "t1", null, { thinkingLevel: "low" }),
      entry("model_change", "m1", "t1", { provider: "p1", modelId: "first" }),
      assistant("a1", "m1", "x", "from-assistant"),
      entry("thinking_level_change", "t2", "a1", { thinkingLevel: "high" })
    )
    expect(result.thinkingLevel).toBe("high")
    expect(result.model).toEqual({ provider: "prov", modelId: "from-assistant" })
    const later = ctx(
      header(),
      assistant("a1", null, "x", "from-assistant"),
      entry("model_change", "m1", "a1", { provider: "p2", modelId: "chosen" })
    )
    expect(later.model).toEqual({ provider: "p2", modelId: "chosen" })
  })

  it("ignores settings on other branches", () => {
    const result = ctx(
      header(),
      user("a", null),
      entry("thinking_level_change", "t1", "a", { thinkingLevel: "high" }),
      entry("model_change", "m1", "t1", { provider: "p", modelId: "other" }),
      user("b", "a")
    )
    expect(result.thinkingLevel).toBe("off")
    expect(result.model).toBeNull()
  })

  it("puts the compaction summary first, then the kept entries, then what follows", () => {
    const result = ctx(
      header(),
      user("u1", null),
      assistant("a1", "u1"),
      user("u2", "a1"),
      assistant("a2", "u2"),
      compaction("c1", "a2", "u2", "the summary"),
      user("u3", "c1"),
      assistant("a3", "u3")
    )
    expect(roles(result.messages)).toEqual(["compactionSummary", "user", "assistant", "user", "assistant"])
    expect(result.messages[0]).toMatchObject({ role: "compactionSummary", summary: "the summary", tokensBefore: 1000 })
    expect((result.messages[1] as any).content).toBe("user u2")
  })

  it("gives the summary the compaction's timestamp in milliseconds", () => {
    const state = stateOf(header(), user("u1", null), compaction("c1", "u1", "u1"))
    const [summary] = SessionContext.buildSessionContext(state).messages
    expect((summary as any).timestamp).toBe(Date.parse(state.byId.get("c1")!.timestamp))
  })

  it("uses the latest of several compactions and keeps nothing from before an earlier one", () => {
    const result = ctx(
      header(),
      user("u1", null),
      compaction("c1", "u1", "u1", "first"),
      user("u2", "c1"),
      assistant("a2", "u2"),
      compaction("c2", "a2", "a2", "second"),
      user("u3", "c2")
    )
    expect(roles(result.messages)).toEqual(["compactionSummary", "assistant", "user"])
    expect((result.messages[0] as any).summary).toBe("second")
  })

  it("keeps nothing before the compaction when firstKeptEntryId is not on the path", () => {
    const result = ctx(
      header(),
      user("u1", null),
      assistant("a1", "u1"),
      user("side", "u1"),
      compaction("c1", "a1", "side"),
      user("u2", "c1")
    )
    expect(roles(result.messages)).toEqual(["compactionSummary", "user"])
  })

  it("repairs a firstKeptEntryId that names an opaque row to its canonical ancestor (OpenClaw)", () => {
    const result = ctx(
      header(),
      user("u1", null),
      assistant("a1", "u1"),
      { type: "x.note", id: "o1", parentId: "a1" },
      user("u2", "o1"),
      compaction("c1", "u2", "o1"),
      user("u3", "c1")
    )
    expect(roles(result.messages)).toEqual(["compactionSummary", "assistant", "user", "user"])
  })

  it("emits custom_message entries as custom messages and custom entries not at all", () => {
    const result = ctx(
      header(),
      user("u1", null),
      entry("custom", "c1", "u1", { customType: "state", data: { x: 1 } }),
      entry("custom_message", "cm", "c1", { customType: "note", content: "hello", display: false, details: { a: 1 } })
    )
    expect(roles(result.messages)).toEqual(["user", "custom"])
    expect(result.messages[1]).toMatchObject({
      role: "custom",
      customType: "note",
      content: "hello",
      display: false,
      details: { a: 1 }
    })
  })

  it("emits branch summaries with a summary, including one from the root, and skips empty ones", () => {
    const result = ctx(
      header(),
      entry("branch_summary", "b0", null, { fromId: "root", summary: "from the root" }),
      user("u1", "b0"),
      entry("branch_summary", "b1", "u1", { fromId: "u1", summary: "" }),
      entry("branch_summary", "b2", "b1", { fromId: "u1", summary: "came back" })
    )
    expect(roles(result.messages)).toEqual(["branchSummary", "user", "branchSummary"])
    expect(result.messages[0]).toMatchObject({ fromId: "root", summary: "from the root" })
  })

  it("keeps string and object content of assistant and tool result messages as stored (pi and OpenClaw give them verbatim)", () => {
    const state = stateOf(
      header(),
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "assistant", content: "plain", provider: "p", model: "m", timestamp: 1 }
      },
      {
        type: "message",
        id: "t",
        parentId: "a",
        timestamp: "2026-01-01T00:00:01.000Z",
        message: {
          role: "toolResult",
          toolCallId: "x",
          toolName: "read",
          content: { type: "text", text: "obj" },
          isError: false,
          timestamp: 2
        }
      }
    )
    const [a, t] = SessionContext.buildSessionContext(state).messages as Array<any>
    expect(a.content).toBe("plain")
    expect(t.content).toEqual({ type: "text", text: "obj" })
    expect((state.byId.get("a") as any).message.content).toBe("plain")
  })

  it("keeps messages marked excludeFromContext (pi and OpenClaw 2026.6 agree)", () => {
    const bash = {
      type: "message",
      id: "b",
      parentId: null,
      timestamp: "t",
      message: {
        role: "bashExecution",
        command: "ls",
        output: "",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: 1
      }
    }
    expect(roles(ctx(header(), bash).messages)).toEqual(["bashExecution"])
  })

  it("terminates on a parent cycle", () => {
    const state = stateOf(header(), user("x", "y"), user("y", "x"))
    expect(roles(SessionContext.buildSessionContext(state, "y").messages)).toEqual(["user", "user"])
  })
})
