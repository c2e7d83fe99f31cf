/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import { bundledChild } from "@branchlog/tooling/children"
import * as path from "node:path"
import type { Child } from "../../src/testing/Children.js"
import * as Children from "../../src/testing/Children.js"

export type { Child }

const cwd = Children.packageOf(import.meta.url)

/**
 * Starts `node ARGS` in the package folder; with `bundle` (the default) the first argument is a
 * TypeScript child script, run as its bundle (`@branchlog/tooling/children`: a child through tsx
 * spends about 2 s of CPU loading its modules).
 */
export const start = ([script, ...args]: ReadonlyArray<string>, bundle = true): Child =>
  Children.start(bundle ? [bundledChild(path.resolve(cwd, script!)), ...args] : [script!, ...args], { cwd, tsx: false })
