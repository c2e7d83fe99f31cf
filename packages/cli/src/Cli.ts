/**
 * The `branchlog` command: its subcommands, and `run`, which parses the arguments and runs one
 * command over the session-store services in context (the Node layer in `bin.ts`, the memory
 * layer in tests).
 *
 * Each subcommand's module is imported when it is asked for (`run` loads only the module of the
 * command that `argv` names; help, completions and unknown names load them all), so a command does
 * not pay for the others: `info` never loads the agent runtime or the OpenAI provider.
 *
 * Exit codes: 0 success; 1 problems found (`fsck`) or an operation failed; 2 a usage error.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as CliRun from "./internal/cliRun.js"

/** The version printed by `--version`: this package's (read at run time, so it follows releases). */
export const version: string =
  (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version

/** The subcommands in the order of the help, each with the import of the module that defines it. */
const subcommands: CliRun.Subcommands = [
  ["demo", () => import("./commands/agent.js").then((m) => m.demo)],
  ["run", () => import("./commands/agent.js").then((m) => m.run)],
  ["ls", () => import("./commands/ls.js").then((m) => m.ls)],
  ["info", () => import("./commands/read.js").then((m) => m.info)],
  ["tree", () => import("./commands/read.js").then((m) => m.tree)],
  ["context", () => import("./commands/read.js").then((m) => m.context)],
  ["show", () => import("./commands/show.js").then((m) => m.show)],
  ["continue", () => import("./commands/show.js").then((m) => m.continueCommand)],
  ["branch", () => import("./commands/write.js").then((m) => m.branch)],
  ["label", () => import("./commands/write.js").then((m) => m.label)],
  ["name", () => import("./commands/write.js").then((m) => m.name)],
  ["fork", () => import("./commands/write.js").then((m) => m.fork)],
  ["append", () => import("./commands/write.js").then((m) => m.append)],
  ["fsck", () => import("./commands/fsck.js").then((m) => m.fsck)],
  ["repair", () => import("./commands/fsck.js").then((m) => m.repair)],
  ["migrate", () => import("./commands/fsck.js").then((m) => m.migrate)],
  ["export", () => import("./commands/export.js").then((m) => m.exportCommand)],
  ["import", () => import("./commands/import.js").then((m) => m.importCommand)],
  ["copy", () => import("./commands/stores.js").then((m) => m.copy)],
  ["search", () => import("./commands/stores.js").then((m) => m.search)],
  ["follow", () => import("./commands/follow.js").then((m) => m.follow)]
]

/** What the command needs: @effect/cli's environment and the session-store services. */
export type Environment = CliRun.Environment

/**
 * Runs the command for `argv` (as `process.argv`: node and script first) and returns the exit code.
 * Errors print as one line on stderr; with `--verbose`, the error's fields and a defect's stack.
 * Notices the store logs (a stale lock taken over) go to stderr too, never to stdout.
 */
export const run: (argv: ReadonlyArray<string>) => Effect.Effect<number, never, Environment> = CliRun.makeRun(
  subcommands,
  version
)
