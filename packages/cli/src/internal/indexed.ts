/**
 * `info` and `tree` from a session's sidecar index (session-store's `SessionOutline`), for a file
 * session whose index covers it (the read command's open built or caught it up), unless
 * `--no-index` was given. `None` whenever the index cannot answer exactly: the commands then read
 * the session whole, as before.
 */
import { SessionRef } from "@branchlog/session-store"
import { SessionOutline } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { SessionChanged } from "../CliError.js"
import { noIndex } from "./globals.js"
import * as TreeText from "./treeText.js"

/** Lines of the tree whose entries are read at once. */
const BATCH = 2048

/** The outline of a file session, unless `--no-index` or the index cannot answer. */
export const outline = (session: string) =>
  Effect.gen(function*() {
    if (yield* FiberRef.get(noIndex)) return Option.none()
    const ref = SessionRef.parse(session)
    if (Either.isLeft(ref) || ref.right._tag !== "File") return Option.none()
    return yield* SessionOutline.open(ref.right.path)
  })

/**
 * Prints the tree from an outline through `emit`, batch after batch (the entries of a batch read,
 * printed and dropped before the next: nothing of the whole output is held). `None` when the index
 * cannot answer (nothing was printed: read the session whole); `"missing"` when `around` is no
 * entry of the tree. A batch that is no longer where the index says after others were printed (the
 * session was rewritten meanwhile) fails with {@link SessionChanged}.
 */
export const printTree = <E, R>(
  o: SessionOutline.Outline,
  options: Omit<TreeText.TreeTextOptions, "around"> & { readonly around?: string },
  emit: (lines: ReadonlyArray<string>) => Effect.Effect<void, E, R>,
  batchLines = BATCH
): Effect.Effect<Option.Option<"printed" | "missing">, E | SessionChanged, R> =>
  Effect.gen(function*() {
    const found = yield* o.tree
    if (Option.isNone(found)) return Option.none()
    const t = found.value
    const shape: TreeText.Shape<number> = {
      roots: t.roots,
      children: t.children,
      childCount: t.childCount,
      firstChild: t.firstChild,
      parent: (row) => {
        const p = t.parent(row)
        return p === -1 ? undefined : p
      },
      label: t.label,
      isLeaf: (row) => row === t.leaf,
      onPath: t.onPath
    }
    let around: number | undefined
    if (options.around !== undefined) {
      const row = t.rowOf(options.around)
      // shown only when it hangs under a root (an entry in a parent cycle is in no tree)
      let r = row
      for (let steps = 0; r !== -1 && steps <= t.rowCount; steps++) {
        const p = t.parent(r)
        if (p === -1) break
        r = p
      }
      if (row === -1 || r === -1 || t.parent(r) !== -1) return Option.some("missing" as const)
      around = row
    }
    const plan = TreeText.plan(shape, { ...options, around })
    for (let start = 0; start < plan.length; start += batchLines) {
      const batch = plan.slice(start, start + batchLines)
      const rows: Array<number> = []
      for (const line of batch) if (line._tag === "Node") rows.push(line.node)
      const entries = yield* o.entriesOf(rows)
      if (Option.isNone(entries)) {
        if (start === 0) return Option.none()
        return yield* new SessionChanged({ path: o.path, printed: start })
      }
      yield* emit(TreeText.print(shape, batch, (row) => entries.value.get(row)!, options))
    }
    return Option.some("printed" as const)
  })
