/**
 * The ASCII tree of `branchlog tree`: branch points draw their children with `├─`/`└─`, a linear
 * run stays at one indentation, and long runs are folded (`⋮ 1234 entries`) so that a
 * 100k-entry tree stays readable. Branch points and the current leaf are never folded away; a
 * fold says how many labelled entries it holds. Iterative: a million-deep chain is fine. Branches
 * nested deeper than `maxDepth` stop indenting (their lines start with `«depth»`), so a session
 * with tens of thousands of nested branch points prints lines of bounded width.
 */
import { Tree } from "@branchlog/session-core"
import type { SessionState } from "@branchlog/session-core"
import type { Style } from "./style.js"
import { entryLine } from "./summary.js"
import { fit } from "./width.js"

/** Options of the rendering. */
export interface TreeTextOptions {
  readonly style: Style
  /** Runs longer than this are folded (default 12). */
  readonly foldAfter?: number
  /** Width of each entry's text (default 72), when `columns` is not given. */
  readonly width?: number
  /** The width of a whole line: each entry's text gets what its indentation, id, label and leaf mark leave (at least 16). */
  readonly columns?: number
  /** Branch nesting drawn with indentation; deeper levels are numbered instead (default 24). */
  readonly maxDepth?: number
}

/** The columns a text takes on a terminal (its colour codes take none). */

const visible = (text: string): number => text.replace(/\u001b\[[0-9;]*m/g, "").length

type Item = {
  readonly node: Tree.TreeNode
  readonly prefix: string
  readonly glyph: string
  readonly depth: number
}

/** The lines of the tree. */
export const render = (state: SessionState.SessionState, options: TreeTextOptions): Array<string> => {
  const { style } = options
  const foldAfter = options.foldAfter ?? 12
  const width = options.width ?? 72
  const maxDepth = options.maxDepth ?? 24
  const onPath = new Set(Tree.getBranch(state).map((entry) => entry.id))
  const lines: Array<string> = []
  const show = (node: Tree.TreeNode, prefix: string, glyph: string) => {
    const id = node.entry.id
    const marker = onPath.has(id) ? style.green("*") : " "
    const label = node.label === undefined ? "" : ` ${style.yellow(`[${node.label}]`)}`
    const leaf = id === state.leafId ? ` ${style.green("◀ leaf")}` : ""
    const head = `${prefix}${glyph}${marker} ${style.dim(id)} `
    const room = options.columns === undefined
      ? width
      : Math.max(16, options.columns - visible(head) - visible(label) - visible(leaf))
    lines.push(`${head}${fit(entryLine(node.entry, room), room)}${label}${leaf}`)
  }
  const keep = (node: Tree.TreeNode) => node.entry.id === state.leafId || node.children.length !== 1
  const roots = Tree.getTree(state)
  const stack: Array<Item> = []
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i]!, prefix: "", glyph: "", depth: 0 })
  while (stack.length > 0) {
    const { depth, glyph, node: first, prefix } = stack.pop()!
    // the linear run from here: single-child nodes up to the next branch point or the leaf
    const run: Array<Tree.TreeNode> = [first]
    let last = first
    while (last.children.length === 1 && !keep(last)) {
      last = last.children[0]!
      run.push(last)
    }
    const continuation = glyph === ""
      ? prefix
      : depth > maxDepth
      ? style.dim(`«${depth}» `)
      : prefix + (glyph.startsWith("└") ? "   " : "│  ")
    if (run.length > foldAfter) {
      show(run[0]!, prefix, glyph)
      for (const node of run.slice(1, 3)) show(node, continuation, "")
      const labelled = run.slice(3, -2).filter((node) => node.label !== undefined).length
      lines.push(
        `${continuation}${style.dim(`  ⋮ ${run.length - 5} entries${labelled === 0 ? "" : `, ${labelled} labelled`}`)}`
      )
      for (const node of run.slice(-2)) show(node, continuation, "")
    } else {
      run.forEach((node, i) => show(node, i === 0 ? prefix : continuation, i === 0 ? glyph : ""))
    }
    const children = last.children
    if (children.length === 1) stack.push({ node: children[0]!, prefix: continuation, glyph: "", depth })
    else {
      const inner = depth + 1 > maxDepth ? style.dim(`«${depth + 1}» `) : continuation
      for (let i = children.length - 1; i >= 0; i--) {
        stack.push({
          node: children[i]!,
          prefix: inner,
          glyph: i === children.length - 1 ? "└─" : "├─",
          depth: depth + 1
        })
      }
    }
  }
  return lines
}
