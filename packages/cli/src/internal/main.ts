/** Runs the command over the Node layers and sets the process's exit code (what `bin.ts` imports for every command line but a plain `append`). */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { run } from "../Cli.js"
import * as Stdin from "../Stdin.js"
import { driversFor } from "./drivers.js"
import { runNode } from "./nodeRun.js"
import { withPlainConsole } from "./plainConsole.js"
import * as LazyTerminal from "./terminal.js"

/** Runs `branchlog` for `argv` (as `process.argv`) in this process, until it ends. */
export const main = (argv: ReadonlyArray<string>): void =>
  runNode(
    argv,
    () => driversFor(argv.slice(2), process.env["BRANCHLOG_STORE"]),
    (store) =>
      withPlainConsole(run(argv)).pipe(
        // what @effect/cli needs (files, paths, the terminal), not all of NodeContext (child processes, workers)
        Effect.provide(
          Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, LazyTerminal.layer, store, Stdin.layerProcess)
        )
      )
  )
