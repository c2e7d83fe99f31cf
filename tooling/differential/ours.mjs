// branchlog's side of the differential: the packages' dist, opened as the CLI's read commands do.
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { json } from "../fixtures.mjs"

const repoRoot = resolve(import.meta.dirname, "..", "..")

/** Loads the built packages; `state(file)` opens read-only, `answers(state)` gives `context` / `tree` / `info`. */
export const loadBranchlog = async () => {
  const { SessionManager } = await import(join(repoRoot, "packages/session-store/dist/index.js"))
  const { SessionStore } = await import(join(repoRoot, "packages/store-jsonl/dist/index.js"))
  const { JsonView } = await import(join(repoRoot, "packages/session-core/dist/index.js"))
  const { Effect } = await import(join(repoRoot, "packages/session-store/node_modules/effect/dist/esm/index.js"))
  /** The store's read-only open; the file must be byte-identical afterwards. */
  const state = async (file) => {
    const before = readFileSync(file)
    const sm = await Effect.runPromise(
      Effect.provide(
        SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }),
        SessionStore.layerNode
      )
    )
    if (!before.equals(readFileSync(file))) throw new Error(`${file} changed on a read-only open`)
    return sm.getState()
  }
  const answers = (s) => json({ context: JsonView.context(s), tree: JsonView.tree(s), info: JsonView.info(s) })
  return { state, answers, contextAt: (s, leafId) => json(JsonView.context(s, leafId)) }
}
