/**
 * `buildSessionContext`: the messages an LLM sees at a leaf, with the thinking level and the
 * model in force there (spec §5), exactly as the references build it.
 *
 * 1. The path runs from the root to the leaf through logical parents (see `Tree`); it stops at an
 *    orphan and where a cycle closes, and costs O(path length).
 * 2. On the path, the last `thinking_level_change` sets the thinking level (default `"off"`),
 *    the last `model_change` or assistant message sets the model (default `null`), and the last
 *    `compaction` wins.
 * 3. `message` entries emit their message; `custom_message` entries a derived `custom` message;
 *    `branch_summary` entries with a non-empty summary a derived `branchSummary`.
 * 4. With a compaction, its derived `compactionSummary` comes first, then the path from its
 *    `firstKeptEntryId` (nothing, when that id is not on the path) up to it, then what follows.
 *
 * OpenClaw's behaviour where it differs from pi, followed here: a `firstKeptEntryId` that names
 * an opaque row is repaired to a canonical entry; a string `content` of an assistant or tool
 * result message is given as one text block (the stored entry is not changed). Messages marked
 * `excludeFromContext` stay in the context (OpenClaw 2026.6 and pi agree); `LlmMessages.convert`
 * leaves them out.
 *
 * @since 0.1.0
 */
import type { AgentMessage, ContextMessage, CustomMessage } from "./AgentMessage.js"
import type { CompactionEntry, Entry } from "./Entry.js"
import * as SessionState from "./SessionState.js"
import * as Tree from "./Tree.js"

/** The provider and id of a model. */
export interface ModelRef {
  readonly provider: string
  readonly modelId: string
}

/** What `buildSessionContext` returns. */
export interface SessionContext {
  readonly messages: Array<ContextMessage>
  readonly thinkingLevel: string
  readonly model: ModelRef | null
}

const emptyContext = (): SessionContext => ({ messages: [], thinkingLevel: "off", model: null })

const time = (timestamp: string): number => new Date(timestamp).getTime()

/** OpenClaw's load normalisation of message content (a string becomes one text block). */
const normalizeMessage = (message: AgentMessage): AgentMessage => {
  const content = (message as { readonly content?: unknown }).content
  if ((message.role === "assistant" || message.role === "toolResult") && typeof content === "string") {
    return { ...message, content: [{ type: "text", text: content }] } as AgentMessage
  }
  if (message.role === "toolResult" && typeof content === "object" && content !== null && !Array.isArray(content)) {
    return { ...message, content: [content] } as AgentMessage
  }
  return message
}

/** The message an entry contributes to the context, if any. */
export const messageOf = (entry: Entry): ContextMessage | undefined => {
  switch (entry.type) {
    case "message":
      return normalizeMessage(entry.message)
    case "custom_message": {
      const custom: CustomMessage = {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: time(entry.timestamp)
      }
      return custom
    }
    case "branch_summary":
      return entry.summary
        ? { role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: time(entry.timestamp) }
        : undefined
    default:
      return undefined
  }
}

/**
 * The `firstKeptEntryId` a compaction really keeps from. OpenClaw repairs an id that names an
 * opaque row or leaf control: its nearest canonical ancestor, else the first canonical entry
 * below it on the compaction's branch, else the first in file order, else the compaction's parent.
 */
export const firstKeptEntryId = (state: SessionState.SessionState, compaction: CompactionEntry): string => {
  const kept = compaction.firstKeptEntryId
  if (typeof kept !== "string" || state.byId.has(kept) || !state.opaqueParents.has(kept)) return kept
  const ancestor = SessionState.resolveCanonical(state, kept)
  if (ancestor !== null) return ancestor
  const parent = Tree.parentOf(state, compaction)
  const below = firstCanonicalBelowOnBranch(state, kept, parent) ?? firstCanonicalBelow(state, kept) ?? parent
  return below ?? kept
}

/** Walks up from `start` by written parents and opaque links; the canonical entry met just before `target`. */
const firstCanonicalBelowOnBranch = (
  state: SessionState.SessionState,
  target: string,
  start: string | null
): string | null => {
  const seen = new Set<string>()
  let previous: string | null = null
  let id = start
  while (id !== null && !seen.has(id)) {
    if (id === target) return previous
    seen.add(id)
    const entry = state.byId.get(id)
    if (entry !== undefined) {
      previous = entry.id
      id = (entry as { readonly parentId?: string | null }).parentId ?? null
    } else id = state.opaqueParents.get(id) ?? null
  }
  return null
}

/** The first canonical entry in file order whose written parent reaches `target` through opaque rows only. */
const firstCanonicalBelow = (state: SessionState.SessionState, target: string): string | null => {
  for (const entry of state.entries) {
    const seen = new Set<string>()
    let id = (entry as { readonly parentId?: string | null }).parentId ?? null
    while (id !== null && !seen.has(id) && !state.byId.has(id)) {
      if (id === target) return entry.id
      seen.add(id)
      id = state.opaqueParents.get(id) ?? null
    }
  }
  return null
}

/**
 * The context along a path (root first), as the references' core builder makes it.
 */
export const fromPath = (state: SessionState.SessionState, path: ReadonlyArray<Entry>): SessionContext => {
  let thinkingLevel = "off"
  let model: ModelRef | null = null
  let compactionIndex = -1
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!
    if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel
    else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId }
    else if (entry.type === "message" && entry.message.role === "assistant") {
      const assistant = entry.message as { readonly provider: string; readonly model: string }
      model = { provider: assistant.provider, modelId: assistant.model }
    } else if (entry.type === "compaction") compactionIndex = i
  }
  const messages: Array<ContextMessage> = []
  const emit = (entry: Entry) => {
    const message = messageOf(entry)
    if (message !== undefined) messages.push(message)
  }
  if (compactionIndex === -1) {
    for (const entry of path) emit(entry)
    return { messages, thinkingLevel, model }
  }
  const compaction = path[compactionIndex] as CompactionEntry
  messages.push({
    role: "compactionSummary",
    summary: compaction.summary,
    tokensBefore: compaction.tokensBefore,
    timestamp: time(compaction.timestamp)
  })
  const kept = firstKeptEntryId(state, compaction)
  let keeping = false
  for (let i = 0; i < compactionIndex; i++) {
    const entry = path[i]!
    if (entry.id === kept) keeping = true
    if (keeping) emit(entry)
  }
  for (let i = compactionIndex + 1; i < path.length; i++) emit(path[i]!)
  return { messages, thinkingLevel, model }
}

/**
 * The context at `leafId`: the visible leaf when `leafId` is omitted, empty for `null`, and for
 * an id that names no entry the last entry in file order (as the references fall back).
 */
export const buildSessionContext = (state: SessionState.SessionState, leafId?: string | null): SessionContext => {
  let leaf = leafId === undefined ? state.leafId : leafId
  if (leaf === null) return emptyContext()
  if (!state.byId.has(leaf)) {
    const last = state.entries[state.entries.length - 1]
    if (last === undefined) return emptyContext()
    leaf = last.id
  }
  return fromPath(state, Tree.getBranch(state, leaf))
}
