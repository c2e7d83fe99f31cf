/** Every append kind: the stored row's fields, and the same entry (and its effect on the context) after a reopen. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Held, TranscriptStoreShape } from "../../TranscriptStore.js"
import { TranscriptStore } from "../../TranscriptStore.js"
import type { Group } from "./support.js"
import { assistant, raw, reopen, stored, test, toolResult, user, written } from "./support.js"

const usage = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
}

/**
 * The store in context, wrapped to record the rows of every write a manager asks of it (one array
 * per call: `create`, `append`, and the synchronous paths that wrote); managers made under
 * `provide` write through it.
 */
const recordingWrites = Effect.map(TranscriptStore, (store) => {
  const writes: Array<ReadonlyArray<string>> = []
  const held = (h: Held): Held => {
    const vouched = h.unsafeAppendVouched
    return {
      ...h,
      create: (rows, options) => Effect.suspend(() => (writes.push(rows), h.create(rows, options))),
      append: (cursor, rows, options) => Effect.suspend(() => (writes.push(rows), h.append(cursor, rows, options))),
      ...(vouched === undefined ? {} : {
        unsafeAppendVouched: (cursor, rows, options) => {
          const result = vouched(cursor, rows, options)
          if (result !== undefined) writes.push(rows)
          return result
        }
      })
    }
  }
  const locked = store.unsafeAppendLocked
  const wrapped: TranscriptStoreShape = {
    ...store,
    exclusive: (ref, use, options) => store.exclusive(ref, (h) => use(held(h)), options),
    ...(locked === undefined ? {} : {
      unsafeAppendLocked: (fiber, ref, cursor, rows, options) => {
        let texts: ReadonlyArray<string> = []
        const result = locked(fiber, ref, cursor, () => (texts = rows()), options)
        if (result !== undefined && texts.length > 0) writes.push(texts)
        return result
      }
    })
  }
  return { writes, provide: Effect.provideService(TranscriptStore, wrapped) }
})

