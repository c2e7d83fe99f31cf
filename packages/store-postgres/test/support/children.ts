/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import { Children } from "@branchlog/store-jsonl/testing"
import * as path from "node:path"

const cwd = Children.packageOf(import.meta.url)

/** A running child. */
export type Child = Children.Child

/** Starts `node --import tsx SCRIPT ARGS` (script relative to test/workers), stdin closed. */
export const start = (script: string, args: ReadonlyArray<string>): Child =>
  Children.start([path.join(cwd, "test", "workers", script), ...args], { cwd, stdin: "ignore" })

/** Waits until `predicate` holds of the child's stdout. */
export const waitFor = (child: Child, predicate: (stdout: string) => boolean, timeoutMs = 120_000) =>
  Children.waitFor(child, predicate, { timeoutMs, of: "stdout" })

/** The ids a writer printed as acknowledged. */
export const acked = (child: Pick<Child, "stdout">): Array<string> => Children.acked(child)
