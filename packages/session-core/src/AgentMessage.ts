/**
 * The agent message shapes stored verbatim in `message` entries (spec §1.4), and the derived
 * messages that context building produces (spec §5).
 *
 * The schemas describe what the references write. Decoding is lenient where the references
 * are: every struct keeps unknown extra fields (`onExcessProperty: "preserve"` is the default of
 * {@link decodeAgentMessage}), and a message whose `role` is not one of the known ones is still a
 * message ({@link OtherMessage}). It is strict where the format is: a message needs a non-empty
 * string `role`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** `{type:"text", text}` content block. */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
})
/** A text content block. */
export type TextContent = typeof TextContent.Type

/** `{type:"image", data, mimeType}` content block (base64 data). */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String
})
/** An image content block. */
export type ImageContent = typeof ImageContent.Type

/** `{type:"thinking", thinking}` content block of an assistant message. */
export const ThinkingContent = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String
})
/** A thinking content block. */
export type ThinkingContent = typeof ThinkingContent.Type

/** `{type:"toolCall", id, name, arguments}` content block of an assistant message. */
export const ToolCall = Schema.Struct({
  type: Schema.Literal("toolCall"),
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
/** A tool call content block. */
export type ToolCall = typeof ToolCall.Type

/** User-side content: a string, or text and image blocks. */
export const UserContent = Schema.Union(Schema.String, Schema.Array(Schema.Union(TextContent, ImageContent)))
/** User-side content. */
export type UserContent = typeof UserContent.Type

/** `{role:"user", content, timestamp}`. */
export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: UserContent,
  timestamp: Schema.Number
})
/** A user message. */
export type UserMessage = typeof UserMessage.Type

/** Token usage and cost of one assistant reply. */
export const Usage = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  cacheRead: Schema.Number,
  cacheWrite: Schema.Number,
  totalTokens: Schema.Number,
  cost: Schema.Struct({
    input: Schema.Number,
    output: Schema.Number,
    cacheRead: Schema.Number,
    cacheWrite: Schema.Number,
    total: Schema.Number
  })
})
/** Token usage of an assistant reply. */
export type Usage = typeof Usage.Type

/** Why an assistant reply ended. */
export const StopReason = Schema.Literal("stop", "length", "toolUse", "error", "aborted")
/** Why an assistant reply ended. */
export type StopReason = typeof StopReason.Type

/** `{role:"assistant", content, api, provider, model, usage, stopReason, errorMessage?, timestamp}`. */
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.Array(Schema.Union(TextContent, ThinkingContent, ToolCall)),
  api: Schema.String,
  provider: Schema.String,
  model: Schema.String,
  usage: Usage,
  stopReason: StopReason,
  errorMessage: Schema.optional(Schema.String),
  timestamp: Schema.Number
})
/** An assistant message. */
export type AssistantMessage = typeof AssistantMessage.Type

/** `{role:"toolResult", toolCallId, toolName, content, details?, isError, timestamp}`. */
export const ToolResultMessage = Schema.Struct({
  role: Schema.Literal("toolResult"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  content: Schema.Array(Schema.Union(TextContent, ImageContent)),
  details: Schema.optional(Schema.Unknown),
  isError: Schema.Boolean,
  timestamp: Schema.Number
})
/** A tool result message. */
export type ToolResultMessage = typeof ToolResultMessage.Type

/** `{role:"bashExecution", ...}`: the user ran `!cmd`. */
export const BashExecutionMessage = Schema.Struct({
  role: Schema.Literal("bashExecution"),
  command: Schema.String,
  output: Schema.String,
  exitCode: Schema.optional(Schema.NullOr(Schema.Number)),
  cancelled: Schema.Boolean,
  truncated: Schema.Boolean,
  fullOutputPath: Schema.optional(Schema.String),
  excludeFromContext: Schema.optional(Schema.Boolean),
  timestamp: Schema.Number
})
/** A bash execution message. */
export type BashExecutionMessage = typeof BashExecutionMessage.Type

/** `{role:"custom", customType, content, display, details?, timestamp}` (v2 called the role `hookMessage`). */
export const CustomMessage = Schema.Struct({
  role: Schema.Literal("custom"),
  customType: Schema.String,
  content: UserContent,
  display: Schema.Boolean,
  details: Schema.optional(Schema.Unknown),
  timestamp: Schema.Number
})
/** A custom (extension) message. */
export type CustomMessage = typeof CustomMessage.Type

/**
 * `{role:"system", content, sections?, toolsAdded?, toolsRemoved?, timestamp}` (pi 1.6): system
 * instructions and tool declarations at one point of the transcript. Stored in `message` entries
 * and in a compaction's `systemMessage`; dropped inside a compaction's kept range (spec §15).
 */
export const SystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: Schema.Union(Schema.String, Schema.Array(TextContent)),
  sections: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String) })),
  toolsAdded: Schema.optional(Schema.Array(Schema.Unknown)),
  toolsRemoved: Schema.optional(Schema.Array(Schema.Unknown)),
  timestamp: Schema.Number
})
/** A system message (pi 1.6). */
export type SystemMessage = typeof SystemMessage.Type

const knownRoles = ["user", "assistant", "toolResult", "bashExecution", "custom", "system"] as const

/** A message of a role this library does not know (kept and passed through as it is). */
export const OtherMessage = Schema.Struct({
  role: Schema.String.pipe(
    Schema.filter((role) => role.trim().length > 0, { message: () => "a role must not be blank" }),
    Schema.filter((role) => !(knownRoles as ReadonlyArray<string>).includes(role), {
      message: () => "a known role must match its own shape"
    })
  )
})
/** A message of an unknown role. */
export type OtherMessage = typeof OtherMessage.Type

/** Every message a `message` entry can hold. */
export const AgentMessage = Schema.Union(
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  BashExecutionMessage,
  CustomMessage,
  SystemMessage,
  OtherMessage
)
/** A stored agent message. */
export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | SystemMessage
  | OtherMessage

/** Derived (never stored) summary of what a compaction replaced. */
export interface CompactionSummaryMessage {
  readonly role: "compactionSummary"
  readonly summary: string
  readonly tokensBefore: number
  readonly timestamp: number
}

/** Derived (never stored) summary of a branch the conversation came back from. */
export interface BranchSummaryMessage {
  readonly role: "branchSummary"
  readonly summary: string
  readonly fromId: string
  readonly timestamp: number
}

/** A message of the built context: a stored message, or one derived from an entry. */
export type ContextMessage = AgentMessage | CompactionSummaryMessage | BranchSummaryMessage | CustomMessage

/** Decodes an unknown value as an agent message, keeping unknown fields. */
export const decodeAgentMessage = Schema.decodeUnknownEither(AgentMessage, { onExcessProperty: "preserve" })
