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
 * 4. With a compaction, its `systemMessage` (pi 1.6) and its derived `compactionSummary` come
 *    first, then the path from its `firstKeptEntryId` (nothing, when that id is `null` or not on
 *    the path) up to it, system messages left out, then what follows.
 * 5. pi 1.6's `context_edit` entries (spec §15): among the selected ones (those emitted by steps 3
 *    and 4 would be), the last for a target in path order wins; when its target is selected too,
 *    `replacement: null` removes the target's whole contribution and `{content}` swaps the content
 *    of its user, assistant, tool result or custom messages. `usage` entries emit nothing and do
 *    not set the model. Null content is given as `[]` (`""` for a system message).
 *
 * OpenClaw's behaviour where it differs from pi, followed here: a `firstKeptEntryId` that names
 * an opaque row is repaired to a canonical entry; a string `content` of an assistant or tool
 * result message is given as one text block (the stored entry is not changed). Messages marked
 * `excludeFromContext` stay in the context (OpenClaw 2026.6 and pi agree); `LlmMessages.convert`
 * leaves them out.
 *
 * @since 0.1.0
 */
import type { AgentMessage, ContextMessage, CustomMessage, SystemMessage } from "./AgentMessage.js"
import type { CompactionEntry, ContextEditEntry, Entry } from "./Entry.js"
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

/**
 * The message as the context gives it: the stored message verbatim (pi 0.73.1, pi 1.6 and OpenClaw
 * 2026.6 all keep a string or object `content` as it is), except pi 1.6's null content (a user,
 * assistant or tool result message with `content == null` gets `[]`, a system message `""`). The
 * stored message is not changed.
 */
const normalizeMessage = (message: AgentMessage): AgentMessage => {
  const content = (message as { readonly content?: unknown }).content
  if (content !== null && content !== undefined) return message
  const role = message.role
  if (role === "system") return { ...message, content: "" } as AgentMessage
  if (role === "user" || role === "assistant" || role === "toolResult") {
    return { ...message, content: [] } as AgentMessage
  }
  return message
}

/** The compaction summary a compaction contributes. */
const compactionSummaryOf = (compaction: CompactionEntry): ContextMessage => ({
  role: "compactionSummary",
  summary: compaction.summary,
  tokensBefore: compaction.tokensBefore,
  timestamp: time(compaction.timestamp)
})

/**
 * The message an entry contributes to the context, if any (a compaction's is its summary, see
 * {@link contributionOf}; an older compaction in the kept range contributes nothing).
 */
