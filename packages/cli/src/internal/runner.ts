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

/**
 * An error's fields as indented JSON, for `--verbose`: an error among them (a store's `cause`: a
 * driver's error) with its name and message, which `JSON.stringify` leaves out, and an object met
 * again inside itself as `"[Circular]"` instead of a throw.
 */
export const fieldsOf = (error: unknown): string => {
  // the objects on the path from the root to the one being written: what each was, what was written for it
  const path: Array<{ readonly value: object; readonly written: object }> = []
  return JSON.stringify(error, function(this: unknown, key: string, value: unknown) {
    if (typeof value === "bigint") return value.toString()
    if (typeof value !== "object" || value === null) return value
    while (path.length > 0 && path[path.length - 1]!.written !== this) path.pop()
    if (path.some((step) => step.value === value)) return "[Circular]"
    const written = key !== "" && value instanceof Error
      ? Object.assign({ name: value.name, message: value.message }, value)
      : value
    path.push({ value, written })
    return written
  }, 2)
}

/** Prints `error` as the command's one line on stderr (with `verbose`, its fields) and gives its exit code. */
export const report = (verbose: boolean) => (error: unknown): Effect.Effect<number> =>
  Output.note(`branchlog: ${describeError(error)}${verbose ? `\n${fieldsOf(error)}` : ""}`).pipe(
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
