/**
 * The `branchlog` command: its subcommands, and `run`, which parses the arguments and runs one
 * command over the session-store services in context (the Node layer in `bin.ts`, the memory
 * layer in tests).
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
import { describeError, ExitCode, exitCodeOf } from "./CliError.js"
import * as Agent from "./commands/agent.js"
import * as Export from "./commands/export.js"
import * as Fsck from "./commands/fsck.js"
import * as Ls from "./commands/ls.js"
import * as Read from "./commands/read.js"
import * as Write from "./commands/write.js"
import type { Requirements } from "./internal/command.js"
import * as Output from "./internal/output.js"

/** The version printed by `--version`: this package's (read at run time, so it follows releases). */
export const version: string =
  (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version

const command = Command.make("branchlog").pipe(
  Command.withDescription(
    "Keep, inspect and repair the transcripts of LLM agent sessions (pi / OpenClaw format, version 3)."
  ),
  Command.withSubcommands([
    Agent.demo,
    Agent.run,
    Ls.ls,
    Read.info,
    Read.tree,
    Read.context,
    Read.show,
    Write.branch,
    Write.label,
    Write.name,
    Write.fork,
    Write.append,
    Fsck.fsck,
    Fsck.repair,
    Fsck.migrate,
    Export.exportCommand
  ])
)

/** What the command needs: @effect/cli's environment and the session-store services. */
export type Environment = CliApp.CliApp.Environment | Requirements

const cli = Command.run(command, {
  name: "branchlog",
  version,
  footer: HelpDoc.p("Exit codes: 0 success; 1 problems found (fsck) or an operation failed; 2 a usage error.")
})

/**
 * Runs the command for `argv` (as `process.argv`: node and script first) and returns the exit code.
 * Errors print as one line on stderr; with `--verbose`, the error's fields and a defect's stack.
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Environment> => {
  const verbose = argv.includes("--verbose")
  const args = argv.filter((arg) => arg !== "--verbose")
  return cli(args).pipe(
    Effect.as(ExitCode.ok as number),
    Effect.catchAll((error) =>
      isValidation(error)
        ? Effect.succeed(ExitCode.usage as number)
        : Output.note(`branchlog: ${describeError(error)}${verbose ? `\n${JSON.stringify(error, null, 2)}` : ""}`)
          .pipe(
            Effect.as(exitCodeOf(error))
          )
    ),
    Effect.catchAllDefect((defect) =>
      Output.note(
        verbose
          ? `branchlog: ${String((defect as Error)?.stack ?? defect)}`
          : `branchlog: unexpected error: ${describeError(defect)} (run with --verbose for details)`
      ).pipe(
        Effect.as(ExitCode.failure as number)
      )
    )
  )
}

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
