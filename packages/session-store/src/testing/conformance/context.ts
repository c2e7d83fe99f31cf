/** Compaction and `buildSessionContext` after a reopen. */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Group } from "./support.js"
import { converse, reopen, test, user, written } from "./support.js"

const texts = (messages: ReadonlyArray<unknown>) =>
  messages.map((m) => {
    const message = m as { role: string; content?: unknown; summary?: string }
    if (message.role === "compactionSummary" || message.role === "branchSummary") {
      return `${message.role}:${message.summary}`
    }
    if (typeof message.content === "string") return message.content
    return (message.content as ReadonlyArray<{ text?: string }>).map((c) => c.text).join("")
  })

/** The context cases. */
export const group: Group = {
  name: "compaction and context",
  cases: [
    test("after a reopen the context is the summary, the kept entries from firstKeptEntryId, then what follows", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 3)
        yield* sm.appendCompaction("early turns", ids[2]!, 500)
        yield* sm.appendMessage(user("after compaction"))
        const again = yield* reopen(s, ref)
        expect(texts(again.buildSessionContext().messages)).toEqual([
          "compactionSummary:early turns",
          "t1 question",
          "t1 answer",
          "t2 question",
          "t2 answer",
          "after compaction"
        ])
        expect(again.buildSessionContext()).toEqual(sm.buildSessionContext())
      })),
    test("the latest of several compactions on the path wins after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.appendCompaction("first", ids[0]!, 1)
        const later = yield* converse(sm, 1, "later")
        yield* sm.appendCompaction("second", later[0]!, 2)
        const messages = texts((yield* reopen(s, ref)).buildSessionContext().messages)
        expect(messages).toEqual(["compactionSummary:second", "later0 question", "later0 answer"])
      })),
    test("a compaction on another branch does not shape this branch's context after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.appendCompaction("on the old branch", null, 1)
        yield* sm.branch(ids[3]!)
        yield* sm.appendMessage(user("new branch"))
        const messages = texts((yield* reopen(s, ref)).buildSessionContext().messages)
        expect(messages).toEqual(["t0 question", "t0 answer", "t1 question", "t1 answer", "new branch"])
      })),
    test("a compaction keeping nothing leaves only the summary and what follows", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref } = yield* written(s, 2)
        yield* sm.appendCompaction("all of it", null, 7)
        yield* sm.appendMessage(user("next"))
        expect(texts((yield* reopen(s, ref)).buildSessionContext().messages)).toEqual([
          "compactionSummary:all of it",
          "next"
        ])
      })),
    test("the context at an explicit entry, settings included, is the same after a reopen", (s) =>
      Effect.gen(function*() {
        const { manager: sm, ref, ids } = yield* written(s, 2)
        yield* sm.appendThinkingLevelChange("medium")
        yield* sm.appendModelChange("openai", "gpt-5")
        const mid = yield* sm.appendMessage(user("mid"))
        yield* sm.appendThinkingLevelChange("off")
        const again = yield* reopen(s, ref)
        for (const at of [ids[1]!, mid, null]) {
          expect(again.buildSessionContext(at)).toEqual(sm.buildSessionContext(at))
        }
        expect(again.buildSessionContext(mid)).toMatchObject({ thinkingLevel: "medium", model: { modelId: "gpt-5" } })
        expect(again.buildSessionContext().thinkingLevel).toBe("off")
      }))
  ]
}
