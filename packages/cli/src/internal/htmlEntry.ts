/**
 * One entry of the export page: its head (kind, id, time, label), its body (Markdown text,
 * thinking collapsed under "Thinking", tool calls each with its result under it, images,
 * summaries), and the classes the page's filter and style read.
 */
import type { Entry, Tree } from "@branchlog/session-core"
import { toHtml } from "./htmlMarkdown.js"
import { attribute, classToken, escape, pre } from "./htmlText.js"
import { type Block, contentText, entryLine } from "./summary.js"

/** The image types shown inline (as `data:` URLs); SVG is not one of them. */
const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"])

const base64 = /^[A-Za-z0-9+/]+={0,2}$/

/** An image block: shown when its type is on the list and its data is base64, else named. */
const image = (block: { readonly data?: unknown; readonly mimeType?: unknown }): string =>
  typeof block.mimeType === "string" && imageTypes.has(block.mimeType) && typeof block.data === "string" &&
    base64.test(block.data)
    ? `<div class="image"><img alt="image (${block.mimeType})" src="data:${block.mimeType};base64,${block.data}"></div>`
    : `<div class="image">[image${block.mimeType === undefined ? "" : ` ${escape(block.mimeType)}`}]</div>`

type Message = Record<string, unknown>

const blocksOf = (m: Message): ReadonlyArray<Block> | undefined =>
  Array.isArray(m.content) ? m.content as ReadonlyArray<Block> : undefined

/** The tool calls' ids of a message, in order (empty for anything else). */
export const toolCallIds = (entry: Entry.Entry): ReadonlyArray<string> => {
  if (entry.type !== "message") return []
  const blocks = blocksOf(entry.message as Message)
  if (blocks === undefined) return []
  return blocks.flatMap((block) =>
    block.type === "toolCall" && typeof (block as { id?: unknown }).id === "string"
      ? [(block as { id: string }).id]
      : []
  )
}

/** The call id that a tool result answers, if the entry is one. */
export const resultCallId = (entry: Entry.Entry): string | undefined => {
  if (entry.type !== "message") return undefined
  const m = entry.message as Message
  return m.role === "toolResult" && typeof m.toolCallId === "string" ? m.toolCallId : undefined
}

const thinking = (block: Block): string => {
  const text = typeof block.thinking === "string" ? block.thinking : ""
  const redacted = block.type === "redacted_thinking" || (block as { redacted?: unknown }).redacted === true
  if (text.trim() === "") {
    return `<div class="thinking empty"><span class="thinking-label">Thinking</span> <span class="note">(${
      redacted ? "redacted" : "its text was not recorded"
    })</span></div>`
  }
  return `<details class="thinking"><summary>Thinking</summary><div class="md">${toHtml(text)}</div></details>`
}

const toolCall = (block: Block, results: ReadonlyMap<string, string>): string => {
  const id = (block as { id?: unknown }).id
  const result = typeof id === "string" ? results.get(id) : undefined
  return `<div class="tool-call"><div class="call-head">Tool call <b>${escape(String(block.name))}</b></div>${
    pre(JSON.stringify(block.arguments ?? {}, null, 2), "tool")
  }${result === undefined ? "" : `<ol class="results">${result}</ol>`}</div>`
}

/** The body of a message with content blocks; `markdown` for the text of people and the assistant. */
const blocksHtml = (blocks: ReadonlyArray<Block>, markdown: boolean, results: ReadonlyMap<string, string>) =>
  blocks.map((block) => {
    if (block.type === "text") {
      const text = String(block.text ?? "")
      return markdown ? (text === "" ? "" : `<div class="md">${toHtml(text)}</div>`) : pre(text, "tool")
    }
    if (block.type === "thinking" || block.type === "redacted_thinking") return thinking(block)
    if (block.type === "toolCall") return toolCall(block, results)
    if (block.type === "image") return image(block as { readonly data?: unknown; readonly mimeType?: unknown })
    return ""
  }).join("")

const markdownOf = (text: string) => (text === "" ? "" : `<div class="md">${toHtml(text)}</div>`)

