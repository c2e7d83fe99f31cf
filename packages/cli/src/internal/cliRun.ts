/**
 * The runner of the `branchlog` command over a table of subcommands (`Cli.run` gives it all of them;
 * the executable's read bundle only `info`, `tree` and `context`): it parses the arguments with
 * @effect/cli and runs the one command `argv` names, importing only that command's module (help,
 * completions and unknown names load them all).
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Effect from "effect/Effect"
import { ExitCode, UsageError } from "../CliError.js"
import { subcommandWord } from "./argv.js"
import type { CliCommand, Requirements } from "./command.js"
import { parseGlobals, withLockTimeout } from "./globals.js"
import * as Help from "./help.js"
import * as Output from "./output.js"
import * as Runner from "./runner.js"

/** Subcommands in the order of the help, each with the import of the module that defines it. */
export type Subcommands = ReadonlyArray<readonly [name: string, load: () => Promise<CliCommand>]>

/** What the command needs: @effect/cli's environment and the session-store services. */
export type Environment = CliApp.CliApp.Environment | Requirements

/**
 * The subcommands `args` (without node and script) needs: the one its first word names, or all of
 * them when it names none (help, completions, a mistyped name: @effect/cli answers those).
 */
const loader = (subcommands: Subcommands) => (args: ReadonlyArray<string>): Promise<ReadonlyArray<CliCommand>> => {
  const word = subcommandWord(args)
  const named = subcommands.filter(([name]) => name === word)
  return Promise.all((named.length > 0 ? named : subcommands).map(([, load]) => load()))
}

const footer = HelpDoc.blocks([
  HelpDoc.p(
    "Global options (anywhere on the line): --verbose prints an error's fields and a defect's stack; --lock-timeout DURATION (e.g. 500ms, 5s, 2m; a bare number is milliseconds) is how long a write waits for a transcript's lock (default 60s); --no-index keeps read commands from writing a session's sidecar index (they write one, beside the session, when its folder is writable)."
  ),
  HelpDoc.p("Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error.")
])

const cliOf = (commands: ReadonlyArray<CliCommand>, version: string) =>
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
 * The runner over `subcommands`: runs the command for `argv` (as `process.argv`: node and script first) and returns the exit code.
 * Errors print as one line on stderr; with `--verbose`, the error's fields and a defect's stack.
 * Notices the store logs (a stale lock taken over) go to stderr too, never to stdout.
 */
export const makeRun =
  (subcommands: Subcommands, version: string) =>
  (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> => {
    const load = loader(subcommands)
    const globals = parseGlobals(argv.slice(2))
    const report = Runner.report(globals.verbose)
    const help = globals.error === undefined ? Help.request(globals.args) : undefined
    const program = globals.error !== undefined
      ? report(new UsageError({ detail: globals.error }))
      : help !== undefined
      ? printHelp(subcommands, version, help.command)
      : Effect.promise(() => load(globals.args)).pipe(
        Effect.flatMap((commands) => cliOf(commands, version)([...argv.slice(0, 2), ...globals.args])),
        withLockTimeout(globals.lockTimeoutMs),
        Effect.as(ExitCode.ok as number),
        Effect.catchAll((error) => isValidation(error) ? Effect.succeed(ExitCode.usage as number) : report(error))
      )
    return Runner.around(globals, program)
  }

/** Prints the overview, or one command's help (an unknown name: the overview, and exit 2). */
const printHelp = (subcommands: Subcommands, version: string, name: string | undefined): Effect.Effect<number> =>
  Effect.promise(() => loader(subcommands)(name === undefined ? [] : [name])).pipe(
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
