#!/usr/bin/env node
/**
 * The `branchlog` executable: runs the command over the Node layers and exits with its code.
 *
 * @since 0.1.0
 */
import { SessionStore } from "@branchlog/session-store"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { run } from "./Cli.js"
import { withPlainConsole } from "./internal/plainConsole.js"
import * as Stdin from "./Stdin.js"

withPlainConsole(run(process.argv)).pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, SessionStore.layerNode, Stdin.layerProcess)),
  Effect.flatMap((code) =>
    Effect.sync(() => {
      process.exitCode = code
    })
  ),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
