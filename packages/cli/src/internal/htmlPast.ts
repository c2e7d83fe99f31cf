/**
 * The history before a compaction, for the export page: what a compaction on the current path
 * summarised, which the page shows muted, in the main flow, as the conversation's past.
 *
 * - A compaction whose own path holds the conversation (pi, OpenClaw): the entries on the path
 *   before its first kept entry (from the first message on).
 * - A compaction with no message before it on its path (an import whose compaction names a
 *   parent the source does not hold, as Claude Code's do): its older siblings' subtrees, the
 *   conversation that came before it, which would otherwise look like an abandoned branch.
 */
import { Tree } from "@branchlog/session-core"
import type { Entry } from "@branchlog/session-core"

/** What is before a compaction on the page. */
export interface Past {
  /** Ids on the current path that a compaction summarised. */
  readonly pathIds: ReadonlySet<string>
  /** Siblings of a compaction (off the path) that hold the conversation it summarised. */
  readonly roots: ReadonlySet<Tree.TreeNode>
  /** Every node of those siblings' subtrees. */
  readonly nodes: ReadonlySet<Tree.TreeNode>
}

const time = (entry: Entry.Entry): number => Date.parse(entry.timestamp)

/** The past of the compactions on the current path (`branch`, root first). */
export const pastOf = (
  roots: ReadonlyArray<Tree.TreeNode>,
  branch: ReadonlyArray<Entry.Entry>,
  onPath: ReadonlySet<string>
): Past => {
  const pathIds = new Set<string>()
  const pastRoots = new Set<Tree.TreeNode>()
  const nodes = new Set<Tree.TreeNode>()
  const firstMessage = branch.findIndex((entry) => entry.type === "message")
  if (!branch.some((entry) => entry.type === "compaction")) return { pathIds, roots: pastRoots, nodes }
  const position = new Map<string, number>()
  branch.forEach((entry, i) => position.set(entry.id, i))
  // the path's nodes, root first (a node's children hold at most one node on the path)
  const pathNodes: Array<Tree.TreeNode> = []
  for (let level = roots; level.length > 0;) {
    const next = level.find((node) => onPath.has(node.entry.id))
    if (next === undefined || pathNodes.length === branch.length) break
    pathNodes.push(next)
    level = next.children
  }
  let pastEnd = 0
  branch.forEach((entry, i) => {
    if (entry.type !== "compaction") return
    const kept = entry.firstKeptEntryId === null ? undefined : position.get(entry.firstKeptEntryId)
    const end = kept === undefined || kept > i ? i : kept
    if (firstMessage !== -1 && firstMessage < end) {
      pastEnd = Math.max(pastEnd, end)
      return
    }
    const node = pathNodes[i]
    if (node === undefined || node.entry.id !== entry.id) return
    const siblings = i === 0 ? roots : pathNodes[i - 1]!.children
    for (const sibling of siblings) {
      if (sibling === node || onPath.has(sibling.entry.id) || !(time(sibling.entry) < time(entry))) continue
      pastRoots.add(sibling)
      Tree.walk([sibling], (n) => nodes.add(n))
    }
  })
  for (let i = Math.max(firstMessage, 0); i < pastEnd; i++) pathIds.add(branch[i]!.id)
  return { pathIds, roots: pastRoots, nodes }
}
