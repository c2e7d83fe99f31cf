// pi 1.6's additions (spec §15), rule by rule: `usage` and `context_edit` entries, the compaction's
// `systemMessage`, `firstKeptEntryId: null`, system messages in a kept range, null content.
import { describe, expect, it } from "vitest"
import * as JsonView from "../src/JsonView.js"
import * as SessionContext from "../src/SessionContext.js"
import { testUsage } from "../src/testing/Messages.js"
import * as Tree from "../src/Tree.js"
import { assistant, compaction, entry, header, roles, stateOf, user } from "./support/build.js"

const usage = (id: string, parentId: string | null, model = "other-model") =>
  entry("usage", id, parentId, { kind: "cache_warm", provider: "other", model, usage: testUsage })
const edit = (id: string, parentId: string | null, targetId: string, replacement: unknown) =>
  entry("context_edit", id, parentId, { targetId, replacement })
const message = (id: string, parentId: string | null, fields: Record<string, unknown>) =>
  entry("message", id, parentId, { message: { timestamp: 1, ...fields } })
const system = (id: string, parentId: string | null, content: unknown = `system ${id}`) =>
  message(id, parentId, { role: "system", content })
const toolResult = (id: string, parentId: string | null, content: unknown = [{ type: "text", text: `result ${id}` }]) =>
  message(id, parentId, { role: "toolResult", toolCallId: "c1", toolName: "read", content, isError: false })
const customMessage = (id: string, parentId: string | null, content: unknown = `custom ${id}`) =>
  entry("custom_message", id, parentId, { customType: "ext", content, display: true })
const systemState = { role: "system", content: "the prompt at the compaction", timestamp: 7 }

const contentsAt = (rows: ReadonlyArray<unknown>, leafId?: string) =>
  SessionContext.buildSessionContext(stateOf(header(), ...rows), leafId).messages.map((m) =>
    "content" in m ? m.content : (m as { summary?: string }).summary
  )

describe("usage entries", () => {
  const rows = [user("a", null), assistant("b", "a", "hi", "model-a"), usage("u", "b")]

  it("are tree nodes, are counted, and may be the leaf", () => {
    const state = stateOf(header(), ...rows)
    expect(JsonView.info(state)).toMatchObject({ entries: 3, leafId: "u" })
    expect(JsonView.tree(state).nodes.map((n) => [n.id, n.type])).toContainEqual(["u", "usage"])
    expect(Tree.getBranch(state).map((e) => e.id)).toEqual(["a", "b", "u"])
  })

  it("emit nothing and do not change the model", () => {
    const result = SessionContext.buildSessionContext(stateOf(header(), ...rows))
    expect(roles(result.messages)).toEqual(["user", "assistant"])
    expect(result.model).toEqual({ provider: "prov", modelId: "model-a" })
    expect(SessionContext.buildSessionContext(stateOf(header(), usage("u", null))).model).toBeNull()
  })
})

