/** One-line and readable renderings of entries and messages, for `tree`, `show` and `export`. */
import type { AgentMessage, Entry } from "@branchlog/session-core"

/** A content block as stored: text, thinking, tool call or image (fields read defensively). */
export type Block = {
  readonly type?: string
  readonly text?: string
  readonly thinking?: string
  readonly name?: string
  readonly arguments?: unknown
}

/**
 * The text of message content: text blocks joined; images and tool calls named in brackets.
 * Thinking is left out (`thinking`: shown as "(thinking) …"); a turn of thinking alone reads
 * "(thinking)", never as nothing.
 */
export const contentText = (content: unknown, options: { readonly thinking?: boolean } = {}): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const blocks = content as ReadonlyArray<Block>
  const text = blocks
    .map((block) => {
      if (block.type === "text" && typeof block.text === "string") return block.text
      if (block.type === "thinking") {
        const thought = typeof block.thinking === "string" ? block.thinking.trim() : ""
        return options.thinking ? (thought === "" ? "(thinking)" : `(thinking) ${thought}`) : ""
      }
      if (block.type === "toolCall") return `[${String(block.name)}(${JSON.stringify(block.arguments ?? {})})]`
      if (block.type === "image") return "[image]"
      return ""
    })
    .filter((text) => text !== "")
    .join(" ")
  return text === "" && blocks.some((block) => block.type === "thinking") ? "(thinking)" : text
}

/**
 * Collapses white space and cuts to `width` characters. A long text is collapsed only as far as
 * the cut needs (a tool result of megabytes costs what its first lines do): when the collapsed
 * start of it is longer than `width + 1`, the whole would be cut at the same place.
 */
export const oneLine = (text: string, width: number): string => {
  if (text.length > width + 64) {
    const start = text.slice(0, width + 48).replace(/\s+/g, " ").trimStart()
    if (start.length > width + 1) return `${start.slice(0, width - 1)}…`
  }
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

/** What a message says, in one line. */
export const messageLine = (message: AgentMessage.AgentMessage | { readonly role: string }, width = 80): string => {
  const m = message as Record<string, unknown>
  switch (message.role) {
    case "toolResult":
      return `toolResult ${String(m.toolName)}${m.isError === true ? " (error)" : ""}: ${
        oneLine(contentText(m.content), width)
      }`
    case "bashExecution":
      return `bash: ${oneLine(String(m.command), width)}`
    case "custom":
      return `custom ${String(m.customType)}: ${oneLine(contentText(m.content), width)}`
    case "compactionSummary":
    case "branchSummary":
      return `${message.role}: ${oneLine(String(m.summary), width)}`
    default:
      return `${message.role}: ${oneLine(contentText(m.content), width)}`
  }
}

/** What an entry is, in one line. */
export const entryLine = (entry: Entry.Entry, width = 80): string => {
  switch (entry.type) {
    case "message":
      return messageLine(entry.message, width)
    case "thinking_level_change":
      return `thinking level → ${entry.thinkingLevel}`
    case "model_change":
      return `model → ${entry.provider}/${entry.modelId}`
    case "compaction":
      return `compaction (${entry.tokensBefore} tokens, keeps from ${entry.firstKeptEntryId}): ${
        oneLine(entry.summary, width)
      }`
    case "branch_summary":
      return `branch summary (from ${entry.fromId}): ${oneLine(entry.summary, width)}`
    case "custom":
      return `custom ${entry.customType}`
    case "custom_message":
      return `custom message ${entry.customType}: ${oneLine(contentText(entry.content), width)}`
    case "label":
      return entry.label ? `label ${entry.targetId} = "${entry.label}"` : `label ${entry.targetId} cleared`
    case "session_info":
      return entry.name?.trim() ? `name "${entry.name.trim()}"` : "name cleared"
    default:
      return (entry as { readonly type: string }).type
  }
}
