/**
 * The Markdown of `branchlog export --md`: the conversation on the current branch.
 *
 * Nothing from the session is interpreted by a Markdown renderer: names, roles, ids, tool names
 * and the other one-line values are escaped text (or code spans), and what messages, tool calls,
 * results and summaries say is in fenced blocks that their own text cannot close. So a session's
 * HTML never reaches a renderer as HTML, its links are not links, and its headings and fences do
 * not change the document's structure. Control characters are made visible, as on a terminal.
 */
import type { Entry } from "@branchlog/session-core"
import { provenanceLine } from "./provenance.js"
import { visible } from "./safeText.js"
import { type Block, contentText, entryLine } from "./summary.js"

/** The longest run of `char` in `text`. */
const longestRun = (text: string, char: string): number => {
  let longest = 0
  let run = 0
  for (let i = 0; i < text.length; i++) {
    run = text[i] === char ? run + 1 : 0
    if (run > longest) longest = run
  }
  return longest
}

/** A fenced block that `text` cannot close: its fence is longer than any run of backticks in it. */
const fence = (text: string, lang = "") => {
  const ticks = "`".repeat(Math.max(3, longestRun(text, "`") + 1))
  return `${ticks}${lang}\n${text}\n${ticks}`
}

/** ASCII punctuation: what CommonMark lets a backslash escape (and what it, GFM and HTML interpret). */
const punctuation = /[!-/:-@[-`{-~]/g

/**
 * One line of text that a renderer shows as it is: white space (line breaks too) folded to one
 * space, `<`, `>` and `&` as entities, every other ASCII punctuation backslash-escaped.
 */
export const inline = (text: unknown): string =>
  String(text).replace(/\s+/g, " ").trim().replace(
    punctuation,
    (char) => char === "<" ? "&lt;" : char === ">" ? "&gt;" : char === "&" ? "&amp;" : `\\${char}`
  )

/** A code span that `text` cannot close (one line; HTML and entities are not interpreted inside). */
export const code = (text: unknown): string => {
  const flat = String(text).replace(/\s+/g, " ")
  const ticks = "`".repeat(longestRun(flat, "`") + 1)
  // a space on each side (which the renderer drops) keeps a backtick at either end out of the delimiter
  const pad = flat.startsWith("`") || flat.endsWith("`") || (flat.startsWith(" ") && flat.endsWith(" ")) ? " " : ""
  return `${ticks}${pad}${flat}${pad}${ticks}`
}

const section = (entry: Entry.Entry): string => {
  if (entry.type !== "message") {
    const text = entry.type === "compaction" || entry.type === "branch_summary"
      ? `\n\n${fence(entry.summary)}`
      : entry.type === "custom_message"
      ? `\n\n${fence(contentText(entry.content))}`
      : ""
    return `### ${inline(entryLine(entry, 120).split(":")[0])} ${code(entry.id)}${text}`
  }
  const m = entry.message as Record<string, unknown>
  const heading = `### ${inline(m.role)} ${code(entry.id)} · ${inline(entry.timestamp)}`
  if (m.role === "bashExecution") return `${heading}\n\n${fence(`$ ${String(m.command)}\n${String(m.output)}`, "sh")}`
  if (m.role === "toolResult") {
    return `${heading} · ${inline(m.toolName)}${m.isError === true ? " (error)" : ""}\n\n${
      fence(contentText(m.content))
    }`
  }
  if (!Array.isArray(m.content)) return `${heading}\n\n${fence(contentText(m.content))}`
  const parts = (m.content as ReadonlyArray<Block>).map((block) => {
    if (block.type === "text") return fence(String(block.text ?? ""))
    if (block.type === "thinking") return `*thinking:*\n\n${fence(String(block.thinking ?? ""))}`
    if (block.type === "toolCall") {
      return `**tool call ${inline(block.name)}**\n\n${fence(JSON.stringify(block.arguments ?? {}, null, 2), "json")}`
    }
    return "\\[image\\]"
  })
  return `${heading}\n\n${parts.join("\n\n")}`
}

/** The Markdown of a branch (root first). */
export const render = (title: string, branch: ReadonlyArray<Entry.Entry>): string => {
  const origin = provenanceLine(branch)
  return visible(
    `# ${inline(title)}\n\n${
      origin === undefined ? "" : `${inline(origin)}\n\n`
    }${branch.length} entries on the current branch.\n\n${branch.map(section).join("\n\n")}\n`
  )
}
