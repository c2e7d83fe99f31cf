/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import { Children } from "@branchlog/store-jsonl/testing"
import { bundledChild } from "@branchlog/tooling/children"
import * as path from "node:path"

const cwd = Children.packageOf(import.meta.url)

/** Starts `node SCRIPT ARGS` in the package folder, the TypeScript script as its bundle (`@branchlog/tooling/children`). */
export const start = ([script, ...args]: ReadonlyArray<string>): Children.Child =>
  Children.start([bundledChild(path.resolve(cwd, script!)), ...args], { cwd, tsx: false })

/** Waits until the child printed what `predicate` looks for. */
export const waitFor = (child: Children.Child, predicate: (output: string) => boolean, timeoutMs = 60_000) =>
  Children.waitFor(child, predicate, { timeoutMs })
