/** Anthropic Messages content blocks (as Claude Code stores them) → branchlog content blocks (pure). */
import type { AgentMessage } from "@branchlog/session-core"
import { isObject, num, str } from "./builder.js"

type UserBlock = AgentMessage.TextContent | AgentMessage.ImageContent
type AssistantBlock = AgentMessage.AssistantMessage["content"][number]

/** An image block's base64 source as `{type:"image", data, mimeType}`; a URL or file source as a text note. */
export const imageOf = (block: Record<string, unknown>): UserBlock => {
  const source = isObject(block.source) ? block.source : {}
  if (source.type === "base64" && typeof source.data === "string") {
    return { type: "image", data: source.data, mimeType: str(source.media_type) ?? "image/png" }
  }
  return { type: "text", text: `[image: ${str(source.url) ?? str(source.file_id) ?? "not stored in the transcript"}]` }
}

/**
 * User-side blocks (text, image; a document or another block as a text note naming it), with the
 * count of blocks that were not text or image.
 */
export const userBlocks = (content: unknown): { blocks: Array<UserBlock>; other: number } => {
  if (typeof content === "string") return { blocks: [{ type: "text", text: content }], other: 0 }
  const blocks: Array<UserBlock> = []
  let other = 0
  if (!Array.isArray(content)) return { blocks, other }
  for (const block of content) {
    if (typeof block === "string") blocks.push({ type: "text", text: block })
    else if (!isObject(block)) other++
    else if (block.type === "text") blocks.push({ type: "text", text: str(block.text) ?? "" })
    else if (block.type === "image") blocks.push(imageOf(block))
    else {
      other++
      const source = isObject(block.source) ? block.source : {}
      blocks.push({
        type: "text",
        text: `[${String(block.type)}${typeof source.media_type === "string" ? `: ${source.media_type}` : ""}]`
      })
    }
  }
  return { blocks, other }
}

/** The arguments of a tool call: the input object, or `{input}` when it is not an object. */
export const argumentsOf = (input: unknown): Record<string, unknown> =>
  isObject(input) ? input : input === undefined ? {} : { input }

/** Assistant blocks: text, thinking (signature kept), redacted thinking (data kept), tool uses. */
export const assistantBlocks = (
  content: unknown,
  seenToolIds: Set<string>
): { blocks: Array<AssistantBlock>; duplicates: number; other: number } => {
  const blocks: Array<AssistantBlock> = []
  let duplicates = 0
  let other = 0
  const list = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : []
  for (const block of list) {
    if (!isObject(block)) {
      other++
      continue
    }
    switch (block.type) {
      case "text":
        blocks.push({ type: "text", text: str(block.text) ?? "" })
        break
      case "thinking":
        blocks.push({
          type: "thinking",
          thinking: str(block.thinking) ?? "",
          ...(typeof block.signature === "string" ? { thinkingSignature: block.signature } : {})
        } as AssistantBlock)
        break
      case "redacted_thinking":
        blocks.push(
          { type: "thinking", thinking: "", redacted: true, thinkingSignature: str(block.data) ?? "" } as AssistantBlock
        )
        break
      case "tool_use":
      case "server_tool_use":
      case "mcp_tool_use": {
        const id = str(block.id) ?? ""
        if (seenToolIds.has(id)) {
          duplicates++
          break
        }
        seenToolIds.add(id)
        blocks.push({ type: "toolCall", id, name: str(block.name) ?? "unknown", arguments: argumentsOf(block.input) })
        break
      }
      default:
        other++
        blocks.push({ type: "text", text: `[${String(block.type)}]` })
    }
  }
  return { blocks, duplicates, other }
}

/** Anthropic usage → branchlog usage (no cost: the transcript does not say it). */
export const usageOf = (usage: unknown): AgentMessage.Usage => {
  const u = isObject(usage) ? usage : {}
  const input = num(u.input_tokens)
  const output = num(u.output_tokens)
  const cacheRead = num(u.cache_read_input_tokens)
  const cacheWrite = num(u.cache_creation_input_tokens)
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
  }
}

/** Anthropic `stop_reason` → branchlog `stopReason`. */
export const stopReasonOf = (reason: unknown, hasToolCall: boolean): AgentMessage.StopReason => {
  if (hasToolCall || reason === "tool_use") return "toolUse"
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length"
  if (reason === "refusal") return "error"
  return "stop"
}

/** A tool result block's content as text and image blocks. */
export const toolResultContent = (content: unknown): Array<UserBlock> =>
  content === undefined || content === null
    ? []
    : typeof content === "string"
    ? [{ type: "text", text: content }]
    : userBlocks(content).blocks
