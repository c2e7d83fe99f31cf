/**
 * What runs around every command, however its line was parsed (`Cli.run` through @effect/cli, or
 * the executable's direct path): an error prints as one line on stderr (with `--verbose`, its
 * fields) and gives its exit code; a defect prints one line (with `--verbose`, its stack) and exit 1;
 * the libraries' notices go to stderr; `--verbose` and `--no-index` are set for the command.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import { describeError, ExitCode, exitCodeOf } from "../CliError.js"
import type { Globals } from "./argv.js"
import { noIndex, verbose as verboseRef } from "./globals.js"
import { stderrLogger } from "./logger.js"
import * as Output from "./output.js"

/** Prints `error` as the command's one line on stderr (with `verbose`, its fields) and gives its exit code. */
export const report = (verbose: boolean) => (error: unknown): Effect.Effect<number> =>
  Output.note(`branchlog: ${describeError(error)}${verbose ? `\n${JSON.stringify(error, null, 2)}` : ""}`).pipe(
    Effect.as(exitCodeOf(error))
  )

/** Runs a command's `program` with what `globals` asked for, a defect reported as one line (exit 1). */
export const around = <R>(
  globals: Globals,
  program: Effect.Effect<number, never, R>
): Effect.Effect<number, never, R> =>
  program.pipe(
    Effect.catchAllDefect((defect) =>
      Output.note(
        globals.verbose
          ? `branchlog: ${String((defect as Error)?.stack ?? defect)}`
          : `branchlog: unexpected error: ${describeError(defect)} (run with --verbose for details)`
      ).pipe(
        Effect.as(ExitCode.failure as number)
      )
    ),
    // only this logger: not the default one (stdout), nor one a runtime put around it (runMain's pretty one)
    Effect.locally(FiberRef.currentLoggers, HashSet.make(stderrLogger)),
    Effect.locally(verboseRef, globals.verbose),
    Effect.locally(noIndex, globals.noIndex)
  )
