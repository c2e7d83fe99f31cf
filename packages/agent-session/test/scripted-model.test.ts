import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as LM from "../src/LanguageModel.js"
import * as ScriptedModel from "../src/ScriptedModel.js"

const request = (text: string, purpose: LM.Purpose = "turn"): LM.ModelRequest => ({
  purpose,
  model: { provider: "scripted", id: "scripted-1" },
  system: "",
  messages: [{ role: "user", content: text, timestamp: 0 }],
  tools: [],
  thinkingLevel: "off"
})

const collect = (model: LM.LanguageModelShape, req: LM.ModelRequest) =>
  Effect.map(Stream.runCollect(model.stream(req)), Chunk.toArray)

const assemble = (events: ReadonlyArray<LM.ModelEvent>) =>
  events.reduce(
    LM.applyEvent,
    LM.emptyAssistant({ api: "scripted", provider: "scripted", model: "scripted-1", timestamp: 0 })
  )

describe("ScriptedModel", () => {
  it.effect("plays its steps in order, chunked, with tool calls, usage and a stop reason", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.make({
        chunkSize: 4,
        script: [
          { thinking: "plan", text: "Hello world", toolCalls: [{ name: "read", arguments: { path: "a" } }] },
          { text: "done", stopReason: "length" }
        ]
      })
      const first = yield* collect(model, request("abcdefgh"))
      expect(first).toEqual([
        { _tag: "ThinkingDelta", thinking: "plan" },
        { _tag: "TextDelta", text: "Hell" },
        { _tag: "TextDelta", text: "o wo" },
        { _tag: "TextDelta", text: "rld" },
        { _tag: "ToolCall", id: "call_0_0", name: "read", arguments: { path: "a" } },
        { _tag: "Usage", usage: { input: 2, output: 4 + 4, cacheRead: 0, cacheWrite: 0 } },
        { _tag: "Stop", reason: "toolUse" }
      ])
      expect(assemble(first)).toMatchObject({
        content: [{ type: "thinking", thinking: "plan" }, { type: "text", text: "Hello world" }, {
          type: "toolCall",
          id: "call_0_0"
        }],
        stopReason: "toolUse",
        usage: { input: 2, output: 8, totalTokens: 10 }
      })
      const second = assemble(yield* collect(model, request("x")))
      expect(second.stopReason).toBe("length")
      // The last step repeats when the script runs out.
      expect(LM.textOf(assemble(yield* collect(model, request("x"))))).toBe("done")
    }))

  it.effect("the default rule echoes; summary requests get a deterministic summary and do not consume steps", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.make()
      expect(LM.textOf(assemble(yield* collect(model, request("ping"))))).toBe("You said: ping")
      const summary = assemble(
        yield* collect(model, request("<conversation>\n[User]: hi\n[Assistant]: yo\n</conversation>", "compaction"))
      )
      expect(LM.textOf(summary)).toBe("Summary (compaction): hi")
    }))

  it.effect("fails after its text with a ModelError", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.make({ script: [{ text: "part", error: "boom" }] })
      const events: Array<LM.ModelEvent> = []
      const error = yield* Effect.flip(
        Stream.runForEach(model.stream(request("x")), (e) => Effect.sync(() => events.push(e)))
      )
      expect(events).toEqual([{ _tag: "TextDelta", text: "part" }])
      expect(error).toMatchObject({ _tag: "ModelError", provider: "scripted", reason: "boom" })
      expect(error.message).toBe("scripted: boom")
    }))

  it("withCost prices usage per million tokens", () => {
    const usage = { ...LM.emptyUsage(), input: 1_000_000, output: 500_000, totalTokens: 1_500_000 }
    expect(LM.withCost(usage, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }).cost).toEqual({
      input: 3,
      output: 7.5,
      cacheRead: 0,
      cacheWrite: 0,
      total: 10.5
    })
  })
})
