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
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { ExitCode, UsageError } from "./CliError.js"
import type { CliCommand, Requirements } from "./internal/command.js"
import { parseGlobals, withLockTimeout } from "./internal/globals.js"
import * as Help from "./internal/help.js"
import * as Output from "./internal/output.js"
import * as Runner from "./internal/runner.js"

/** The version printed by `--version`: this package's (read at run time, so it follows releases). */
export const version: string =
  (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version

/** The subcommands in the order of the help, each with the import of the module that defines it. */
const subcommands: ReadonlyArray<readonly [name: string, load: () => Promise<CliCommand>]> = [
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

/**
 * The subcommands `args` (without node and script) needs: the one its first word names, or all of
 * them when it names none (help, completions, a mistyped name: @effect/cli answers those).
 */
const load = (args: ReadonlyArray<string>): Promise<ReadonlyArray<CliCommand>> => {
  let word: string | undefined
  for (let i = 0; i < args.length && word === undefined; i++) {
    // the values of @effect/cli's own options before the subcommand are not its name (`--log-level info ls`)
    if (args[i] === "--log-level" || args[i] === "--completions") i++
    else if (!args[i]!.startsWith("-")) word = args[i]
  }
  const named = subcommands.filter(([name]) => name === word)
  return Promise.all((named.length > 0 ? named : subcommands).map(([, load]) => load()))
}

/** What the command needs: @effect/cli's environment and the session-store services. */
export type Environment = CliApp.CliApp.Environment | Requirements

const footer = HelpDoc.blocks([
  HelpDoc.p(
    "Global options (anywhere on the line): --verbose prints an error's fields and a defect's stack; --lock-timeout DURATION (e.g. 500ms, 5s, 2m; a bare number is milliseconds) is how long a write waits for a transcript's lock (default 60s); --no-index keeps read commands from writing a session's sidecar index (they write one, beside the session, when its folder is writable)."
  ),
  HelpDoc.p("Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error.")
])

const cliOf = (commands: ReadonlyArray<CliCommand>) =>
  Command.run(
    Command.make("branchlog").pipe(
      Command.withDescription(
        "Keep, inspect and repair the transcripts of LLM agent sessions (pi / OpenClaw format, version 3)."
      ),
      Command.withSubcommands(commands as [CliCommand, ...Array<CliCommand>])
    ),
    { name: "branchlog", version, footer }
  )

/**
 * Runs the command for `argv` (as `process.argv`: node and script first) and returns the exit code.
 * Errors print as one line on stderr; with `--verbose`, the error's fields and a defect's stack.
 * Notices the store logs (a stale lock taken over) go to stderr too, never to stdout.
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> => {
  const globals = parseGlobals(argv.slice(2))
  const report = Runner.report(globals.verbose)
  const help = globals.error === undefined ? Help.request(globals.args) : undefined
  const program = globals.error !== undefined
    ? report(new UsageError({ detail: globals.error }))
    : help !== undefined
    ? printHelp(help.command)
    : Effect.promise(() => load(globals.args)).pipe(
      Effect.flatMap((commands) => cliOf(commands)([...argv.slice(0, 2), ...globals.args])),
      withLockTimeout(globals.lockTimeoutMs),
      Effect.as(ExitCode.ok as number),
      Effect.catchAll((error) => isValidation(error) ? Effect.succeed(ExitCode.usage as number) : report(error))
    )
  return Runner.around(globals, program)
}

/** Prints the overview, or one command's help (an unknown name: the overview, and exit 2). */
const printHelp = (name: string | undefined): Effect.Effect<number> =>
  Effect.promise(() => load(name === undefined ? [] : [name])).pipe(
    Effect.flatMap((commands) => {
      const known = name === undefined ? undefined : subcommands.findIndex(([n]) => n === name)
      if (known !== undefined && known !== -1) return Effect.as(Output.lines([Help.commandHelp(commands[0]!)]), 0)
      return Effect.zipRight(
        name === undefined ? Effect.void : Output.note(`branchlog: no command ${JSON.stringify(name)}`),
        Effect.as(Output.lines([Help.overview(commands, version)]), name === undefined ? 0 : ExitCode.usage as number)
      )
    })
  )

/** @effect/cli's parse errors (it has printed them itself). */
const isValidation = (error: unknown): boolean => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  return [
    "CommandMismatch",
    "CorrectedFlag",
    "HelpRequested",
    "InvalidArgument",
    "InvalidValue",
    "MissingValue",
    "MissingFlag",
    "MultipleValuesDetected",
    "MissingSubcommand",
    "NoBuiltInMatch",
    "UnclusteredFlag"
  ].includes(tag)
}