describe("context_edit entries", () => {
  it("are tree nodes, are counted, may be the leaf, and emit nothing themselves", () => {
    const state = stateOf(header(), user("a", null), edit("e", "a", "zzz", null))
    expect(JsonView.info(state)).toMatchObject({ entries: 2, leafId: "e" })
    expect(JsonView.tree(state).nodes.map((n) => n.type)).toEqual(["message", "context_edit"])
    expect(roles(SessionContext.buildSessionContext(state).messages)).toEqual(["user"])
  })

  it("swap a user's content and keep every other field; a string stays a string", () => {
    const state = stateOf(header(), user("a", null, "old"), edit("e", "a", "a", { content: "new" }))
    const [m] = SessionContext.buildSessionContext(state).messages
    expect(m).toEqual({ role: "user", content: "new", timestamp: 1 })
    expect((state.byId.get("a") as { message: { content: unknown } }).message.content).toBe("old") // stored row unchanged
  })

  it("give an assistant or tool result one text block for a string, keep an array as it is", () => {
    const rows = [
      assistant("a", null, "old"),
      toolResult("t", "a"),
      user("u", "t"),
      edit("e1", "u", "a", { content: "assistant text" }),
      edit("e2", "e1", "t", { content: "tool text" }),
      edit("e3", "e2", "u", { content: [{ type: "text", text: "array" }] })
    ]
    expect(contentsAt(rows)).toEqual([
      [{ type: "text", text: "assistant text" }],
      [{ type: "text", text: "tool text" }],
      [{ type: "text", text: "array" }]
    ])
    const [a] = SessionContext.buildSessionContext(stateOf(header(), ...rows)).messages
    expect(a).toMatchObject({ role: "assistant", provider: "prov", model: "model-a", stopReason: "stop" })
  })

  it("swap a custom message's content (string stays a string), and a stored custom role message's", () => {
    const rows = [
      customMessage("c", null, [{ type: "text", text: "old" }]),
      message("m", "c", { role: "custom", customType: "x", content: "old", display: true }),
      edit("e1", "m", "c", { content: "custom string" }),
      edit("e2", "e1", "m", { content: "stored custom" })
    ]
    expect(contentsAt(rows)).toEqual(["custom string", "stored custom"])
  })

  it("leave other roles as they are: bash executions, system messages, branch and compaction summaries", () => {
    const rows = [
      message("b", null, {
        role: "bashExecution",
        command: "ls",
        output: "a",
        exitCode: 0,
        cancelled: false,
        truncated: false
      }),
      system("s", "b"),
      entry("branch_summary", "bs", "s", { fromId: "root", summary: "a branch" }),
      edit("e1", "bs", "b", { content: "x" }),
      edit("e2", "e1", "s", { content: "x" }),
      edit("e3", "e2", "bs", { content: "x" })
    ]
    const messages = SessionContext.buildSessionContext(stateOf(header(), ...rows)).messages
    expect(messages).toEqual(SessionContext.buildSessionContext(stateOf(header(), ...rows.slice(0, 3))).messages)
    const withCompaction = [
      user("a", null),
      { ...compaction("c", "a", "a"), systemMessage: systemState },
      edit("e", "c", "c", { content: "x" })
    ]
    expect(contentsAt(withCompaction)).toEqual(["the prompt at the compaction", "summary c", "user a"])
  })

  it("remove the target's whole contribution with null, whatever its type", () => {
    const rows = [
      user("a", null),
      customMessage("c", "a"),
      entry("branch_summary", "bs", "c", { fromId: "root", summary: "a branch" }),
      assistant("x", "bs"),
      edit("e1", "x", "a", null),
      edit("e2", "e1", "c", null),
      edit("e3", "e2", "bs", null)
    ]
    expect(roles(SessionContext.buildSessionContext(stateOf(header(), ...rows)).messages)).toEqual(["assistant"])
    const compacted = [
      user("a", null),
      { ...compaction("c", "a", "a"), systemMessage: systemState },
      user("b", "c"),
      edit("e", "b", "c", null)
    ]
    expect(contentsAt(compacted)).toEqual(["user a", "user b"])
  })

  it("follow the last edit of a target in path order", () => {
    const rows = [
      user("a", null),
      edit("e1", "a", "a", { content: "first" }),
      edit("e2", "e1", "a", null),
      edit("e3", "e2", "a", { content: "third" })
    ]
    expect(contentsAt(rows)).toEqual(["third"])
    expect(contentsAt(rows, "e2")).toEqual([])
    expect(contentsAt(rows, "e1")).toEqual(["first"])
  })

  it("count only on the branches that hold them", () => {
    const rows = [
      user("a", null),
      edit("e", "a", "a", { content: "edited" }),
      user("b", "e"),
      user("c", "a") // a sibling branch of the edit
    ]
    expect(contentsAt(rows, "b")).toEqual(["edited", "user b"])
    expect(contentsAt(rows, "c")).toEqual(["user a", "user c"])
  })

  it("may target an entry later on the path", () => {
    const rows = [user("a", null), edit("e", "a", "b", { content: "edited ahead" }), user("b", "e")]
    expect(contentsAt(rows)).toEqual(["user a", "edited ahead"])
    expect(contentsAt(rows, "e")).toEqual(["user a"])
  })

  it("do nothing to a target before firstKeptEntryId, and do not count when summarised away", () => {
    const rows = [
      user("a", null),
      edit("e1", "a", "b", { content: "summarised away" }), // before the kept range: not selected
      user("b", "e1"),
      edit("e2", "b", "b", { content: "in the kept range" }),
      compaction("c", "e2", "b"),
      edit("e3", "c", "a", { content: "target not selected" }),
      user("d", "e3")
    ]
    expect(contentsAt(rows)).toEqual(["summary c", "in the kept range", "user d"])
    // the same edit before the kept range is ignored even when no later edit overrides it
    const ignored = [user("a", null), edit("e1", "a", "b", null), user("b", "e1"), compaction("c", "b", "b")]
    expect(contentsAt(ignored)).toEqual(["summary c", "user b"])
  })

  it("without a usable replacement (missing, a string, content of another type) change nothing", () => {
    const base = [user("a", null)]
    for (const replacement of [undefined, "text", 5, { content: 5 }, { other: 1 }, [null]]) {
      const row = replacement === undefined
        ? entry("context_edit", "e", "a", { targetId: "a" })
        : edit("e", "a", "a", replacement)
      expect(contentsAt([...base, row])).toEqual(["user a"])
    }
  })
})

