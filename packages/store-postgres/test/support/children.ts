/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import { Children } from "@branchlog/store-jsonl/testing"
import { bundledChild } from "@branchlog/tooling/children"
import * as path from "node:path"

const cwd = Children.packageOf(import.meta.url)

/** A running child. */
export type Child = Children.Child

/** Starts `node SCRIPT ARGS` (script relative to test/workers, as its bundle: `@branchlog/tooling/children`), stdin closed. */
export const start = (script: string, args: ReadonlyArray<string>): Child =>
  Children.start([bundledChild(path.join(cwd, "test", "workers", script)), ...args], {
    cwd,
    stdin: "ignore",
    tsx: false
  })

/** Waits until `predicate` holds of the child's stdout. */
export const waitFor = (child: Child, predicate: (stdout: string) => boolean, timeoutMs = 120_000) =>
  Children.waitFor(child, predicate, { timeoutMs, of: "stdout" })

/** The ids a writer printed as acknowledged. */
export const acked = (child: Pick<Child, "stdout">): Array<string> => Children.acked(child)
