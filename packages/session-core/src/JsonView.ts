/**
 * The JSON answers of `branchlog context|tree|info --json` (shapes in the fixtures' README), as
 * pure functions of a state, so every consumer prints the same thing.
 *
 * @since 0.1.0
 */
import type { EntryType } from "./Entry.js"
import * as SessionContext from "./SessionContext.js"
import * as SessionState from "./SessionState.js"
import * as Tree from "./Tree.js"

/** One node of the tree answer. */
export interface TreeNodeJson {
  readonly id: string
  readonly parentId: string | null
  readonly type: EntryType
  readonly label?: string
  readonly children: ReadonlyArray<string>
}

/** The tree answer: a pre-order walk of the forest. */
export interface TreeJson {
  readonly leafId: string | null
  readonly roots: ReadonlyArray<string>
  readonly nodes: ReadonlyArray<TreeNodeJson>
}

/** The info answer. */
export interface InfoJson {
  readonly id?: string
  readonly version?: number
  readonly cwd?: string
  readonly parentSession?: string
  readonly name?: string
  readonly entries: number
  readonly leafId: string | null
}

/** The context answer: `buildSessionContext` at `leafId` (default: the visible leaf). */
export const context = (state: SessionState.SessionState, leafId?: string | null): SessionContext.SessionContext =>
  SessionContext.buildSessionContext(state, leafId)

/** The tree answer. */
export const tree = (state: SessionState.SessionState): TreeJson => {
  const roots = Tree.getTree(state)
  const nodes: Array<TreeNodeJson> = []
  Tree.walk(roots, (node) => {
    const base = {
      id: node.entry.id,
      parentId: node.parentId,
      type: node.entry.type,
      children: node.children.map((child) => child.entry.id)
    }
    nodes.push(node.label === undefined ? base : { ...base, label: node.label })
  })
  return { leafId: state.leafId, roots: roots.map((root) => root.entry.id), nodes }
}

/** The info answer. */
export const info = (state: SessionState.SessionState): InfoJson => {
  const header = state.header
  const name = Tree.getSessionName(state)
  return {
    ...(header === undefined ? {} : {
      id: header.id,
      version: SessionState.version(state)!,
      ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
      ...(header.parentSession === undefined ? {} : { parentSession: header.parentSession })
    }),
    ...(name === undefined ? {} : { name }),
    entries: state.entries.length,
    leafId: state.leafId
  }
}
