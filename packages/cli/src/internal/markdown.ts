/** The Markdown of `branchlog export --md`: the conversation on the current branch. */
import type { Entry } from "@branchlog/session-core"
import { type Block, contentText, entryLine } from "./summary.js"

const fence = (text: string, lang = "") => {
  const ticks = text.includes("```") ? "````" : "```"
  return `${ticks}${lang}\n${text}\n${ticks}`
}

const section = (entry: Entry.Entry): string => {
  if (entry.type !== "message") {
    const text = entry.type === "compaction" || entry.type === "branch_summary"
      ? `\n\n${entry.summary}`
      : entry.type === "custom_message"
      ? `\n\n${contentText(entry.content)}`
      : ""
    return `### ${entryLine(entry, 120).split(":")[0]} \`${entry.id}\`${text}`
  }
  const m = entry.message as Record<string, unknown>
  const heading = `### ${String(m.role)} \`${entry.id}\` · ${entry.timestamp}`
  if (m.role === "bashExecution") return `${heading}\n\n${fence(`$ ${String(m.command)}\n${String(m.output)}`, "sh")}`
  if (m.role === "toolResult") {
    return `${heading} · ${String(m.toolName)}${m.isError === true ? " (error)" : ""}\n\n${
      fence(contentText(m.content))
    }`
  }
  if (!Array.isArray(m.content)) return `${heading}\n\n${contentText(m.content)}`
  const parts = (m.content as ReadonlyArray<Block>).map((block) => {
    if (block.type === "text") return block.text ?? ""
    if (block.type === "thinking") return `> *thinking:* ${(block.thinking ?? "").replace(/\n/g, "\n> ")}`
    if (block.type === "toolCall") {
      return `**tool call ${block.name}**\n\n${fence(JSON.stringify(block.arguments ?? {}, null, 2), "json")}`
    }
    return "[image]"
  })
  return `${heading}\n\n${parts.join("\n\n")}`
}

/** The Markdown of a branch (root first). */
export const render = (title: string, branch: ReadonlyArray<Entry.Entry>): string =>
  `# ${title}\n\n${branch.length} entries on the current branch.\n\n${branch.map(section).join("\n\n")}\n`
