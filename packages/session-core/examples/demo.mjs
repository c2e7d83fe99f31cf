// The quick start's demo, until the branchlog CLI lands: open a bundled session file (written by
// the reference implementation), and print what session-core makes of it: its info, its tree
// (labels shown, the current leaf marked) and the LLM context at the leaf.
// It runs the built package (`dist/`), the way a consumer imports it.
import { JsonView, LlmMessages, SessionContext, SessionState, Tree } from "@branchlog/session-core"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const file = process.argv[2] ?? fileURLToPath(new URL("./example-session.jsonl", import.meta.url))
const mintId = (taken) => {
  for (;;) {
    const id = randomUUID().slice(0, 8)
    if (!taken.has(id)) return id
  }
}
const { state, migrated } = SessionState.fromText(readFileSync(file, "utf8"), mintId)

const textOf = (message) => {
  const content = message.content ?? message.summary ?? ""
  const text = typeof content === "string"
    ? content
    : content.map((block) => block.text ?? block.thinking ?? (block.name ? `[${block.name}]` : `[${block.type}]`)).join(
      " "
    )
  return text.replace(/\s+/g, " ").slice(0, 72)
}

const info = JsonView.info(state)
console.log(`session ${info.id}${info.name ? ` "${info.name}"` : ""} (${file})`)
console.log(
  `  cwd ${info.cwd}, ${info.entries} entries, leaf ${info.leafId}${migrated ? ", migrated in memory" : ""}\n`
)

console.log("tree (a branch point indents its children; * marks the current path):")
const onPath = new Set(Tree.getBranch(state).map((entry) => entry.id))
const stack = Tree.getTree(state).map((node) => [node, 0]).reverse()
while (stack.length > 0) {
  const [node, indent] = stack.pop()
  const { entry } = node
  const what = entry.type === "message" ? `${entry.message.role}: ${textOf(entry.message)}` : entry.type
  const label = node.label ? ` [${node.label}]` : ""
  const leaf = entry.id === state.leafId ? "  <- leaf" : ""
  console.log(
    `${"  ".repeat(indent)}${onPath.has(entry.id) ? "*" : " "} ${entry.id} ${what}${label}${leaf}`.slice(0, 110)
  )
  const childIndent = node.children.length > 1 ? indent + 1 : indent
  for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], childIndent])
}

const context = SessionContext.buildSessionContext(state)
console.log(
  `\ncontext at the leaf: ${context.messages.length} messages, thinking ${context.thinkingLevel}, model ${
    context.model ? `${context.model.provider}/${context.model.modelId}` : "none"
  }`
)
for (const message of context.messages) console.log(`  ${message.role.padEnd(17)} ${textOf(message)}`)
console.log(`\nas sent to a model: ${LlmMessages.convertToLlm(context.messages).length} messages`)
