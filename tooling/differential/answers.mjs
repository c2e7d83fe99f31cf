// A reference session manager's `context` / `tree` / `info` answers, as the fixtures hold them.
// Shared by run.mjs (pi 0.73.1 and OpenClaw, in process) and pi16-worker.mjs (pi 1.6, under Node 22).
import { copyFileSync } from "node:fs"
import { json } from "../fixtures.mjs"

/** The tree as the fixtures hold it: an iterative pre-order walk over `getTree()`. */
const treeOf = (sm) => {
  const roots = sm.getTree()
  const nodes = []
  const stack = [...roots].reverse().map((node) => [node, null])
  while (stack.length > 0) {
    const [node, parentId] = stack.pop()
    nodes.push({
      id: node.entry.id,
      parentId,
      type: node.entry.type,
      ...(node.label === undefined ? {} : { label: node.label }),
      children: node.children.map((child) => child.entry.id)
    })
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], node.entry.id])
  }
  return { leafId: sm.getLeafId(), roots: roots.map((node) => node.entry.id), nodes }
}

/** The three answers of an opened reference session manager. */
export const answersOfManager = (sm) => {
  const header = sm.getHeader()
  const name = sm.getSessionName()
  return json({
    context: sm.buildSessionContext(),
    tree: treeOf(sm),
    info: {
      id: header.id,
      version: header.version,
      cwd: header.cwd,
      ...(header.parentSession ? { parentSession: header.parentSession } : {}),
      ...(name === undefined ? {} : { name }),
      entries: sm.getEntries().length,
      leafId: sm.getLeafId()
    }
  })
}

/**
 * Opens a copy of `file` (`FILE.TAG.jsonl`: the references may rewrite what they open) with
 * `Manager` and returns its answers.
 */
export const referenceAnswers = (Manager, file, tag, sessionDir) => {
  const copy = `${file}.${tag}.jsonl`
  copyFileSync(file, copy)
  return answersOfManager(Manager.open(copy, sessionDir))
}

/** The contexts at every entry taken as the leaf, in entry order: `[id, context]` pairs. */
export const contextsAtEveryLeaf = (Manager, file, tag, sessionDir) => {
  const copy = `${file}.${tag}-leaves.jsonl`
  copyFileSync(file, copy)
  const sm = Manager.open(copy, sessionDir)
  return sm.getEntries().map((entry) => {
    sm.branch(entry.id)
    return [entry.id, json(sm.buildSessionContext())]
  })
}
