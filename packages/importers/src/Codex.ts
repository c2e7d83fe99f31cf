/**
 * Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, lines of
 * `{timestamp, type, payload}`) → one linear branchlog session. A pure conversion (see the README
 * for every rule):
 *
 * - `session_meta` → the header (id, cwd, start); `cli_version` → the provenance's version;
 * - the human prompts are the `event_msg` `user_message` lines; `response_item` user messages
 *   repeat them and are dropped, except injected context (`<environment_context>`,
 *   `<user_instructions>`, AGENTS.md, developer messages), which becomes a `custom_message`
 *   `codex.context` (not displayed, in the context as the model saw it). A rollout without any
 *   `user_message` event (old versions) takes its prompts from the `response_item`s;
 * - consecutive model output (`reasoning`, assistant `message`, `function_call`,
 *   `custom_tool_call`, `local_shell_call`) → one assistant message; `call_id` → the tool call id;
 *   `function_call_output` / `custom_tool_call_output` → `toolResult`;
 * - `reasoning` → thinking blocks (its text, else its summary; only encrypted: an empty, redacted
 *   block carrying the ciphertext); text is carried through unchanged (redactions included);
 * - `compacted` → a `compaction` (its `message`, or a remote compaction's `replacement_history`
 *   rendered as text, the raw history in `details`);
 * - `turn_context` model / effort changes → `model_change` / `thinking_level_change`;
 *   `token_count` → the usage of the assistant message before it.
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import { Entry } from "@branchlog/session-core"
import type { ImportedSession } from "./ImportedSession.js"
import { isObject, isoOf, num, SessionBuilder, str, zeroUsage } from "./internal/builder.js"
import type { SourceLine } from "./internal/jsonl.js"

/** Options of {@link convert}. */
export interface ConvertOptions {
  /** The source path (kept in the provenance). */
  readonly source: string
  /** The session id when the rollout has no `session_meta` (e.g. from the file name). */
  readonly fallbackSessionId: string
}

const EPOCH = "1970-01-01T00:00:00.000Z"
const RESPONSE_ITEMS = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "web_search_call",
  "ghost_snapshot",
  "compaction",
  "compaction_summary"
])
const INJECTED = [
  "<environment_context>",
  "<user_instructions>",
  "# AGENTS.md instructions",
  "<INSTRUCTIONS>",
  "<user_shell_command>",
  "<turn_aborted>",
  "<permissions instructions>",
  "<developer_instructions>"
]

type AssistantBlock = AgentMessage.AssistantMessage["content"][number]
type Block = AgentMessage.TextContent | AgentMessage.ImageContent

/** The text of a Responses API content list (`input_text`, `output_text`, images as blocks). */
const contentOf = (content: unknown): Array<Block> => {
  if (typeof content === "string") return [{ type: "text", text: content }]
  const out: Array<Block> = []
  if (!Array.isArray(content)) return out
  for (const part of content) {
    if (!isObject(part)) continue
    if (typeof part.text === "string") out.push({ type: "text", text: part.text })
    else if (part.type === "input_image" && typeof part.image_url === "string") out.push(imageOf(part.image_url))
  }
  return out
}

const imageOf = (url: string): Block => {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return m !== null ? { type: "image", data: m[2]!, mimeType: m[1]! } : { type: "text", text: `[image: ${url}]` }
}

const textOf = (blocks: ReadonlyArray<Block>) => blocks.map((b) => b.type === "text" ? b.text : "").join("")

const isInjected = (text: string) => INJECTED.some((tag) => text.trimStart().startsWith(tag))

const argumentsOf = (raw: unknown): Record<string, unknown> => {
  if (isObject(raw)) return raw
  if (typeof raw !== "string") return raw === undefined ? {} : { input: raw }
  try {
    const parsed: unknown = JSON.parse(raw)
    return isObject(parsed) ? parsed : { input: raw }
  } catch {
    return { input: raw }
  }
}

