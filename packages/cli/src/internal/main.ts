/** Runs the command over the Node layers and sets the process's exit code (what `bin.ts` imports for every command line). */
import { SessionStore, StoreRouter } from "@branchlog/session-store"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { run } from "../Cli.js"
import { ExitCode } from "../CliError.js"
import * as Stdin from "../Stdin.js"
import { driversFor, refusal } from "./drivers.js"
import * as FileProgress from "./fileProgress.js"
import { withPlainConsole } from "./plainConsole.js"
import * as LazyTerminal from "./terminal.js"

/**
 * The file-level services over node:fs; on a terminal and without `--json`, their whole-file
 * reads report on a progress line (`BRANCHLOG_PROGRESS_AFTER_MS`: after how long, default 1 s).
 */
const filesLayer = (argv: ReadonlyArray<string>) => {
  if (process.stderr.isTTY !== true || argv.includes("--json")) return SessionStore.layerFilesNode
  const after = Number(process.env["BRANCHLOG_PROGRESS_AFTER_MS"])
  return Layer.provideMerge(
    FileProgress.layer(process.stderr, Number.isFinite(after) && after >= 0 ? after : undefined),
    SessionStore.layerFilesNode
  )
}

/** Runs `branchlog` for `argv` (as `process.argv`) in this process, until it ends. */
export const main = (argv: ReadonlyArray<string>): void =>
  Effect.promise(() => driversFor(argv.slice(2), process.env["BRANCHLOG_STORE"])).pipe(
    Effect.flatMap(({ drivers, unserved }) => {
      // a store named that cannot be served: one line and exit 2, before any command runs
      const refused = refusal(argv.slice(2), unserved)
      if (refused !== undefined) {
        return Effect.sync(() => {
          process.stderr.write(`${refused}\n`)
          return ExitCode.usage
        })
      }
      return withPlainConsole(run(argv)).pipe(
        // what @effect/cli needs (files, paths, the terminal), not all of NodeContext (child processes, workers)
        Effect.provide(
          Layer.mergeAll(
            NodeFileSystem.layer,
            NodePath.layer,
            LazyTerminal.layer,
            Layer.provideMerge(StoreRouter.layerWith(drivers), filesLayer(argv)),
            Stdin.layerProcess
          )
        )
      )
    }),
    Effect.flatMap((code) =>
      Effect.sync(() => {
        process.exitCode = code
      })
    ),
    NodeRuntime.runMain({ disableErrorReporting: false, disablePrettyLogger: true })
  )
