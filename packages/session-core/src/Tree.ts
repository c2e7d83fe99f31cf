/**
 * Tree queries over a {@link SessionState}: parents, children, one branch, the whole tree,
 * labels, the session name. All are total (orphans, cycles, duplicate ids and dangling labels
 * never throw and never hang) and iterative (no recursion whose depth grows with the tree).
 *
 * Parents are the *logical* ones, as OpenClaw exposes them: OpenClaw's re-parenting rule first,
 * else the written `parentId` resolved through opaque rows and leaf controls to the nearest
 * canonical entry. A parent that is unknown, or a chain that loops, makes the entry a root.
 * For a duplicate id the last row in file order is the node.
 *
 * @since 0.1.0
 */
import type { CompactionEntry, Entry, SessionInfoEntry } from "./Entry.js"
import * as SessionState from "./SessionState.js"

/** The logical parent of an entry (see the module docs); `null` for a root. */
export const parentOf = (state: SessionState.SessionState, entry: Entry): string | null => {
  const logical = state.logicalParents.get(entry.id)
  if (logical !== undefined) return logical
  if (state.logicalParents.has(entry.id)) return null
  return SessionState.resolveCanonical(state, (entry as { readonly parentId?: string | null }).parentId)
}

interface TreeIndex {
  revision: number
  processed: number
  readonly parents: Map<string, string | null>
  readonly children: Map<string | null, Array<string>>
}

const indexes = new WeakMap<SessionState.SessionState, TreeIndex>()

/** The parent and children index, built once and then extended as rows are applied. */
const treeIndex = (state: SessionState.SessionState): TreeIndex => {
  let index = indexes.get(state)
  if (index === undefined || SessionState.reshapedAt(state) > index.revision) {
    index = { revision: 0, processed: 0, parents: new Map(), children: new Map() }
    indexes.set(state, index)
  }
  if (index.revision === state.revision) return index
  const entries = state.entries
  for (let i = index.processed; i < entries.length; i++) {
    const entry = entries[i]!
    if (state.byId.get(entry.id) !== entry) continue
    let parent = parentOf(state, entry)
    if (parent === entry.id) parent = null
    index.parents.set(entry.id, parent)
    const siblings = index.children.get(parent)
    if (siblings === undefined) index.children.set(parent, [entry.id])
    else siblings.push(entry.id)
  }
  index.processed = entries.length
  index.revision = state.revision
  return index
}

/** The entry with this id (for a duplicate id, the last one in file order). */
export const getEntry = (state: SessionState.SessionState, id: string): Entry | undefined => state.byId.get(id)

/** The entry at the visible leaf, if any. */
export const getLeafEntry = (state: SessionState.SessionState): Entry | undefined =>
  state.leafId === null ? undefined : state.byId.get(state.leafId)

/** The children of an entry (`null`: the roots), in file order. */
export const getChildren = (state: SessionState.SessionState, parentId: string | null): ReadonlyArray<Entry> =>
  (treeIndex(state).children.get(parentId) ?? []).map((id) => state.byId.get(id)!)

/** The label of an entry, if one is set. */
export const getLabel = (state: SessionState.SessionState, id: string): string | undefined => state.labels.get(id)?.label

/**
 * The path from the root to `fromId` (default: the visible leaf), root first. `[]` for `null` or
 * an unknown id; an id of an opaque row starts at its canonical ancestor. Stops at a missing
 * parent (orphan) or where a cycle closes. O(path length).
 */
export const getBranch = (state: SessionState.SessionState, fromId?: string | null): Array<Entry> => {
  const start = fromId === undefined ? state.leafId : fromId
  const path: Array<Entry> = []
  if (start === null) return path
  const seen = new Set<string>()
  let id: string | null = SessionState.resolveCanonical(state, start)
  while (id !== null && !seen.has(id)) {
    seen.add(id)
    const entry = state.byId.get(id)
    if (entry === undefined) break
    path.push(entry)
    id = parentOf(state, entry)
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

const time = (entry: Entry): number => new Date(entry.timestamp).getTime()

/**
 * The whole forest: roots in file order, each node's children sorted by ascending
 * `Date.parse(timestamp)` (stable: equal times keep file order; offsets compare as instants).
 * Entries caught in a parent cycle appear nowhere. Built iteratively in O(n log n).
 */
export const getTree = (state: SessionState.SessionState): Array<TreeNode> => {
  const index = treeIndex(state)
  const nodes = new Map<string, TreeNode>()
  const nodeOf = (id: string): TreeNode => {
    let node = nodes.get(id)
    if (node === undefined) {
      const label = state.labels.get(id)
      const base = { entry: state.byId.get(id)!, parentId: index.parents.get(id) ?? null, children: [] as Array<TreeNode> }
      node = label === undefined ? base : { ...base, label: label.label, labelTimestamp: label.timestamp }
      nodes.set(id, node)
    }
    return node
  }
  const roots = (index.children.get(null) ?? []).map(nodeOf)
  const stack = [...roots]
  while (stack.length > 0) {
    const node = stack.pop()!
    const childIds = index.children.get(node.entry.id)
    if (childIds === undefined) continue
    for (const childId of childIds) if (childId !== node.entry.id) node.children.push(nodeOf(childId))
    if (node.children.length > 1) {
      const times = new Map(node.children.map((child) => [child, time(child.entry)]))
      node.children.sort((a, b) => times.get(a)! - times.get(b)!)
    }
    for (const child of node.children) stack.push(child)
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
  const info: SessionInfoEntry | undefined = state.latestSessionInfo
  const name = typeof info?.name === "string" ? info.name.trim() : ""
  return name === "" ? undefined : name
}

/** The last `compaction` entry in file order, on any branch (pi's `getLatestCompactionEntry`). */
export const getLatestCompaction = (state: SessionState.SessionState): CompactionEntry | undefined => {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const entry = state.entries[i]!
    if (entry.type === "compaction") return entry
  }
  return undefined
}
