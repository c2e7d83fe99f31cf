/**
 * The compaction controller's pure part, and the summary call.
 *
 * - **Estimates.** A message costs `ceil(chars / 4)` tokens, where chars counts its text, its
 *   thinking, each tool call's name and JSON arguments, and 4800 characters (1200 tokens) per
 *   image; unknown roles count their JSON. The context's size is the last successful assistant
 *   reply's reported `usage.totalTokens` plus the estimates of the messages after it (all
 *   estimates when no reply reported usage).
 * - **Threshold.** Compact when the context passes `thresholdRatio` of the model's window.
 * - **Cut point.** Over the entries the context still shows (after the last compaction: from its
 *   `firstKeptEntryId`, then after it), keep the most recent `keepRecentTokens` tokens, moving
 *   the cut back to a turn boundary: the first kept entry is a user-side message (`user`,
 *   `bashExecution`, `custom` role, a `custom_message` or a `branch_summary`), and no tool call
 *   before it has its result at or after it. When no such cut leaves anything to summarise, there
 *   is nothing to compact.
 * - **Summary.** The summarised messages are written out as text and given to the model (no
 *   tools) with the previous summary; `details` lists the files read and modified by `read`,
 *   `edit` and `write` calls (merged with the previous compaction's).
 *
 * @since 0.1.0
 */
import type { AgentMessage, Entry } from "@branchlog/session-core"
import { LlmMessages, SessionContext } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { CompactionError } from "./AgentError.js"
import type { LanguageModelShape, ModelRequest, Purpose } from "./LanguageModel.js"

/** When and how much to compact. */
export interface Settings {
  readonly enabled: boolean
  /** Compact when the context passes this share of the window. */
  readonly thresholdRatio: number
  /** Tokens of recent conversation kept verbatim. */
  readonly keepRecentTokens: number
}

/** The defaults: on, at 80% of the window, keeping 20 000 tokens. */
export const defaultSettings: Settings = { enabled: true, thresholdRatio: 0.8, keepRecentTokens: 20_000 }

/** Files seen by tool calls. */
export interface FileDetails {
  readonly readFiles: ReadonlyArray<string>
  readonly modifiedFiles: ReadonlyArray<string>
}

/** What a compaction will do. */
export interface Preparation {
  readonly firstKeptEntryId: string
  /** The messages the summary replaces (model form). */
  readonly messagesToSummarize: ReadonlyArray<LlmMessages.LlmMessage>
  readonly previousSummary: string | undefined
  readonly tokensBefore: number
  readonly details: FileDetails
}

const IMAGE_CHARS = 4800

const contentChars = (content: unknown): number => {
  if (typeof content === "string") return content.length
  if (!Array.isArray(content)) return 0
  let n = 0
  for (const block of content as ReadonlyArray<Record<string, unknown>>) {
    if (block.type === "text") n += String(block.text ?? "").length
    else if (block.type === "thinking") n += String(block.thinking ?? "").length
    else if (block.type === "toolCall") {
      n += String(block.name ?? "").length + JSON.stringify(block.arguments ?? {}).length
    } else if (block.type === "image") n += IMAGE_CHARS
  }
  return n
}

/** The estimated tokens of one message (`ceil(chars / 4)`). */
export const estimateTokens = (message: AgentMessage.ContextMessage): number => {
  const m = message as unknown as Record<string, unknown>
  let chars: number
  switch (message.role) {
    case "user":
    case "assistant":
    case "toolResult":
    case "custom":
      chars = contentChars(m.content)
      break
    case "bashExecution":
      chars = String(m.command ?? "").length + String(m.output ?? "").length
      break
    case "compactionSummary":
    case "branchSummary":
      chars = String(m.summary ?? "").length
      break
    default:
      chars = JSON.stringify(message).length
  }
  return Math.ceil(chars / 4)
}

