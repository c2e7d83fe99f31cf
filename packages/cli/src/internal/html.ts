/**
 * The self-contained HTML page of `branchlog export --html`: the whole tree, branches collapsible
 * (`<details>`; the current path open, the others closed), the current path highlighted, labels,
 * Markdown rendered (safely: `htmlMarkdown.ts`), thinking collapsed, each tool call with its result
 * under it (parallel calls too), images, compaction and branch summaries, and the history before a
 * compaction shown as the conversation's past, muted, in the main flow. A search box and a "hide
 * tools" filter. No script, font or style is fetched: the page works offline. Built iteratively;
 * nesting grows with branch points, not with entries.
 *
 * The session is untrusted input: every value from it is escaped, in text and in attributes alike
 * (class names are reduced to safe tokens), an image is shown only for an image type on a short
 * list with base64 data, and a Content-Security-Policy lets the page run only its own script and
 * style (by their SHA-256 hashes) and load images only from `data:` URLs. Control characters are
 * made visible, as on a terminal.
 */
import { Tree } from "@branchlog/session-core"
import type { SessionState } from "@branchlog/session-core"
import { contentSecurityPolicy, script, style } from "./htmlAssets.js"
import { entryHtml } from "./htmlEntry.js"
import { pastOf } from "./htmlPast.js"
import { escape } from "./htmlText.js"
import { ToolGroups } from "./htmlTools.js"
import { provenanceLine } from "./provenance.js"
import { entryLine } from "./summary.js"

/**
 * Past this many entries the page lays out only the entries near the screen (`content-visibility`):
 * a search or a filter over tens of thousands of entries then takes well under a second instead of
 * many; smaller pages are laid out whole (for printing and full-page pictures).
 */
const LARGE = 2000

/** The page for a session, in one string (small sessions; see {@link pieces}). */
export const render = (state: SessionState.SessionState, title: string): string => [...pieces(state, title)].join("")

/**
 * The page for a session, piece by piece in document order, built as it is consumed: a session of
 * a million entries makes a page larger than a string can hold, so the export writes the pieces
 * as they come.
 */
export function* pieces(state: SessionState.SessionState, title: string): Generator<string> {
  const branch = Tree.getBranch(state)
  const onPath = new Set(branch.map((entry) => entry.id))
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
  const past = pastOf(roots, branch, onPath)
  const anchored = new Set<string>()
  let pastMarked = false
  const groups = new ToolGroups((node, paired, results) => {
    const id = node.entry.id
    const isPast = past.nodes.has(node) || past.pathIds.has(id)
    // the mark goes before the first entry of the past in the flow (a result is shown inside its call)
    const mark = isPast && !pastMarked && !paired && past.pathIds.has(id)
      ? `<li class="past-mark">Before the compaction: summarised, no longer in the model's context</li>\n`
      : ""
    if (mark !== "") pastMarked = true
    const html = entryHtml(node, {
      onPath: onPath.has(id),
      leaf: id === state.leafId,
      anchor: !anchored.has(id),
      past: isPast,
      paired,
      results
    })
    anchored.add(id)
    return mark + html
  })
  // work items: a node to render (starting a linear run), or literal markup
  type Item = { readonly node: Tree.TreeNode } | { readonly close: string }
  const stack: Array<Item> = []
  const entries = (count: number) => `${count} ${count === 1 ? "entry" : "entries"}`
  const summary = (child: Tree.TreeNode) =>
    `${escape(child.entry.id)}: ${escape(entryLine(child.entry, 80))} (${entries(sizes.get(child)!)})`
  const pushBranches = (children: ReadonlyArray<Tree.TreeNode>) => {
    const items: Array<Item> = []
    // the conversation a compaction summarised, when it is a sibling of the compaction (an import
    // whose compaction does not link to it): in the flow, before the compaction, not a branch
    const before = children.filter((child) => past.roots.has(child))
    const rest = children.filter((child) => !past.roots.has(child))
    const inline = before.length > 0 ? rest.find((child) => onPath.has(child.entry.id)) : undefined
    for (const child of before) {
      items.push({
        close: `<li class="past-section"><div class="past-mark">Before the compaction: ${
          entries(sizes.get(child)!)
        } that it summarised, no longer in the model's context</div><ol class="run past">`
      })
      items.push({ node: child })
      items.push({ close: "</ol></li>" })
    }
    const branches = rest.filter((child) => child !== inline)
    if (branches.length > 0) {
      items.push({ close: `<li class="fork">` })
      for (const child of branches) {
        const open = onPath.has(child.entry.id)
        items.push({
          close: `<details class="branch${open ? " on-path" : ""}"${open ? " open" : ""}><summary>branch from ${
            summary(child)
          }</summary><ol class="run">`
        })
        items.push({ node: child })
        items.push({ close: "</ol></details>" })
      }
      items.push({ close: "</li>" })
    }
    if (inline !== undefined) items.push({ node: inline })
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!)
  }
  const count = state.entries.length
  const origin = provenanceLine(state.entries)
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>${style}</style><script>${script}</script></head>
<body${count > LARGE ? ` class="large"` : ""}><h1>${escape(title)}</h1>${
    origin === undefined ? "" : `\n<p class="meta provenance">${escape(origin)}</p>`
  }
<p class="meta">${count} entries · current leaf <code>${
    escape(state.leafId ?? "none")
  }</code> · the current path is marked in green; other branches are collapsed.</p>
<div class="toolbar"><input type="search" id="search" placeholder="Search this session" aria-label="Search this session">
<label><input type="checkbox" id="hide-tools"> hide tools</label>
<button type="button" data-branches="open">expand all branches</button>
<button type="button" data-branches="close">collapse all branches</button>
<span id="search-status" class="note"></span></div>
<main><ol class="run">`
  stack.push({ close: "</ol></main>" })
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
      for (const html of groups.push(node)) yield "\n" + html
      if (node.children.length !== 1) break
      node = node.children[0]!
    }
    for (const html of groups.flush()) yield "\n" + html
    if (node.children.length > 1) pushBranches(node.children)
  }
  yield "\n</body></html>\n"
}
