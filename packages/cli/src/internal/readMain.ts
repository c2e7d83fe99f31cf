/**
 * The executable's read bundle: `info`, `tree` and `context` on JSONL files (`argv.ts`'s
 * `isReadLine`), through @effect/cli as always, with only their module in the command table and no
 * database driver, bundled on its own into one CommonJS file run with V8's code cache
 * (`scripts/bundle.mjs`, `codeCache.ts`), so that `info` of a small session starts sooner (issue 27).
 */
import { createRequire } from "node:module"
import { runCli } from "./cliMain.js"
import type { Subcommands } from "./cliRun.js"
import { makeRun } from "./cliRun.js"

// the bundle sits beside bin.js in dist, as the package's manifest's folder's child
const version = (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version

const subcommands: Subcommands = [
  ["info", () => import("../commands/read.js").then((m) => m.info)],
  ["tree", () => import("../commands/read.js").then((m) => m.tree)],
  ["context", () => import("../commands/read.js").then((m) => m.context)]
]

/** Runs the read command line `argv` (as `process.argv`) in this process, until it ends. */
export const main = (argv: ReadonlyArray<string>): void =>
  runCli(argv, makeRun(subcommands, version), () => Promise.resolve({ drivers: [], unserved: [] }))
