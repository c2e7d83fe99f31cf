/**
 * The ASCII tree of `branchlog tree`: branch points draw their children with `├─`/`└─`, a linear
 * run stays at one indentation, and long runs are folded (`⋮ 1234 entries`) so that a
 * 100k-entry tree stays readable. Branch points and the current leaf are never folded away; a
 * fold says how many labelled entries it holds. Iterative: a million-deep chain is fine. Branches
 * nested deeper than `maxDepth` stop indenting (their lines start with `«depth»`), so a session
 * with tens of thousands of nested branch points prints lines of bounded width.
 *
 * The tree is any {@link Shape} (a full state's `Tree.getTree`, or a sidecar index's outline), laid
 * out first ({@link plan}: which nodes are shown, where) and printed after ({@link print}), so that
 * an outline reads only the entries it shows. `depth` and `around` bound what is laid out.
 */
import { Tree } from "@branchlog/session-core"
import type { Entry, SessionState } from "@branchlog/session-core"
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
  /** Branch nesting printed at most this many levels; deeper branches are counted on one line (`--depth`). */
  readonly depth?: number
  /** Only the path from the root to this node, the branches off it (one line each) and its subtree (`--around`). */
  readonly around?: unknown
}

/** A tree to print: its roots, children in order, and what each node shows. */
export interface Shape<N> {
  readonly roots: ReadonlyArray<N>
  readonly children: (node: N) => ReadonlyArray<N>
  readonly parent: (node: N) => N | undefined
  readonly label: (node: N) => string | undefined
  readonly isLeaf: (node: N) => boolean
  readonly onPath: (node: N) => boolean
  /** How many children a node has (default: `children(node).length`), for shapes that can say it without a list. */
  readonly childCount?: (node: N) => number
  /** The first child of a node with children (default: `children(node)[0]`). */
  readonly firstChild?: (node: N) => N
}

/** One line of a plan: a node (its entry printed later) or a text. */
export type PlanLine<N> =
  | { readonly _tag: "Node"; readonly node: N; readonly prefix: string; readonly glyph: string }
  | { readonly _tag: "Text"; readonly text: string }

