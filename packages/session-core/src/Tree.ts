/**
 * Tree queries over a {@link SessionState}: parents, children, one branch, the whole tree,
 * labels, the session name. All are total (orphans, cycles, duplicate ids and dangling labels
 * never throw and never hang) and iterative (no recursion whose depth grows with the tree).
 *
 * Parents are the *logical* ones, as OpenClaw exposes them: OpenClaw's re-parenting rule first,
 * else the written `parentId` resolved through opaque rows and leaf controls to the nearest
 * canonical entry. A parent that is unknown, the entry itself, or a chain that loops makes the
 * entry a root. For a duplicate id the last row in file order is the entry; in `getTree` its node
 * hangs under the parent of every row that carries the id, as in both references.
 *
 * @since 0.1.0
 */
import type { CompactionEntry, Entry } from "./Entry.js"
import * as internal from "./internal/state.js"
import type * as SessionState from "./SessionState.js"

const mutable = (state: SessionState.SessionState): internal.MutableState => state as internal.MutableState

/** The logical parent of an entry (see the module docs); `null` for a root. */
export const parentOf = (state: SessionState.SessionState, entry: Entry): string | null =>
  internal.parentIdOf(mutable(state), entry)

/** Children as linked lists over entry positions, in file order; -1 ends a list. */
interface ChildIndex {
  shape: number
  count: number
  readonly first: Array<number>
  readonly last: Array<number>
  readonly next: Array<number>
  rootsFirst: number
  rootsLast: number
}

const childIndexes = new WeakMap<SessionState.SessionState, ChildIndex>()

const emptyIndex = (shape: number): ChildIndex => ({
  shape,
  count: 0,
  first: [],
  last: [],
  next: [],
  rootsFirst: -1,
  rootsLast: -1
})

/** The child index, built once and then extended as entries are applied. O(new entries). */
const childIndex = (state: SessionState.SessionState): ChildIndex => {
  const s = mutable(state)
  internal.settleParents(s)
  let index = childIndexes.get(state)
  if (index === undefined || index.shape !== s.shape) {
    index = emptyIndex(s.shape)
    childIndexes.set(state, index)
  }
  extendIndex(s, index, (i) => internal.isCurrent(s, i))
  return index
}

/** Links the rows applied since `index.count` (those `include` accepts) under their parents. */
const extendIndex = (s: internal.MutableState, index: ChildIndex, include: (row: number) => boolean): void => {
  const { entries, parents } = s
  for (let i = index.count; i < entries.length; i++) {
    index.first.push(-1)
    index.last.push(-1)
    index.next.push(-1)
  }
  for (let i = index.count; i < entries.length; i++) {
    if (!include(i)) continue
    const parent = parents.get(i)
    if (parent === -1) {
      if (index.rootsLast === -1) index.rootsFirst = i
      else index.next[index.rootsLast] = i
      index.rootsLast = i
    } else {
      if (index.last[parent] === -1) index.first[parent] = i
      else index.next[index.last[parent]!] = i
      index.last[parent] = i
    }
  }
  index.count = entries.length
}

const childPositions = (index: ChildIndex, parent: number): Array<number> => {
  const out: Array<number> = []
  for (let i = parent === -1 ? index.rootsFirst : index.first[parent]!; i !== -1; i = index.next[i]!) out.push(i)
  return out
}

/** The entry with this id (for a duplicate id, the last one in file order). */
export const getEntry = (state: SessionState.SessionState, id: string): Entry | undefined => state.byId.get(id)

/** The entry at the visible leaf, if any. */
export const getLeafEntry = (state: SessionState.SessionState): Entry | undefined =>
  state.leafId === null ? undefined : state.byId.get(state.leafId)

/** The children of an entry (`null`: the roots), in file order. */
export const getChildren = (state: SessionState.SessionState, parentId: string | null): Array<Entry> => {
  const s = mutable(state)
  const parent = parentId === null ? -1 : s.positions.get(parentId)
  if (parent === undefined) return []
  return childPositions(childIndex(state), parent).map((i) => s.entries[i]!)
}

/** The label of an entry, if one is set. */
export const getLabel = (state: SessionState.SessionState, id: string): string | undefined =>
  state.labels.get(id)?.label

/**
 * The path from the root to `fromId` (default: the visible leaf), root first. `[]` for `null` or
 * an unknown id; an id of an opaque row starts at its canonical ancestor. Stops at a missing
 * parent (orphan) or where a cycle closes. O(path length).
 */
export const getBranch = (state: SessionState.SessionState, fromId?: string | null): Array<Entry> => {
  const s = mutable(state)
  const start = internal.resolveCanonical(s, fromId === undefined ? s.leafId : fromId)
  if (start === null) return []
  internal.settleParents(s)
  const { entries, parents } = s
  const positions: Array<number> = []
  const limit = s.positions.size
  for (let i = s.positions.get(start)!; i !== -1; i = parents.get(i)) {
    positions.push(i)
    if (positions.length > limit) return pathBeforeCycle(s, positions)
  }
  const path = new Array<Entry>(positions.length)
  for (let k = 0; k < positions.length; k++) path[positions.length - 1 - k] = entries[positions[k]!]!
  return path
}

/** A walk that went longer than there are entries has looped: keep it up to the first repeat. */
const pathBeforeCycle = (s: internal.MutableState, positions: ReadonlyArray<number>): Array<Entry> => {
  const seen = new Set<number>()
  const path: Array<Entry> = []
  for (const i of positions) {
    if (seen.has(i)) break
    seen.add(i)
    path.push(s.entries[i]!)
  }
  return path.reverse()
}