/** The body of one entry: its text, thinking, tool calls (with their results), results, summaries. */
const body = (entry: Entry.Entry, results: ReadonlyMap<string, string>): string => {
  switch (entry.type) {
    case "message": {
      const m = entry.message as Message
      if (m.role === "bashExecution") return pre(`$ ${String(m.command)}\n${String(m.output)}`, "tool")
      const markdown = m.role !== "toolResult"
      const blocks = blocksOf(m)
      if (blocks === undefined) {
        return markdown
          ? markdownOf(contentText(m.content))
          : pre(contentText(m.content), "tool")
      }
      return blocksHtml(blocks, markdown, results)
    }
    case "compaction":
    case "branch_summary":
      return `<div class="md summary">${toHtml(entry.summary)}</div>`
    case "custom_message":
      return markdownOf(contentText(entry.content))
    case "custom":
      return entry.data === undefined ? "" : pre(JSON.stringify(entry.data, null, 2), "tool")
    default:
      return ""
  }
}

/** The kind of an entry as shown: a message's role, or the entry's type. */
export const kindOf = (entry: Entry.Entry): string =>
  entry.type === "message" ? String((entry.message as { role: unknown }).role) : entry.type

/** What the filter "hide tools" hides: tool results, shell runs, and messages that are only tool calls. */
const toolClass = (entry: Entry.Entry): ReadonlyArray<string> => {
  if (entry.type !== "message") return []
  const m = entry.message as Message
  if (m.role === "toolResult" || m.role === "bashExecution") return ["tool"]
  const blocks = blocksOf(m)
  return blocks !== undefined && blocks.length > 0 && blocks.every((block) => block.type === "toolCall")
    ? ["tool", "tools-only"]
    : []
}

/** How one entry is shown, beyond itself. */
export interface EntryOptions {
  readonly onPath: boolean
  readonly leaf: boolean
  /** Gives the entry its `id` attribute (only the first time a duplicated id is shown). */
  readonly anchor: boolean
  /** Before a compaction: summarised, no longer in the model's context. */
  readonly past: boolean
  /** Shown under its tool call. */
  readonly paired: boolean
  /** The rendered results of this entry's tool calls, by call id. */
  readonly results: ReadonlyMap<string, string>
}

/** The line under a head for an entry that is not a message (without the text its body shows). */
const metaLine = (entry: Entry.Entry): string => {
  switch (entry.type) {
    case "compaction":
      return `Compaction (${entry.tokensBefore} tokens before it): the model's context goes on from this summary`
    case "branch_summary":
      return `Summary of the branch left at ${entry.fromId}`
    case "custom_message":
      return `custom message ${entry.customType}`
    default:
      return entryLine(entry, 200)
  }
}

/** One entry as an `<li>`. */
export const entryHtml = (node: Tree.TreeNode, options: EntryOptions): string => {
  const { entry } = node
  const kind = kindOf(entry)
  const classes = [
    "entry",
    `kind-${classToken(kind)}`,
    ...toolClass(entry),
    ...(options.onPath ? ["on-path"] : []),
    ...(options.leaf ? ["leaf"] : []),
    ...(options.past ? ["past"] : []),
    ...(options.paired ? ["paired"] : [])
  ]
  const m = entry.type === "message" ? entry.message as Message : undefined
  const head = m !== undefined && m.role === "toolResult"
    ? `<span class="kind">${options.paired ? "result" : "toolResult"}</span> <b>${escape(String(m.toolName))}</b>${
      m.isError === true ? ` <span class="error-mark">error</span>` : ""
    }`
    : `<span class="kind">${escape(kind)}</span>`
  const shown = body(entry, options.results)
  const empty = shown === "" && entry.type === "message" ? `<p class="note">(no content)</p>` : ""
  return `<li class="${attribute(classes.join(" "))}"${
    options.anchor ? ` id="entry-${attribute(entry.id)}"` : ""
  } data-id="${attribute(entry.id)}">` +
    `<div class="head">${head} <code>${escape(entry.id)}</code> <time>${escape(entry.timestamp)}</time>` +
    (node.label === undefined ? "" : ` <span class="label">${escape(node.label)}</span>`) +
    (options.leaf ? ` <span class="leaf-mark">current leaf</span>` : "") +
    `</div>${entry.type === "message" ? "" : `<div class="line">${escape(metaLine(entry))}</div>`}${shown}${empty}</li>`
}