/** The estimated size of a context (see the module doc). */
export const estimateContextTokens = (messages: ReadonlyArray<AgentMessage.ContextMessage>): number => {
  let total = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role === "assistant") {
      const a = m as AgentMessage.AssistantMessage
      if (a.stopReason !== "error" && a.stopReason !== "aborted" && a.usage.totalTokens > 0) {
        return total + a.usage.totalTokens
      }
    }
    total += estimateTokens(m)
  }
  return total
}

/** `true` when compaction is on and `contextTokens` passes the threshold of `contextWindow`. */
export const shouldCompact = (
  contextTokens: number,
  contextWindow: number,
  settings: Settings = defaultSettings
): boolean => settings.enabled && contextTokens > contextWindow * settings.thresholdRatio

const isTurnStart = (entry: Entry.Entry): boolean => {
  if (entry.type === "custom_message" || entry.type === "branch_summary") return true
  if (entry.type !== "message") return false
  const role = entry.message.role
  return role === "user" || role === "bashExecution" || role === "custom"
}

/** The entries the context still shows on `path` (root first): after the last compaction's cut. */
export const liveEntries = (path: ReadonlyArray<Entry.Entry>): {
  readonly entries: ReadonlyArray<Entry.Entry>
  readonly previous: Entry.CompactionEntry | undefined
} => {
  let k = -1
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === "compaction") {
      k = i
      break
    }
  }
  if (k < 0) return { entries: path, previous: undefined }
  const previous = path[k] as Entry.CompactionEntry
  const kept = path.slice(0, k).findIndex((e) => e.id === previous.firstKeptEntryId)
  const before = kept < 0 ? [] : path.slice(kept, k)
  return { entries: [...before, ...path.slice(k + 1)], previous }
}

/** The index in `entries` where the kept part starts, or `undefined` when nothing can be compacted. */
export const findCutIndex = (entries: ReadonlyArray<Entry.Entry>, keepRecentTokens: number): number | undefined => {
  let acc = 0
  let target = -1
  for (let i = entries.length - 1; i >= 0; i--) {
    const message = SessionContext.messageOf(entries[i]!)
    if (message !== undefined) acc += estimateTokens(message)
    if (acc >= keepRecentTokens) {
      target = i
      break
    }
  }
  if (target <= 0) return undefined
  // Tool calls whose result has not appeared yet, scanning forward: a cut is only valid when none is open.
  const open = new Set<string>()
  const valid: Array<boolean> = []
  for (const entry of entries) {
    valid.push(isTurnStart(entry) && open.size === 0)
    if (entry.type !== "message") continue
    const m = entry.message
    if (m.role === "assistant") {
      for (const b of (m as AgentMessage.AssistantMessage).content) if (b.type === "toolCall") open.add(b.id)
    } else if (m.role === "toolResult") open.delete((m as AgentMessage.ToolResultMessage).toolCallId)
  }
  // Something must be left to summarise: the cut comes after the first message-bearing entry.
  const first = entries.findIndex((e) => SessionContext.messageOf(e) !== undefined)
  for (let c = target; c > first; c--) if (valid[c]) return c
  return undefined
}

const pathArg = (path: unknown): string | undefined => typeof path === "string" && path.length > 0 ? path : undefined

/** The files read and modified by `read` / `edit` / `write` calls, merged with `previous` details. */
export const collectFileDetails = (
  messages: ReadonlyArray<AgentMessage.ContextMessage>,
  previous?: unknown
): FileDetails => {
  const read = new Set<string>()
  const modified = new Set<string>()
  const prev = previous as Partial<FileDetails> | undefined
  for (const f of Array.isArray(prev?.readFiles) ? prev.readFiles : []) if (typeof f === "string") read.add(f)
  for (const f of Array.isArray(prev?.modifiedFiles) ? prev.modifiedFiles : []) {
    if (typeof f === "string") modified.add(f)
  }
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const b of (m as AgentMessage.AssistantMessage).content) {
      if (b.type !== "toolCall") continue
      const path = pathArg(b.arguments.path)
      if (path === undefined) continue
      if (b.name === "read") read.add(path)
      else if (b.name === "edit" || b.name === "write") modified.add(path)
    }
  }
  return {
    readFiles: [...read].filter((f) => !modified.has(f)).sort(),
    modifiedFiles: [...modified].sort()
  }
}

