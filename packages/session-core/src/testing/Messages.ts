/**
 * Agent message builders for tests: a user and an assistant message with increasing millisecond
 * timestamps, in the shapes the references store.
 *
 * @since 0.1.0
 */
import type { AssistantMessage, UserMessage } from "../AgentMessage.js"

let clock = Date.parse("2026-05-01T10:00:00.000Z")

/** Token usage of one token in and one out, at no cost. */
export const testUsage: AssistantMessage["usage"] = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
}

/** A user message. */
export const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: clock++ })

/** An assistant message with one text block. */
export const assistant = (text: string, model = "claude-sonnet-4-5"): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model,
  usage: testUsage,
  stopReason: "stop",
  timestamp: clock++
})
