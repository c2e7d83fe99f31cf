/** Runs the command over the Node layers and sets the process's exit code (what `bin.ts` imports for every command line it runs no other way). */
import { run } from "../Cli.js"
import { runCli } from "./cliMain.js"
import { driversFor } from "./drivers.js"

/** Runs `branchlog` for `argv` (as `process.argv`) in this process, until it ends. */
export const main = (argv: ReadonlyArray<string>): void =>
  runCli(argv, run, () => driversFor(argv.slice(2), process.env["BRANCHLOG_STORE"]))