describe("compactions and system messages", () => {
  it("emit the compaction's systemMessage before its summary", () => {
    const rows = [user("a", null), { ...compaction("c", "a", "a"), systemMessage: systemState, usage: testUsage }]
    const state = stateOf(header(), ...rows)
    const messages = SessionContext.buildSessionContext(state).messages
    expect(roles(messages)).toEqual(["system", "compactionSummary", "user"])
    expect(messages[0]).toBe((state.byId.get("c") as { systemMessage: unknown }).systemMessage)
    expect(messages[0]).toEqual(systemState)
  })

  it("keep nothing before a compaction whose firstKeptEntryId is null or its own id", () => {
    for (const kept of [null, "c"]) {
      const rows = [user("a", null), { ...compaction("c", "a", "a"), firstKeptEntryId: kept }, user("b", "c")]
      expect(roles(SessionContext.buildSessionContext(stateOf(header(), ...rows)).messages)).toEqual([
        "compactionSummary",
        "user"
      ])
    }
  })

  it("drop system messages inside the kept range and emit them after the compaction", () => {
    const rows = [
      system("s1", null),
      user("a", "s1"),
      system("s2", "a"),
      compaction("c", "s2", "s1"),
      system("s3", "c")
    ]
    expect(contentsAt(rows)).toEqual(["summary c", "user a", "system s3"])
    expect(contentsAt(rows, "s2")).toEqual(["system s1", "user a", "system s2"]) // no compaction: all of them
  })

  it("keep a branch summary's usage field out of the context and leave it on the entry", () => {
    const rows = [entry("branch_summary", "bs", null, { fromId: "root", summary: "s", usage: testUsage })]
    expect(SessionContext.buildSessionContext(stateOf(header(), ...rows)).messages).toEqual([
      { role: "branchSummary", summary: "s", fromId: "root", timestamp: expect.any(Number) }
    ])
  })
})

describe("null content", () => {
  it("is [] for user, assistant and tool result messages, \"\" for a system message", () => {
    const assistantRow = assistant("b", "a")
    ;(assistantRow.message as { content: unknown }).content = null
    const rows = [
      message("a", null, { role: "user", content: null }),
      assistantRow,
      toolResult("t", "b", null),
      system("s", "t", null),
      message("n", "s", { role: "user" }) // absent counts as null
    ]
    expect(contentsAt(rows)).toEqual([[], [], [], "", []])
  })

  it("is [] for a custom_message without content, and left alone for other roles", () => {
    const rows = [
      entry("custom_message", "c", null, { customType: "x", display: true }),
      customMessage("d", "c", null),
      message("m", "d", { role: "custom", customType: "x", display: true, content: null })
    ]
    expect(contentsAt(rows)).toEqual([[], [], null])
  })
})