/** The append cases. */
export const group: Group = {
  name: "every append kind",
  cases: [
    test("user, assistant and tool result messages come back equal after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        yield* sm.appendMessage(toolResult("file contents"))
        yield* sm.appendMessage(assistant("done", "claude-opus-4"))
        const again = yield* reopen(s, ref)
        expect(again.getEntries()).toEqual(sm.getEntries())
        expect(again.buildSessionContext().messages.map((m) => m.role)).toEqual(
          ["user", "assistant", "toolResult", "assistant"]
        )
        expect(again.buildSessionContext().model).toEqual({ provider: "anthropic", modelId: "claude-opus-4" })
      })),
    test("a thinking-level change is stored with its level and sets the context's level after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendThinkingLevelChange("xhigh")
        const row = (yield* stored(s, ref)).at(-1)!
        expect(Object.keys(row)).toEqual(["type", "id", "parentId", "timestamp", "thinkingLevel"])
        expect(row).toMatchObject({ type: "thinking_level_change", id, thinkingLevel: "xhigh" })
        const again = yield* reopen(s, ref)
        expect(again.buildSessionContext().thinkingLevel).toBe("xhigh")
      })),
    test("a model change is stored with provider and model id and sets the context's model after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendModelChange("openai", "gpt-5")
        expect((yield* stored(s, ref)).at(-1)).toEqual({
          type: "model_change",
          id,
          parentId: sm.getEntry(id)!.parentId,
          timestamp: sm.getEntry(id)!.timestamp,
          provider: "openai",
          modelId: "gpt-5"
        })
        expect((yield* reopen(s, ref)).buildSessionContext().model).toEqual({ provider: "openai", modelId: "gpt-5" })
      })),
    test("a compaction is stored with summary, kept id, tokens, details and fromHook", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        const id = yield* sm.appendCompaction("the story so far", ids[2]!, 1234, { readFiles: ["a.ts"] }, true)
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "compaction",
          id,
          parentId: ids[3],
          summary: "the story so far",
          firstKeptEntryId: ids[2],
          tokensBefore: 1234,
          details: { readFiles: ["a.ts"] },
          fromHook: true
        })
        expect((yield* reopen(s, ref)).getEntry(id)).toEqual(sm.getEntry(id))
      })),
    test("a compaction without details stores no details or fromHook fields; a null kept id is its own id", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendCompaction("nothing kept", null, 10)
        const row = (yield* stored(s, ref)).at(-1)!
        expect(Object.keys(row)).toEqual([
          "type",
          "id",
          "parentId",
          "timestamp",
          "summary",
          "firstKeptEntryId",
          "tokensBefore"
        ])
        expect(row.firstKeptEntryId).toBe(id)
      })),
    test("a custom entry is stored with its type and data (pi's key order) and stays out of the context", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendCustomEntry("my-extension", { counter: 3, nested: { ok: true } })
        const bare = yield* sm.appendCustomEntry("bare")
        const rows = yield* stored(s, ref)
        expect(rows.at(-2)).toMatchObject({
          type: "custom",
          id,
          customType: "my-extension",
          data: { counter: 3, nested: { ok: true } }
        })
        expect(Object.keys(rows.at(-1)!)).toEqual(["type", "customType", "id", "parentId", "timestamp"])
        const again = yield* reopen(s, ref)
        expect(again.getEntry(bare)).toEqual(sm.getEntry(bare))
        expect(again.getLeafId()).toBe(bare)
        expect(again.buildSessionContext().messages).toHaveLength(2)
      })),
    test("a custom message is stored with content, display and details and is in the context after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendCustomMessageEntry("note", [{ type: "text", text: "remember this" }], false, {
          n: 1
        })
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "custom_message",
          id,
          customType: "note",
          content: [{ type: "text", text: "remember this" }],
          display: false,
          details: { n: 1 }
        })
        const last = (yield* reopen(s, ref)).buildSessionContext().messages.at(-1)!
        expect(last).toMatchObject({ role: "custom", customType: "note", display: false, details: { n: 1 } })
      })),
    test("a label is stored as a label row that becomes the leaf, child of the previous leaf", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s)
        const id = yield* sm.appendLabelChange(ids[0]!, "start")
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "label",
          id,
          parentId: ids[1],
          targetId: ids[0],
          label: "start"
        })
        const again = yield* reopen(s, ref)
        expect(again.getLeafId()).toBe(id)
        expect(again.getLabel(ids[0]!)).toBe("start")
      })),
    test("a session name is stored trimmed and read back after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const id = yield* sm.appendSessionInfo("  My session  ")
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({ type: "session_info", id, name: "My session" })
        expect(sm.getSessionName()).toBe("My session")
        expect((yield* reopen(s, ref)).getSessionName()).toBe("My session")
      })),
    test("a usage entry is stored with kind, provider, model, usage and note", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s)
        const entry = yield* sm.appendUsage("summary", "anthropic", "claude-haiku", usage, "compaction call")
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "usage",
          id: entry.id,
          kind: "summary",
          provider: "anthropic",
          model: "claude-haiku",
          usage,
          note: "compaction call"
        })
        expect((yield* reopen(s, ref)).getEntry(entry.id)).toEqual(entry)
      })),
    test("a context edit is stored and changes the context after a reopen; an off-branch target is refused unwritten", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        const id = yield* sm.appendContextEdit(ids[2]!, { content: "edited question" })
        expect((yield* stored(s, ref)).at(-1)).toMatchObject({
          type: "context_edit",
          id,
          targetId: ids[2],
          replacement: { content: "edited question" }
        })
        const again = yield* reopen(s, ref)
        const messages = again.buildSessionContext().messages as ReadonlyArray<{ readonly content: unknown }>
        expect(messages.map((m) => m.content)).toContain("edited question")
        expect(messages.map((m) => m.content)).not.toContain("t1 question")
        yield* sm.branch(ids[1]!)
        const off = yield* sm.appendMessage(user("elsewhere"))
        yield* sm.branch(ids[3]!)
        const before = (yield* stored(s, ref)).length
        const refused = yield* Effect.flip(sm.appendContextEdit(off, null))
        expect(refused._tag).toBe("ContextEditRefusedError")
        expect(yield* stored(s, ref)).toHaveLength(before)
      })),
    test("a batch of messages is one commit: the store gets all its rows in one write, in order, chained", (s) =>
      Effect.gen(function*() {
        const { writes, provide } = yield* recordingWrites
        const { manager: sm, ref } = yield* provide(written(s, 1, { eagerFlush: true }))
        const before = yield* raw(s, ref)
        writes.length = 0
        const ids = yield* provide(sm.appendMessages([user("a"), assistant("b"), toolResult("c"), user("d")]))
        const rows = yield* raw(s, ref)
        expect(rows.slice(0, before.length)).toEqual(before)
        expect(rows.slice(before.length).map((row) => JSON.parse(row).id)).toEqual(ids)
        expect(writes).toEqual([rows.slice(before.length)])
        const parents = rows.slice(before.length).map((row) => JSON.parse(row).parentId)
        expect(parents).toEqual([JSON.parse(before.at(-1)!).id, ...ids.slice(0, -1)])
        // inside withWriteLock, the same: one write for the batch
        writes.length = 0
        const held = yield* provide(sm.withWriteLock(sm.appendMessages([user("e"), assistant("f")])))
        expect(writes.map((w) => w.map((row) => JSON.parse(row).id))).toEqual([held])
        expect((yield* reopen(s, ref)).getEntries()).toEqual(sm.getEntries())
      })),
    test("a batch before the first assistant message waits; the batch with one is written with it, in one write", (s) =>
      Effect.gen(function*() {
        const { writes, provide } = yield* recordingWrites
        const place = yield* s.place
        const sm = yield* provide(s.create(place, "/work/project"))
        const ref = s.refOf(sm)
        const waiting = yield* provide(sm.appendMessages([user("q1"), user("q2")]))
        expect(writes).toEqual([])
        expect(yield* s.rows(ref)).toBeUndefined()
        expect(sm.getEntries().map((e) => e.id)).toEqual(waiting)
        const answered = yield* provide(sm.appendMessages([assistant("a1"), user("q3")]))
        const rows = yield* stored(s, ref)
        expect(rows.map((row) => row.type)).toEqual(["session", "message", "message", "message", "message"])
        expect(rows.slice(1).map((row) => row.id)).toEqual([...waiting, ...answered])
        expect(rows.slice(1).map((row) => row.parentId)).toEqual([null, ...waiting, answered[0]])
        expect(writes).toHaveLength(1)
        expect(writes[0]!.map((text) => JSON.parse(text).id)).toEqual(rows.map((row) => row.id))
        expect(sm.hasAssistantMessage()).toBe(true)
      })),
    test("every entry's timestamp is ISO time with milliseconds in UTC, and ids are unique", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s, 3)
        yield* sm.appendThinkingLevelChange("low")
        yield* sm.appendSessionInfo("x")
        const rows = yield* stored(s, ref)
        for (const row of rows) expect(row.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        const ids = rows.slice(1).map((r) => r.id as string)
        expect(new Set(ids).size).toBe(ids.length)
        for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/)
      }))
  ]
}