/** Plans a compaction of `path` (root first, ending at the leaf); `undefined` when there is nothing to compact. */
export const prepare = (
  path: ReadonlyArray<Entry.Entry>,
  settings: Settings = defaultSettings
): Preparation | undefined => {
  const { entries, previous } = liveEntries(path)
  const cut = findCutIndex(entries, settings.keepRecentTokens)
  if (cut === undefined) return undefined
  const summarized: Array<AgentMessage.ContextMessage> = []
  for (const e of entries.slice(0, cut)) {
    const m = SessionContext.messageOf(e)
    if (m !== undefined) summarized.push(m)
  }
  const all: Array<AgentMessage.ContextMessage> = []
  if (previous !== undefined) {
    all.push({
      role: "compactionSummary",
      summary: previous.summary,
      tokensBefore: previous.tokensBefore,
      timestamp: 0
    })
  }
  for (const e of entries) {
    const m = SessionContext.messageOf(e)
    if (m !== undefined) all.push(m)
  }
  return {
    firstKeptEntryId: entries[cut]!.id,
    messagesToSummarize: LlmMessages.convertToLlm(summarized),
    previousSummary: previous?.summary,
    tokensBefore: estimateContextTokens(all),
    details: collectFileDetails(summarized, previous?.details)
  }
}

/** The messages as plain text for a summariser. */
export const serializeConversation = (messages: ReadonlyArray<LlmMessages.LlmMessage>): string =>
  messages.map((m) => {
    if (m.role === "user") {
      return `[User]: ${
        typeof m.content === "string"
          ? m.content
          : m.content.map((b) => b.type === "text" ? b.text : "[image]").join("")
      }`
    }
    if (m.role === "toolResult") {
      return `[Tool result ${m.toolName}]: ${m.content.map((b) => b.type === "text" ? b.text : "[image]").join("")}`
    }
    return m.content.map((b) =>
      b.type === "text"
        ? `[Assistant]: ${b.text}`
        : b.type === "thinking"
        ? `[Assistant thinking]: ${b.thinking}`
        : `[Assistant tool call]: ${b.name}(${JSON.stringify(b.arguments)})`
    ).join("\n")
  }).join("\n\n")

/** The summariser's system prompt. */
export const SUMMARY_SYSTEM =
  "You summarise conversations between a user and a coding assistant. Keep goals, decisions, file names, open problems and next steps. Answer with the summary only."

/** A summary request (no tools) for `messages`, with the previous summary and extra instructions. */
export const summaryRequest = (options: {
  readonly purpose: Purpose
  readonly model: ModelRequest["model"]
  readonly messages: ReadonlyArray<LlmMessages.LlmMessage>
  readonly previousSummary?: string | undefined
  readonly instructions?: string | undefined
}): ModelRequest => {
  const parts = [`<conversation>\n${serializeConversation(options.messages)}\n</conversation>`]
  if (options.previousSummary !== undefined) {
    parts.push(`<previous-summary>\n${options.previousSummary}\n</previous-summary>`)
  }
  parts.push(
    options.purpose === "branchSummary"
      ? "Summarise this abandoned branch of the conversation so that it can be continued elsewhere."
      : "Summarise the conversation so far, merging the previous summary if there is one."
  )
  if (options.instructions !== undefined) parts.push(options.instructions)
  return {
    purpose: options.purpose,
    model: options.model,
    system: SUMMARY_SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text: parts.join("\n\n") }], timestamp: 0 }],
    tools: [],
    thinkingLevel: "off"
  }
}

/** Runs a summary request and returns the text of the reply. */
export const summarize = (model: LanguageModelShape, request: ModelRequest): Effect.Effect<string, CompactionError> =>
  model.stream(request).pipe(
    Stream.runFold("", (text, event) => event._tag === "TextDelta" ? text + event.text : text),
    Effect.mapError((error) => new CompactionError({ reason: `summary failed: ${error.message}` })),
    Effect.map((text) => text.trim())
  )