export const messageOf = (entry: Entry): ContextMessage | undefined => {
  switch (entry.type) {
    case "message":
      return normalizeMessage(entry.message)
    case "custom_message": {
      const custom: CustomMessage = {
        role: "custom",
        customType: entry.customType,
        content: (entry.content as CustomMessage["content"] | null | undefined) ?? [],
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

/** The roles whose content a context edit swaps (others keep theirs). */
const editableRoles: ReadonlySet<string> = new Set(["user", "assistant", "toolResult", "custom"])

/** `true` for a replacement a context edit can apply: `null`, or an object with string or array `content`. */
const isReplacement = (replacement: unknown): replacement is ContextEditEntry["replacement"] =>
  replacement === null ||
  (typeof replacement === "object" && !Array.isArray(replacement) &&
    (typeof (replacement as { content?: unknown }).content === "string" ||
      Array.isArray((replacement as { content?: unknown }).content)))

/**
 * `true` for a context edit that can change anything: a string `targetId` and a replacement that
 * is `null` or `{content}` with string or array content (what pi 1.6's API accepts). Other rows of
 * type `context_edit` are tree nodes without effect (fsck reports them).
 */
export const isEffectiveEdit = (entry: ContextEditEntry): boolean =>
  typeof entry.targetId === "string" && isReplacement((entry as { readonly replacement?: unknown }).replacement)

/**
 * The messages a selected entry contributes, with the edit that targets it applied (spec §15):
 * `null` removes them all; `{content}` swaps the content of user, assistant, tool result and
 * custom messages (a string becomes one text block for assistant and tool result messages).
 */
const applyEdit = (messages: Array<ContextMessage>, out: Array<ContextMessage>, edit: ContextEditEntry): void => {
  const replacement = edit.replacement
  if (replacement === null) return
  for (const message of messages) {
    if (!editableRoles.has(message.role)) out.push(message)
    else {
      const content = (message.role === "assistant" || message.role === "toolResult") &&
          typeof replacement.content === "string"
        ? [{ type: "text", text: replacement.content }]
        : replacement.content
      out.push({ ...message, content } as ContextMessage)
    }
  }
}

/**
 * The `firstKeptEntryId` a compaction really keeps from. OpenClaw repairs an id that names an
 * opaque row or leaf control: its nearest canonical ancestor, else the first canonical entry
 * below it on the compaction's branch, else the first in file order, else the compaction's parent.
 */
export const firstKeptEntryId = (state: SessionState.SessionState, compaction: CompactionEntry): string | null => {
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
 * The context along a path (root first), as the references' core builder makes it, with pi 1.6's
 * rules (spec §15): the selected entries are the path, or with a compaction the compaction itself
 * (its `systemMessage`, then its summary), the kept range before it without system messages, and
 * everything after it; among the selected `context_edit` entries the last for a target wins and
 * rewrites that target's contribution when the target is selected too. O(path length).
 */
export const fromPath = (state: SessionState.SessionState, path: ReadonlyArray<Entry>): SessionContext => {
  let thinkingLevel = "off"
  let model: ModelRef | null = null
  let compactionIndex = -1
  let hasEdits = false
  for (let i = 0; i < path.length; i++) {
    const entry = path[i]!
    if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel
    else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId }
    else if (entry.type === "message" && entry.message.role === "assistant") {
      const assistant = entry.message as { readonly provider: string; readonly model: string }
      model = { provider: assistant.provider, modelId: assistant.model }
    } else if (entry.type === "compaction") compactionIndex = i
    else if (entry.type === "context_edit") hasEdits = true
  }
  // the selected entries: [from, to) of the path, the kept range, and the compaction first
  const compaction = compactionIndex === -1 ? undefined : path[compactionIndex] as CompactionEntry
  let keptFrom = compactionIndex
  if (compaction !== undefined) {
    const kept = firstKeptEntryId(state, compaction)
    for (let i = 0; i < compactionIndex; i++) {
      if (path[i]!.id === kept) {
        keptFrom = i
        break
      }
    }
  }
  const isSelected = (i: number): boolean =>
    compaction === undefined || i > compactionIndex ||
    (i >= keptFrom && i < compactionIndex && !isSystemMessage(path[i]!))
  let edits: Map<string, ContextEditEntry> | undefined
  if (hasEdits) {
    for (let i = 0; i < path.length; i++) {
      const entry = path[i]!
      if (entry.type === "context_edit" && isSelected(i) && isEffectiveEdit(entry)) {
        ;(edits ??= new Map()).set(entry.targetId, entry)
      }
    }
  }
  const messages: Array<ContextMessage> = []
  const emit = (entry: Entry, contribution: Array<ContextMessage>) => {
    const edit = edits?.get(entry.id)
    if (edit === undefined) messages.push(...contribution)
    else applyEdit(contribution, messages, edit)
  }
  const one = (entry: Entry): Array<ContextMessage> => {
    const message = messageOf(entry)
    return message === undefined ? [] : [message]
  }
  if (compaction === undefined) {
    for (const entry of path) {
      if (edits === undefined) {
        const message = messageOf(entry)
        if (message !== undefined) messages.push(message)
      } else emit(entry, one(entry))
    }
    return { messages, thinkingLevel, model }
  }
  const head = compactionSummaryOf(compaction)
  emit(compaction, compaction.systemMessage ? [compaction.systemMessage as ContextMessage, head] : [head])
  for (let i = keptFrom; i < compactionIndex; i++) if (isSelected(i)) emit(path[i]!, one(path[i]!))
  for (let i = compactionIndex + 1; i < path.length; i++) emit(path[i]!, one(path[i]!))
  return { messages, thinkingLevel, model }
}

/** A `message` entry of role `system`. */
const isSystemMessage = (entry: Entry): boolean => entry.type === "message" && entry.message.role === "system"

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

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter((block) => block?.type === "text").map((block) => block.text).join("\n")
    : ""

const toolName = (
  tool: unknown
): unknown => (typeof tool === "object" && tool !== null ? (tool as { name?: unknown }).name : tool)

/**
 * The system messages of `messages` replayed into one, as pi 1.6 stores it in a compaction's
 * `systemMessage` (pi-ai's `getCurrentSystemMessage`): the texts of every system message's content,
 * non-empty ones joined by a blank line; `sections` patched by name (`null` removes one); tools
 * added and removed by name; the first system message's timestamp. `undefined` when there is no
 * system message and no tool.
 */
export const currentSystemMessage = (messages: ReadonlyArray<ContextMessage>): SystemMessage | undefined => {
  const content: Array<string> = []
  const sections = new Map<string, string>()
  const tools = new Map<unknown, unknown>()
  let timestamp: number | undefined
  for (const message of messages) {
    if (message.role !== "system") continue
    const system = message as SystemMessage
    timestamp ??= system.timestamp
    const text = textOf(system.content)
    if (text.length > 0) content.push(text)
    for (const [name, value] of Object.entries(system.sections ?? {})) {
      if (value === null) sections.delete(name)
      else sections.set(name, value)
    }
    for (const tool of system.toolsRemoved ?? []) tools.delete(toolName(tool))
    for (const tool of system.toolsAdded ?? []) tools.set(toolName(tool), tool)
  }
  if (timestamp === undefined && tools.size === 0) return undefined
  return {
    role: "system",
    content: content.join("\n\n"),
    ...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
    ...(tools.size > 0 ? { toolsAdded: [...tools.values()] } : {}),
    timestamp: timestamp ?? 0
  }
}
