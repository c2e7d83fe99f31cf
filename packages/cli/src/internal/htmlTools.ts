/**
 * Tool calls paired with their results on the export page: within a linear run, an assistant
 * message's tool calls hold back the entries after them (more assistant messages, such as the
 * other calls of a parallel batch) until every call's `toolResult` (matched by `toolCallId`) has
 * come; each result is then shown under its call. A result that comes after anything else (a user
 * message), past a fork, or after {@link LIMIT} held entries, is shown where it is.
 */
import type { Tree } from "@branchlog/session-core"
import { Entry } from "@branchlog/session-core"
import { resultCallId, toolCallIds } from "./htmlEntry.js"

/** The most entries held back waiting for results (memory stays bounded in a long run). */
const LIMIT = 256

const none: ReadonlyMap<string, string> = new Map()

/** Renders one entry: `paired` when it is a result shown under its call; `results` by call id. */
export type RenderEntry = (node: Tree.TreeNode, paired: boolean, results: ReadonlyMap<string, string>) => string

/** The grouping of one linear run at a time: {@link push} each entry in order, then {@link flush}. */
export class ToolGroups {
  private pending: Array<Tree.TreeNode> = []
  private readonly open = new Set<string>()
  private readonly answered = new Map<string, Tree.TreeNode>()

  constructor(private readonly render: RenderEntry) {}

  /** The next entry of the run; gives what can be written now, in order. */
  push(node: Tree.TreeNode): Array<string> {
    const out: Array<string> = []
    if (this.pending.length > 0) {
      const callId = resultCallId(node.entry)
      if (callId !== undefined && this.open.has(callId)) {
        this.open.delete(callId)
        this.answered.set(callId, node)
        return this.open.size === 0 ? this.flush() : out
      }
      if (this.pending.length < LIMIT && Entry.isAssistantMessage(node.entry)) {
        this.hold(node)
        return out
      }
      out.push(...this.flush())
    }
    if (toolCallIds(node.entry).length > 0) this.hold(node)
    else out.push(this.render(node, false, none))
    return out
  }

  /** Writes what is held (at the end of a run): calls with the results that came, in order. */
  flush(): Array<string> {
    const out = this.pending.map((node) => {
      const results = new Map<string, string>()
      for (const id of toolCallIds(node.entry)) {
        const result = this.answered.get(id)
        if (result !== undefined && !results.has(id)) results.set(id, this.render(result, true, none))
      }
      return this.render(node, false, results)
    })
    this.pending = []
    this.open.clear()
    this.answered.clear()
    return out
  }

  private hold(node: Tree.TreeNode) {
    this.pending.push(node)
    for (const id of toolCallIds(node.entry)) if (!this.answered.has(id)) this.open.add(id)
  }
}
