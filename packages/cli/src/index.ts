/**
 * `@branchlog/cli`: the `branchlog` command as a library, so it can be run in-process (tests,
 * other tools) over any session-store layer.
 *
 * @since 0.1.0
 */

/** The command tree and `run`. */
export * as Cli from "./Cli.js"
/** The command's errors and exit codes. */
export * as CliError from "./CliError.js"
/** Standard input as a service (for in-process runs). */
export * as Stdin from "./Stdin.js"