/** The columns a text takes on a terminal (its colour codes take none). */
const visible = (text: string): number => text.replace(/\u001b\[[0-9;]*m/g, "").length

/** `childCount` and `firstChild` of a shape, with their defaults. */
const childrenOf = <N>(shape: Shape<N>) => ({
  count: shape.childCount ?? ((node: N) => shape.children(node).length),
  first: shape.firstChild ?? ((node: N) => shape.children(node)[0]!)
})

/** The nodes below `node` (iterative; a linear run is walked without a list). */
const countBelow = <N>(shape: Shape<N>, node: N): number => {
  const { count: childCount, first } = childrenOf(shape)
  let count = 0
  const stack: Array<N> = [node]
  while (stack.length > 0) {
    let at: N = stack.pop()!
    for (;;) {
      const c = childCount(at)
      if (c === 0) break
      if (c === 1) {
        at = first(at)
        count += 1
        continue
      }
      for (const child of shape.children(at)) stack.push(child)
      count += c
      break
    }
  }
  return count
}

/** The layout of the tree: which nodes are shown, with their indentation, and the fold lines. */
export const plan = <N>(shape: Shape<N>, options: TreeTextOptions): Array<PlanLine<N>> => {
  const { style } = options
  const foldAfter = options.foldAfter ?? 12
  const maxDepth = options.maxDepth ?? 24
  const limit = options.depth ?? Infinity
  const lines: Array<PlanLine<N>> = []
  const show = (node: N, prefix: string, glyph: string) => lines.push({ _tag: "Node", node, prefix, glyph })
  const text = (t: string) => lines.push({ _tag: "Text", text: t })
  // --around: the nodes from the root to it (the rest is collapsed unless below it)
  const around = options.around as N | undefined
  const pathTo = new Set<N>()
  if (around !== undefined) {
    for (let n: N | undefined = around; n !== undefined && !pathTo.has(n); n = shape.parent(n)) pathTo.add(n)
  }
  const { count: childCount, first: firstChild } = childrenOf(shape)
  const keep = (node: N) => shape.isLeaf(node) || childCount(node) !== 1 || node === around
  type Item = { node: N; prefix: string; glyph: string; depth: number; inside: boolean }
  const stack: Array<Item> = []
  const roots = shape.roots
  for (let i = roots.length - 1; i >= 0; i--) {
    stack.push({
      node: roots[i]!,
      prefix: "",
      glyph: "",
      depth: 0,
      inside: around === undefined || roots[i] === around
    })
  }
  while (stack.length > 0) {
    const { depth, glyph, inside, node: first, prefix } = stack.pop()!
    const continuation = glyph === ""
      ? prefix
      : depth > maxDepth
      ? style.dim(`«${depth}» `)
      : prefix + (glyph.startsWith("└") ? "   " : "│  ")
    if (!inside && !pathTo.has(first)) {
      // --around: a branch off the path, one line and a count
      show(first, prefix, glyph)
      const below = countBelow(shape, first)
      if (below > 0) text(`${continuation}${style.dim(`  ⋮ ${below} more entries`)}`)
      continue
    }
    // the linear run from here: single-child nodes up to the next branch point or the leaf
    const run: Array<N> = [first]
    let last = first
    while (!keep(last)) {
      last = firstChild(last)
      run.push(last)
    }
    if (run.length > foldAfter) {
      show(run[0]!, prefix, glyph)
      for (const node of run.slice(1, 3)) show(node, continuation, "")
      let labelled = 0
      for (let i = 3; i < run.length - 2; i++) if (shape.label(run[i]!) !== undefined) labelled += 1
      text(
        `${continuation}${style.dim(`  ⋮ ${run.length - 5} entries${labelled === 0 ? "" : `, ${labelled} labelled`}`)}`
      )
      for (const node of run.slice(-2)) show(node, continuation, "")
    } else {
      run.forEach((node, i) => show(node, i === 0 ? prefix : continuation, i === 0 ? glyph : ""))
    }
    const below = inside || last === around
    const many = childCount(last)
    const children = many > 1 ? shape.children(last) : []
    if (many === 1) {
      stack.push({ node: firstChild(last), prefix: continuation, glyph: "", depth, inside: below })
    } else if (children.length > 1 && depth + 1 > limit) {
      let count = 0
      for (const child of children) count += 1 + countBelow(shape, child)
      text(
        `${continuation}${style.dim(`  ⋮ ${children.length} branches, ${count} entries deeper than --depth ${limit}`)}`
      )
    } else {
      const inner = depth + 1 > maxDepth ? style.dim(`«${depth + 1}» `) : continuation
      for (let i = children.length - 1; i >= 0; i--) {
        stack.push({
          node: children[i]!,
          prefix: inner,
          glyph: i === children.length - 1 ? "└─" : "├─",
          depth: depth + 1,
          inside: below
        })
      }
    }
  }
  return lines
}

/** The lines of a plan, each node's entry from `entryOf`. */
export const print = <N>(
  shape: Shape<N>,
  lines: ReadonlyArray<PlanLine<N>>,
  entryOf: (node: N) => Entry.Entry,
  options: TreeTextOptions
): Array<string> => {
  const { style } = options
  const width = options.width ?? 72
  return lines.map((line) => {
    if (line._tag === "Text") return line.text
    const { glyph, node, prefix } = line
    const entry = entryOf(node)
    const marker = shape.onPath(node) ? style.green("*") : " "
    const l = shape.label(node)
    const label = l === undefined ? "" : ` ${style.yellow(`[${l}]`)}`
    const leaf = shape.isLeaf(node) ? ` ${style.green("◀ leaf")}` : ""
    const head = `${prefix}${glyph}${marker} ${style.dim(entry.id)} `
    const room = options.columns === undefined
      ? width
      : Math.max(16, options.columns - visible(head) - visible(label) - visible(leaf))
    return `${head}${fit(entryLine(entry, room), room)}${label}${leaf}`
  })
}

/** The shape of a full state's tree (`Tree.getTree`). */
export const stateShape = (state: SessionState.SessionState): Shape<Tree.TreeNode> & {
  readonly find: (id: string) => Tree.TreeNode | undefined
} => {
  const roots = Tree.getTree(state)
  const onPath = new Set(Tree.getBranch(state).map((entry) => entry.id))
  let parents: Map<Tree.TreeNode, Tree.TreeNode> | undefined
  let byId: Map<string, Tree.TreeNode> | undefined
  const index = () => {
    if (parents !== undefined) return
    parents = new Map()
    byId = new Map()
    Tree.walk(roots, (node) => {
      if (!byId!.has(node.entry.id)) byId!.set(node.entry.id, node)
      for (const child of node.children) parents!.set(child, node)
    })
  }
  return {
    roots,
    children: (node) => node.children,
    parent: (node) => {
      index()
      return parents!.get(node)
    },
    label: (node) => node.label,
    isLeaf: (node) => node.entry.id === state.leafId,
    onPath: (node) => onPath.has(node.entry.id),
    find: (id) => {
      index()
      return byId!.get(id)
    }
  }
}

/** The lines of a full state's tree. */
export const render = (state: SessionState.SessionState, options: TreeTextOptions): Array<string> => {
  const shape = stateShape(state)
  return print(shape, plan(shape, options), (node) => node.entry, options)
}
