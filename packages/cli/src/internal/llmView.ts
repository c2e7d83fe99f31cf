/**
 * What `context --llm` prints: the messages a model receives (session-core's `convertToLlm` of
 * the built context: summaries, custom messages and `!cmd` runs become user text), in a
 * provider-neutral shape, with the model and thinking level.
 *
 * ```json
 * { "model": { "provider": "anthropic", "modelId": "m1" } | null, "thinkingLevel": "off",
 *   "messages": [
 *     { "role": "user", "content": [{ "type": "text", "text": "…" }, { "type": "image", "mimeType": "image/png", "data": "…" }] },
 *     { "role": "assistant", "content": [{ "type": "thinking", "text": "…" }, { "type": "text", "text": "…" },
 *                                       { "type": "tool_call", "id": "c1", "name": "read", "arguments": {} }] },
 *     { "role": "tool", "content": [{ "type": "tool_result", "toolCallId": "c1", "toolName": "read", "isError": false,
 *                                     "content": [{ "type": "text", "text": "…" }] }] } ] }
 * ```
 */
import type { SessionContext } from "@branchlog/session-core"
import { LlmMessages } from "@branchlog/session-core"

/** One block of a neutral message. */
export type NeutralBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string }
  | { readonly type: "image"; readonly mimeType: string; readonly data: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: unknown }
  | {
    readonly type: "tool_result"
    readonly toolCallId: string
    readonly toolName: string
    readonly isError: boolean
    readonly content: ReadonlyArray<NeutralBlock>
  }

/** A neutral message: who speaks, and what. */
export interface NeutralMessage {
  readonly role: "user" | "assistant" | "tool"
  readonly content: ReadonlyArray<NeutralBlock>
}

/** What `context --llm` prints. */
export interface LlmView {
  readonly model: { readonly provider: string; readonly modelId: string } | null
  readonly thinkingLevel: string
  readonly messages: ReadonlyArray<NeutralMessage>
}

type Raw = Record<string, unknown>

const blocks = (content: unknown): Array<NeutralBlock> => {
  if (typeof content === "string") return [{ type: "text", text: content }]
  if (!Array.isArray(content)) return []
  const out: Array<NeutralBlock> = []
  for (const block of content as ReadonlyArray<Raw>) {
    if (typeof block !== "object" || block === null) continue
    if (block.type === "text") out.push({ type: "text", text: String(block.text ?? "") })
    else if (block.type === "thinking") out.push({ type: "thinking", text: String(block.thinking ?? "") })
    else if (block.type === "image") {
      out.push({ type: "image", mimeType: String(block.mimeType ?? ""), data: String(block.data ?? "") })
    } else if (block.type === "toolCall") {
      out.push({
        type: "tool_call",
        id: String(block.id ?? ""),
        name: String(block.name ?? ""),
        arguments: block.arguments ?? {}
      })
    }
  }
  return out
}

/** The neutral form of one message for a model. */
const neutral = (message: LlmMessages.LlmMessage): NeutralMessage => {
  const m = message as unknown as Raw
  if (message.role === "toolResult") {
    return {
      role: "tool",
      content: [{
        type: "tool_result",
        toolCallId: String(m.toolCallId ?? ""),
        toolName: String(m.toolName ?? ""),
        isError: m.isError === true,
        content: blocks(m.content)
      }]
    }
  }
  return { role: message.role, content: blocks(m.content) }
}

/** The view of a built context. */
export const view = (built: SessionContext.SessionContext): LlmView => ({
  model: built.model === null ? null : { provider: built.model.provider, modelId: built.model.modelId },
  thinkingLevel: built.thinkingLevel,
  messages: LlmMessages.convertToLlm(built.messages).map(neutral)
})