/** A tool output: its text, and whether it says it failed. */
const outputOf = (output: unknown): { content: Array<Block>; isError: boolean } => {
  if (isObject(output)) {
    return { content: contentOf(output.content ?? output.output ?? ""), isError: output.success === false }
  }
  if (Array.isArray(output)) return { content: contentOf(output), isError: false }
  const text = typeof output === "string" ? output : JSON.stringify(output ?? "")
  let isError = false
  try {
    const parsed: unknown = JSON.parse(text)
    if (isObject(parsed) && isObject(parsed.metadata) && typeof parsed.metadata.exit_code === "number") {
      isError = parsed.metadata.exit_code !== 0
    }
  } catch {
    // plain text
  }
  return { content: [{ type: "text", text }], isError }
}

const renderHistory = (history: ReadonlyArray<unknown>): string =>
  history.map((item) => {
    if (!isObject(item)) return ""
    if (item.type === "message") return `${String(item.role)}: ${textOf(contentOf(item.content))}`
    if (item.type === "compaction" || item.type === "compaction_summary") return "[encrypted compaction summary]"
    return `[${String(item.type)}]`
  }).filter((s) => s.length > 0).join("\n\n")

/** Converts the lines of one rollout file. */
export const convert = (lines: ReadonlyArray<SourceLine>, options: ConvertOptions): ImportedSession => {
  const b = new SessionBuilder()
  for (const l of lines) if (l._tag === "Bad") b.skip({ line: l.line, offset: l.offset, reason: l.reason })
  const records = lines.filter((l): l is Extract<SourceLine, { _tag: "Record" }> => l._tag === "Record")
  // legacy rollouts (before the {timestamp,type,payload} lines): a bare meta line, then bare items
  const norm = records.map((r) => {
    const v = r.value
    if (isObject(v.payload) && typeof v.type === "string") {
      return { ...r, type: v.type, payload: v.payload, at: v.timestamp }
    }
    if (typeof v.type === "string" && RESPONSE_ITEMS.has(v.type)) {
      return { ...r, type: "response_item", payload: v, at: v.timestamp }
    }
    if (v.type === undefined && typeof v.id === "string" && "timestamp" in v) {
      return { ...r, type: "session_meta", payload: v, at: v.timestamp }
    }
    if (v.record_type === "state") return { ...r, type: "state", payload: v, at: undefined }
    return { ...r, type: str(v.type) ?? "", payload: isObject(v.payload) ? v.payload : {}, at: v.timestamp }
  })
  const hasPromptEvents = norm.some((r) => r.type === "event_msg" && r.payload.type === "user_message")
  let meta: Record<string, unknown> | undefined
  let contextCwd: string | undefined
  let last = EPOCH
  let prev: string | null = null
  let provider = "openai"
  let model: string | undefined
  let effort: string | undefined
  const toolNames = new Map<string, string>()
  let pending:
    | { key: string; at: string; blocks: Array<AssistantBlock>; usage: AgentMessage.Usage; aborted: boolean }
    | undefined
  let lastAssistant: typeof pending
  const keep = (key: string, make: (id: string, parentId: string | null, at: string) => Entry.Entry, at: string) => {
    b.keep(key, prev, (id, parentId) => make(id, parentId, at))
    prev = key
  }
  const flush = () => {
    if (pending === undefined) return
    const p = pending
    pending = undefined
    const m = model ?? "unknown"
    keep(p.key, (id, parentId, at) =>
      Entry.makeMessage({
        id,
        parentId,
        timestamp: at,
        message: {
          role: "assistant",
          content: p.blocks,
          api: "openai-responses",
          provider,
          model: m,
          usage: p.usage,
          stopReason: p.aborted ? "aborted" : p.blocks.some((x) => x.type === "toolCall") ? "toolUse" : "stop",
          timestamp: Date.parse(at)
        }
      }), p.at)
  }
  const assistant = (key: string, at: string) => {
    pending ??= { key, at, blocks: [], usage: zeroUsage(), aborted: false }
    lastAssistant = pending
    return pending.blocks
  }

  for (const r of norm) {
    const at = isoOf(r.at, last)
    last = at
    const key = `L${r.line}`
    const p = r.payload
    switch (r.type) {
      case "session_meta": {
        if (meta === undefined) {
          meta = p
          provider = str(p.model_provider) ?? provider
        } else b.count("session_meta lines after the first (a resumed or forked session's)")
        break
      }
      case "turn_context": {
        contextCwd ??= str(p.cwd)
        const m = str(p.model)
        if (m !== undefined && m !== model) {
          flush()
          model = m
          const prov = provider
          keep(
            key,
            (id, parentId, at) => ({ type: "model_change", id, parentId, timestamp: at, provider: prov, modelId: m }),
            at
          )
        }
        const e = str(p.effort) ?? (isObject(p.reasoning) ? str(p.reasoning.effort) : undefined)
        if (e !== undefined && e !== effort) {
          flush()
          effort = e
          keep(
            `${key}#effort`,
            (id, parentId, at) => ({ type: "thinking_level_change", id, parentId, timestamp: at, thinkingLevel: e }),
            at
          )
        }
        break
      }
      case "event_msg": {
        if (p.type === "user_message") {
          flush()
          const images = Array.isArray(p.images) ? p.images.filter((x): x is string => typeof x === "string") : []
          const text = str(p.message) ?? ""
          const content: AgentMessage.UserContent = images.length === 0
            ? text
            : [{ type: "text", text }, ...images.map(imageOf)]
          keep(
            key,
            (id, parentId, at) =>
              Entry.makeMessage({
                id,
                parentId,
                timestamp: at,
                message: { role: "user", content, timestamp: Date.parse(at) }
              }),
            at
          )
        } else if (p.type === "token_count") {
          const info = isObject(p.info) ? p.info : {}
          const u = isObject(info.last_token_usage) ? info.last_token_usage : undefined
          if (u !== undefined && lastAssistant !== undefined) {
            const cached = num(u.cached_input_tokens)
            lastAssistant.usage = {
              ...zeroUsage(),
              input: Math.max(0, num(u.input_tokens) - cached),
              output: num(u.output_tokens),
              cacheRead: cached,
              totalTokens: num(u.total_tokens)
            }
          }
          b.count("token_count events (usage of the reply before them)")
        } else if (p.type === "turn_aborted") {
          if (lastAssistant !== undefined) lastAssistant.aborted = true
          b.count("turn_aborted events")
        } else b.count(`event_msg ${String(p.type)} events (repeat the response items or are UI events)`)
        break
      }
      case "response_item": {
        const t = str(p.type)
        if (t === "message") {
          const blocks = contentOf(p.content)
          const text = textOf(blocks)
          if (p.role === "assistant") {
            assistant(key, at).push(...blocks.filter((x): x is AgentMessage.TextContent => x.type === "text"))
          } else if (p.role === "developer" || p.role === "system" || isInjected(text)) {
            flush()
            contextCwd ??= /<cwd>([^<]*)<\/cwd>/.exec(text)?.[1]
            keep(
              key,
              (id, parentId, at) => ({
                type: "custom_message",
                customType: "codex.context",
                content: blocks,
                display: false,
                details: { role: p.role },
                id,
                parentId,
                timestamp: at
              }),
              at
            )
          } else if (hasPromptEvents) {
            b.count("response_item user messages (the user_message events hold the prompts)")
          } else {
            flush()
            keep(
              key,
              (id, parentId, at) =>
                Entry.makeMessage({
                  id,
                  parentId,
                  timestamp: at,
                  message: { role: "user", content: blocks, timestamp: Date.parse(at) }
                }),
              at
            )
          }
        } else if (t === "reasoning") {
          const content = Array.isArray(p.content) ? contentOf(p.content) : []
          const summary = Array.isArray(p.summary) ? contentOf(p.summary) : []
          const text = textOf(content.length > 0 ? content : summary)
          const encrypted = str(p.encrypted_content)
          if (text.length > 0) {
            assistant(key, at).push(
              {
                type: "thinking",
                thinking: text,
                ...(encrypted === undefined ? {} : { thinkingSignature: encrypted })
              } as AssistantBlock
            )
          } else if (encrypted !== undefined) {
            assistant(key, at).push(
              { type: "thinking", thinking: "", redacted: true, thinkingSignature: encrypted } as AssistantBlock
            )
          } else b.count("empty reasoning items")
        } else if (t === "function_call" || t === "custom_tool_call" || t === "local_shell_call") {
          const id = str(p.call_id) ?? str(p.id) ?? key
          const name = t === "local_shell_call" ? "local_shell" : str(p.name) ?? "unknown"
          toolNames.set(id, name)
          const args = t === "function_call"
            ? argumentsOf(p.arguments)
            : t === "custom_tool_call"
            ? { input: p.input }
            : isObject(p.action)
            ? p.action
            : {}
          assistant(key, at).push({ type: "toolCall", id, name, arguments: args })
        } else if (t === "web_search_call") {
          const action = isObject(p.action) ? p.action : {}
          assistant(key, at).push({
            type: "text",
            text: `[web search${typeof action.query === "string" ? `: ${action.query}` : ""}]`
          })
        } else if (t === "function_call_output" || t === "custom_tool_call_output") {
          flush()
          const toolCallId = str(p.call_id) ?? ""
          const { content, isError } = outputOf(p.output)
          const toolName = toolNames.get(toolCallId) ?? "unknown"
          keep(
            key,
            (id, parentId, at) =>
              Entry.makeMessage({
                id,
                parentId,
                timestamp: at,
                message: { role: "toolResult", toolCallId, toolName, content, isError, timestamp: Date.parse(at) }
              }),
            at
          )
        } else if (t === "ghost_snapshot" || t === "compaction" || t === "compaction_summary") {
          b.count(`${t} items`)
        } else {
          b.skip({ line: r.line, offset: r.offset, reason: `unknown response_item type "${String(t)}"` })
        }
        break
      }
      case "compacted": {
        flush()
        const history = Array.isArray(p.replacement_history) ? p.replacement_history : undefined
        const summary = str(p.message) !== undefined && str(p.message)!.length > 0
          ? str(p.message)!
          : history !== undefined
          ? renderHistory(history)
          : ""
        keep(key, (id, parentId, at) => ({
          type: "compaction",
          id,
          parentId,
          timestamp: at,
          summary,
          firstKeptEntryId: id,
          tokensBefore: 0,
          details: { source: "codex", ...(history === undefined ? {} : { replacement_history: history }) }
        }), at)
        break
      }
      case "state":
        b.count("state records")
        break
      default:
        b.skip({ line: r.line, offset: r.offset, reason: `unknown record type "${r.type}"` })
    }
  }
  flush()
  const sourceSessionId = str(meta?.id) ?? options.fallbackSessionId
  const version = str(meta?.cli_version)
  return b.finish({
    provenance: {
      format: "codex",
      ...(version === undefined ? {} : { formatVersion: version }),
      source: options.source,
      sourceSessionId
    },
    sessionId: sourceSessionId,
    cwd: str(meta?.cwd) ?? contextCwd ?? "",
    timestamp: isoOf(meta?.timestamp ?? norm[0]?.at, EPOCH),
    leafKey: prev
  })
}

/** Whether records look like a Codex rollout (`session_meta`, or `{timestamp,type,payload}` lines of its types). */
export const looksLike = (records: ReadonlyArray<Record<string, unknown>>): boolean =>
  records.some((r) =>
    (r.type === "session_meta" && isObject(r.payload)) ||
    (["response_item", "event_msg", "turn_context", "compacted"].includes(String(r.type)) && isObject(r.payload)) ||
    (r.type === undefined && typeof r.id === "string" && "instructions" in r)
  )
