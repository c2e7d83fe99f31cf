/**
 * `convertToLlm`: the context's messages as a model takes them (pi's `convertToLlm`). User,
 * assistant and tool result messages pass as they are (a string or single-object `content` of an
 * assistant or tool result message as blocks: the type a model provider reads); the derived messages and `bashExecution`
 * become user messages; a `bashExecution` marked `excludeFromContext` is left out, and so is any
 * role a model has no use for.
 *
 * @since 0.1.0
 */
import type {
  AssistantMessage,
  BashExecutionMessage,
  ContextMessage,
  ImageContent,
  TextContent,
  ToolResultMessage,
  UserMessage
} from "./AgentMessage.js"

/** What precedes a compaction summary. */
export const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
/** What follows a compaction summary. */
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
/** What precedes a branch summary. */
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
/** What follows a branch summary. */
export const BRANCH_SUMMARY_SUFFIX = "</summary>"

/** A message for a model. */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage

/** The text a model sees for a `!cmd` the user ran. */
export const bashExecutionToText = (message: BashExecutionMessage): string => {
  let text = `Ran \`${message.command}\`\n`
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : "(no output)"
  if (message.cancelled) text += "\n\n(command cancelled)"
  else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`
  }
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`
  }
  return text
}

const userText = (text: string, timestamp: number): UserMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp
})

/**
 * An assistant or tool result message with its `content` as blocks, as models take it: a file may
 * hold a string (or, for a tool result, one block object), which the context gives verbatim.
 */
const asBlocks = (message: ContextMessage): LlmMessage => {
  const content = (message as { readonly content?: unknown }).content
  if (typeof content === "string") return { ...message, content: [{ type: "text", text: content }] } as LlmMessage
  if (typeof content === "object" && content !== null && !Array.isArray(content)) {
    return { ...message, content: [content] } as LlmMessage
  }
  return message as LlmMessage
}

/** Converts one context message; `undefined` when a model should not see it. */
export const convertMessage = (message: ContextMessage): LlmMessage | undefined => {
  switch (message.role) {
    case "user":
      return message as LlmMessage
    case "assistant":
    case "toolResult":
      return asBlocks(message)
    case "bashExecution": {
      const bash = message as BashExecutionMessage
      return bash.excludeFromContext ? undefined : userText(bashExecutionToText(bash), bash.timestamp)
    }
    case "custom": {
      const custom = message as {
        readonly content: string | ReadonlyArray<TextContent | ImageContent>
        readonly timestamp: number
      }
      const content = typeof custom.content === "string"
        ? [{ type: "text" as const, text: custom.content }]
        : custom.content
      return { role: "user", content, timestamp: custom.timestamp }
    }
    case "branchSummary": {
      const branch = message as { readonly summary: string; readonly timestamp: number }
      return userText(BRANCH_SUMMARY_PREFIX + branch.summary + BRANCH_SUMMARY_SUFFIX, branch.timestamp)
    }
    case "compactionSummary": {
      const compaction = message as { readonly summary: string; readonly timestamp: number }
      return userText(COMPACTION_SUMMARY_PREFIX + compaction.summary + COMPACTION_SUMMARY_SUFFIX, compaction.timestamp)
    }
    default:
      return undefined
  }
}

/** Converts the context's messages for a model, in order. */
export const convertToLlm = (messages: ReadonlyArray<ContextMessage>): Array<LlmMessage> => {
  const out: Array<LlmMessage> = []
  for (const message of messages) {
    const converted = convertMessage(message)
    if (converted !== undefined) out.push(converted)
  }
  return out
}
