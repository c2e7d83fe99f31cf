/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import { Children } from "@branchlog/store-jsonl/testing"

const cwd = Children.packageOf(import.meta.url)

/** Starts `node --import tsx ARGS` in the package folder. */
export const start = (args: ReadonlyArray<string>): Children.Child => Children.start(args, { cwd })

/** Waits until the child printed what `predicate` looks for. */
export const waitFor = (child: Children.Child, predicate: (output: string) => boolean, timeoutMs = 60_000) =>
  Children.waitFor(child, predicate, { timeoutMs })
