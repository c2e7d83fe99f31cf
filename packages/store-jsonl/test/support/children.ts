/** Child processes of this package for the multi-process tests (`@branchlog/store-jsonl/testing`'s `Children`, run here). */
import type { Child } from "../../src/testing/Children.js"
import * as Children from "../../src/testing/Children.js"

export type { Child }

const cwd = Children.packageOf(import.meta.url)

/** Starts `node [--import tsx] ARGS` in the package folder. */
export const start = (args: ReadonlyArray<string>, tsx = true): Child => Children.start(args, { cwd, tsx })
