/**
 * The self-contained HTML page of `branchlog export --html`: the whole tree, branches collapsible
 * (`<details>`; the current path open, the others closed), the current path highlighted, labels,
 * tool calls and results, images, compaction and branch summaries. No script, font or style is
 * fetched: the page works offline. Built iteratively; nesting grows with branch points, not with
 * entries.
 *
 * The session is untrusted input: every value from it is escaped, in text and in attributes alike
 * (class names are reduced to safe tokens), an image is shown only for an image type on a short
 * list with base64 data, and a Content-Security-Policy lets the page run only its own script and
 * style (by their SHA-256 hashes) and load images only from `data:` URLs. Control characters are
 * made visible, as on a terminal.
 */
import { Tree } from "@branchlog/session-core"
import type { Entry, SessionState } from "@branchlog/session-core"
import { createHash } from "node:crypto"
import { provenanceLine } from "./provenance.js"
import { visible } from "./safeText.js"
import { type Block, contentText, entryLine } from "./summary.js"

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** An attribute value, escaped (anything: a hostile file can put a number where a string belongs). */
const attribute = (value: unknown): string => String(value).replace(/[&<>"']/g, (char) => entities[char]!)

/** Text, escaped, its control characters made visible. */
const escape = (value: unknown): string => attribute(visible(String(value)))

/** A class name made of `value`: letters, digits, `-` and `_` only (so it cannot add classes). */
const classToken = (value: unknown): string => String(value).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)

const pre = (
  text: string,
  cls = ""
) => (text === "" ? "" : `<pre${cls === "" ? "" : ` class="${cls}"`}>${escape(text)}</pre>`)

/** The image types shown inline (as `data:` URLs); SVG is not one of them. */
const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"])

const base64 = /^[A-Za-z0-9+/]+={0,2}$/

/** An image block: shown when its type is on the list and its data is base64, else named. */
const image = (block: { readonly data?: unknown; readonly mimeType?: unknown }): string =>
  typeof block.mimeType === "string" && imageTypes.has(block.mimeType) && typeof block.data === "string" &&
    base64.test(block.data)
    ? `<div class="image"><img alt="image (${block.mimeType})" src="data:${block.mimeType};base64,${block.data}"></div>`
    : `<div class="image">[image${block.mimeType === undefined ? "" : ` ${escape(block.mimeType)}`}]</div>`

/** The body of one entry: its text, thinking, tool calls, results, summaries. */
const body = (entry: Entry.Entry): string => {
  switch (entry.type) {
    case "message": {
      const m = entry.message as Record<string, unknown>
      if (m.role === "bashExecution") return pre(`$ ${String(m.command)}\n${String(m.output)}`, "tool")
      if (!Array.isArray(m.content)) return pre(contentText(m.content))
      return (m.content as ReadonlyArray<Block>).map((block) => {
        if (block.type === "text") return pre(block.text ?? "")
        if (block.type === "thinking") {
          return `<details class="thinking"><summary>thinking</summary>${pre(block.thinking ?? "")}</details>`
        }
        if (block.type === "toolCall") {
          return `<div class="tool-call">tool call <b>${escape(String(block.name))}</b>${
            pre(JSON.stringify(block.arguments ?? {}, null, 2), "tool")
          }</div>`
        }
        if (block.type === "image") return image(block as { readonly data?: unknown; readonly mimeType?: unknown })
        return ""
      }).join("")
    }
    case "compaction":
    case "branch_summary":
      return pre(entry.summary, "summary")
    case "custom_message":
      return pre(contentText(entry.content))
    case "custom":
      return entry.data === undefined ? "" : pre(JSON.stringify(entry.data, null, 2), "tool")
    default:
      return ""
  }
}

const kindOf = (entry: Entry.Entry): string =>
  entry.type === "message" ? String((entry.message as { role: unknown }).role) : entry.type

/** One entry; `anchor` gives it its `id` attribute (only the first time a duplicated id is shown). */
const entryHtml = (
  node: Tree.TreeNode,
  onPath: ReadonlySet<string>,
  leafId: string | null,
  anchor: boolean
): string => {
  const { entry } = node
  const classes = [
    "entry",
    `kind-${classToken(kindOf(entry))}`,
    ...(onPath.has(entry.id) ? ["on-path"] : []),
    ...(entry.id === leafId ? ["leaf"] : [])
  ]
  return `<li class="${attribute(classes.join(" "))}"${anchor ? ` id="entry-${attribute(entry.id)}"` : ""} data-id="${
    attribute(entry.id)
  }">` +
    `<div class="head"><span class="kind">${escape(kindOf(entry))}</span> <code>${escape(entry.id)}</code> <time>${
      escape(entry.timestamp)
    }</time>` +
    (node.label === undefined ? "" : ` <span class="label">${escape(node.label)}</span>`) +
    (entry.id === leafId ? ` <span class="leaf-mark">current leaf</span>` : "") +
    `</div>${entry.type === "message" ? "" : `<div class="line">${escape(entryLine(entry, 200))}</div>`}${
      body(entry)
    }</li>`
}

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;background:#fafafa}
h1{font-size:1.3em} ol{list-style:none;padding-left:0;margin:0} .fork{padding-left:1.2em;border-left:2px solid #ddd;margin:.3em 0}
.entry{background:#fff;border:1px solid #e3e3e3;border-radius:6px;margin:.35em 0;padding:.4em .7em}
.entry.on-path{border-color:#2a7a2a;box-shadow:inset 4px 0 0 #2a7a2a}
.entry.leaf{background:#f0fff0}
.head{color:#555;font-size:.9em} .kind{font-weight:600;color:#222} time{color:#888}
.label{background:#ffe58a;border-radius:4px;padding:0 .4em} .leaf-mark{background:#2a7a2a;color:#fff;border-radius:4px;padding:0 .4em}
pre{white-space:pre-wrap;word-break:break-word;margin:.3em 0;font:13px/1.4 ui-monospace,monospace}
pre.tool{background:#f4f4f8;padding:.4em} pre.summary{background:#fff8e6;padding:.4em}
.tool-call{margin:.3em 0} details>summary{cursor:pointer;color:#335} .branch>summary{font-weight:600}
.branch.on-path>summary{color:#2a7a2a}
.image img{max-width:100%;max-height:30em;border:1px solid #e3e3e3}
`

/** The page's own script: the buttons that open or close every branch (it reads nothing from the session). */
const script = `
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-branches]") : null
  if (button === null) return
  const open = button.getAttribute("data-branches") === "open"
  for (const details of document.querySelectorAll("details.branch")) details.open = open
})
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/**
 * The page's Content-Security-Policy: nothing is loaded or run but the page's own style and script
 * (by hash: no inline handler, no injected element runs), images only from `data:` URLs, no
 * plugins, no `<base>`, no form posts.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "img-src data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'"
].join("; ")

/** The page for a session, in one string (small sessions; see {@link pieces}). */
export const render = (state: SessionState.SessionState, title: string): string => [...pieces(state, title)].join("")

/**
 * The page for a session, piece by piece in document order, built as it is consumed: a session of
 * a million entries makes a page larger than a string can hold, so the export writes the pieces
 * as they come.
 */
export function* pieces(state: SessionState.SessionState, title: string): Generator<string> {
  const onPath = new Set(Tree.getBranch(state).map((entry) => entry.id))
  const roots = Tree.getTree(state)
  // subtree sizes in one pass: children come after their parent in pre-order
  const order: Array<Tree.TreeNode> = []
  Tree.walk(roots, (node) => order.push(node))
  // by node, not id: a duplicated id is shown once per row that carries it (as the references do)
  const sizes = new Map<Tree.TreeNode, number>()
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!
    let size = 1
    for (const child of node.children) size += sizes.get(child)!
    sizes.set(node, size)
  }
  order.length = 0
  const anchored = new Set<string>()
  // work items: a node to render (starting a linear run), or literal markup
  type Item = { readonly node: Tree.TreeNode } | { readonly close: string }
  const stack: Array<Item> = []
  const pushBranches = (children: ReadonlyArray<Tree.TreeNode>) => {
    const items: Array<Item> = [{ close: `<li class="fork">` }]
    for (const child of children) {
      const count = sizes.get(child)!
      const open = onPath.has(child.entry.id)
      items.push({
        close: `<details class="branch${open ? " on-path" : ""}"${open ? " open" : ""}><summary>branch from ${
          escape(child.entry.id)
        }: ${escape(entryLine(child.entry, 80))} (${count} ${
          count === 1 ? "entry" : "entries"
        })</summary><ol class="run">`
      })
      items.push({ node: child })
      items.push({ close: "</ol></details>" })
    }
    items.push({ close: "</li>" })
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!)
  }
  const count = state.entries.length
  const origin = provenanceLine(state.entries)
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>${style}</style><script>${script}</script></head>
<body><h1>${escape(title)}</h1>${origin === undefined ? "" : `\n<p class="meta provenance">${escape(origin)}</p>`}
<p class="meta">${count} entries · current leaf <code>${
    escape(state.leafId ?? "none")
  }</code> · the current path is marked in green; other branches are collapsed.
<button type="button" data-branches="open">expand all branches</button>
<button type="button" data-branches="close">collapse all branches</button></p>
<ol class="run">`
  stack.push({ close: "</ol>" })
  if (roots.length > 1) pushBranches(roots)
  else if (roots.length === 1) stack.push({ node: roots[0]! })
  while (stack.length > 0) {
    const item = stack.pop()!
    if ("close" in item) {
      yield "\n" + item.close
      continue
    }
    let node = item.node
    for (;;) {
      yield "\n" + entryHtml(node, onPath, state.leafId, !anchored.has(node.entry.id))
      anchored.add(node.entry.id)
      if (node.children.length !== 1) break
      node = node.children[0]!
    }
    if (node.children.length > 1) pushBranches(node.children)
  }
  yield "\n</body></html>\n"
}
