/** The sample sources, and pure helpers over imported sessions. */
import type { AgentMessage, Entry } from "@branchlog/session-core"
import { SessionContext, SessionState } from "@branchlog/session-core"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as ClaudeCode from "../../src/ClaudeCode.js"
import * as Codex from "../../src/Codex.js"
import type { ImportedSession } from "../../src/ImportedSession.js"
import { splitLines } from "../../src/internal/jsonl.js"

/** The fixtures folder. */
export const fixtures = join(import.meta.dirname, "..", "fixtures")

/** The samples by name. */
export const samples = {
  claudeV1: join(fixtures, "claude-code", "v1-sidechain-rewind.jsonl"),
  claudeV2: join(fixtures, "claude-code", "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b.jsonl"),
  claudeV2Agent: join(
    fixtures,
    "claude-code",
    "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b",
    "subagents",
    "agent-a7f3c21.jsonl"
  ),
  codex: join(fixtures, "codex", "rollout-2025-11-03T08-00-00-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"),
  codexLegacy: join(fixtures, "codex", "rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"),
  openclaw: join(fixtures, "openclaw", "openclaw-agent.sqlite")
} as const

/** Converts a Claude Code sample (pure, after reading it). */
export const claude = (path: string, options: Partial<ClaudeCode.ConvertOptions> = {}) =>
  ClaudeCode.convert(splitLines(readFileSync(path)), { source: path, fallbackSessionId: "fallback", ...options })

/** Converts a Codex sample (pure, after reading it). */
export const codex = (path: string) =>
  Codex.convert(splitLines(readFileSync(path)), { source: path, fallbackSessionId: "fallback" })

/** The session's state, as a file of its header and entries would load. */
export const stateOf = (session: ImportedSession) => {
  const header = { type: "session", version: 3, id: session.sessionId, timestamp: session.timestamp, cwd: session.cwd }
  const text = [header, ...session.entries].map((row) => JSON.stringify(row)).join("\n") + "\n"
  const { state } = SessionState.fromText(text, () => "deadbeef")
  SessionState.navigate(state, session.leafId)
  return state
}

/** The LLM context at the session's leaf. */
export const contextOf = (session: ImportedSession) =>
  SessionContext.buildSessionContext(stateOf(session), session.leafId)

/** The messages of the entries. */
export const messages = (entries: ReadonlyArray<Entry.Entry>): Array<AgentMessage.AgentMessage> =>
  entries.flatMap((e) => (e.type === "message" ? [e.message] : []))

/** Every tool call id, and every tool result's call id, of the entries. */
export const toolIds = (entries: ReadonlyArray<Entry.Entry>) => {
  const calls: Array<string> = []
  const results: Array<string> = []
  for (const m of messages(entries)) {
    if (m.role === "assistant") {
      for (const b of (m as AgentMessage.AssistantMessage).content) if (b.type === "toolCall") calls.push(b.id)
    }
    if (m.role === "toolResult") results.push((m as AgentMessage.ToolResultMessage).toolCallId)
  }
  return { calls, results }
}

/** The text of a message's content. */
export const textOf = (m: AgentMessage.AgentMessage | undefined): string => {
  const content = (m as { content?: unknown } | undefined)?.content
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((b: { type: string; text?: string }) => (b.type === "text" ? b.text : "")).join("")
}
