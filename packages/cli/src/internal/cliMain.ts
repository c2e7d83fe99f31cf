/**
 * Runs a @effect/cli runner (`Cli.run`, or the read bundle's) over the Node layers it needs and sets
 * the process's exit code: files, paths and the terminal for @effect/cli (not all of NodeContext:
 * child processes, workers), the store over the drivers given, and stdin.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stdin from "../Stdin.js"
import type { Environment } from "./cliRun.js"
import type { Drivers } from "./drivers.js"
import { runNode } from "./nodeRun.js"
import { withPlainConsole } from "./plainConsole.js"
import * as LazyTerminal from "./terminal.js"

/** Runs `run` for `argv` (as `process.argv`) with the store over `drivers`, in this process, until it ends. */
export const runCli = (
  argv: ReadonlyArray<string>,
  run: (argv: ReadonlyArray<string>) => Effect.Effect<number, never, Environment>,
  drivers: () => Promise<Drivers>
): void =>
  runNode(argv, drivers, (store) =>
    withPlainConsole(run(argv)).pipe(
      Effect.provide(
        Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, LazyTerminal.layer, store, Stdin.layerProcess)
      )
    ))