/** One node of {@link getTree}. */
export interface TreeNode {
  readonly entry: Entry
  /** The logical parent id; `null` for a root (a missing parent makes a root). */
  readonly parentId: string | null
  readonly children: Array<TreeNode>
  readonly label?: string
  readonly labelTimestamp?: string
}

/**
 * The whole forest: roots in file order, each node's children sorted by ascending
 * `Date.parse(timestamp)` (stable: equal times keep file order; offsets compare as instants).
 * Entries caught in a parent cycle appear nowhere. A duplicated id's node appears once per row
 * that carries the id, as in both references (see `treeWithDuplicates`). Iterative; O(n log n)
 * without duplicates.
 */
export const getTree = (state: SessionState.SessionState): Array<TreeNode> => {
  const s = mutable(state)
  if (s.duplicateIds.size > 0) return treeWithDuplicates(s)
  const index = childIndex(state)
  const roots = childPositions(index, -1).map((i) => makeNode(s, i, null))
  const stack: Array<[TreeNode, number]> = roots.map((root) => [root, s.positions.get(root.entry.id)!])
  while (stack.length > 0) {
    const [parent, position] = stack.pop()!
    const first = index.first[position]!
    if (first === -1) continue
    if (index.next[first] === -1) {
      const child = makeNode(s, first, parent.entry.id)
      parent.children.push(child)
      stack.push([child, first])
      continue
    }
    const children = childPositions(index, position).map((i): [TreeNode, number, number] => [
      makeNode(s, i, parent.entry.id),
      i,
      new Date(s.entries[i]!.timestamp).getTime()
    ])
    children.sort((a, b) => a[2] - b[2])
    for (const [child, i] of children) {
      parent.children.push(child)
      stack.push([child, i])
    }
  }
  return roots
}

const makeNode = (s: internal.MutableState, i: number, parentId: string | null): TreeNode => {
  const entry = s.entries[i]!
  const label = s.labels.size > 0 ? s.labels.get(entry.id) : undefined
  return label === undefined
    ? { entry, parentId, children: [] }
    : { entry, parentId, children: [], label: label.label, labelTimestamp: label.timestamp }
}

/**
 * The forest of a state with duplicate ids, as both references build it: one node per id (its
 * last row), attached once per ROW under that row's parent, so a duplicated row shows its node
 * (and the subtree below it) again, possibly under another parent. Where the references would
 * loop forever (a node attached under its own descendant) the closing edge is left out; where
 * repeats would multiply without bound, a repeat beyond `4 × rows` nodes (at least 100k more
 * than the rows) is shown without its children.
 */
const treeWithDuplicates = (s: internal.MutableState): Array<TreeNode> => {
  internal.settleParents(s)
  const { entries } = s
  const n = entries.length
  // children of each position, one slot per ROW (earlier duplicates too), in file order
  const index = emptyIndex(s.shape)
  extendIndex(s, index, () => true)
  const { first, next } = index
  const rootRows = childPositions(index, -1)
  const current = (row: number): number => s.positions.get(entries[row]!.id)!
  const budget = Math.max(4 * n, n + 100_000)
  let made = 0
  const make = (position: number, parentId: string | null): TreeNode => {
    made += 1
    return makeNode(s, position, parentId)
  }
  const roots = rootRows.map((row) => make(current(row), null))
  const expanded = new Set<number>()
  const onPath = new Set<number>()
  // frames: a node to expand, or (node undefined) the end of a position's subtree
  const stack: Array<readonly [TreeNode | undefined, number]> = []
  for (let k = roots.length - 1; k >= 0; k--) stack.push([roots[k]!, current(rootRows[k]!)])
  while (stack.length > 0) {
    const [parent, position] = stack.pop()!
    if (parent === undefined) {
      onPath.delete(position)
      continue
    }
    if (made > budget && expanded.has(position)) continue
    expanded.add(position)
    onPath.add(position)
    stack.push([undefined, position])
    const children: Array<readonly [number, number]> = []
    for (let row = first[position]!; row !== -1; row = next[row]!) {
      const child = current(row)
      if (!onPath.has(child)) children.push([child, new Date(entries[child]!.timestamp).getTime()])
    }
    children.sort((a, b) => a[1] - b[1])
    for (const [child] of children) parent.children.push(make(child, parent.entry.id))
    for (let k = children.length - 1; k >= 0; k--) stack.push([parent.children[k]!, children[k]![0]])
  }
  return roots
}

/**
 * Pre-order walk of a forest without recursion: `visit` sees each node with its depth.
 * A million-deep chain is fine.
 */
export const walk = (roots: ReadonlyArray<TreeNode>, visit: (node: TreeNode, depth: number) => void): void => {
  const stack: Array<[TreeNode, number]> = []
  for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i]!, 0])
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    visit(node, depth)
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i]!, depth + 1])
  }
}

/**
 * The session name: the latest `session_info` entry in file order, on any branch, trimmed.
 * An empty name clears it (OpenClaw: no fallback to an older name).
 */
export const getSessionName = (state: SessionState.SessionState): string | undefined => {
  const name = state.latestSessionInfo?.name
  const trimmed = typeof name === "string" ? name.trim() : ""
  return trimmed === "" ? undefined : trimmed
}

/** The last `compaction` entry in file order, on any branch (pi's `getLatestCompactionEntry`). */
export const getLatestCompaction = (state: SessionState.SessionState): CompactionEntry | undefined => {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const entry = state.entries[i]!
    if (entry.type === "compaction") return entry
  }
  return undefined
}
