/**
 * How the executable runs a command over Node (`main.ts` through @effect/cli, `direct.ts` without):
 * the store drivers it is given (`main.ts`: those the command line or `BRANCHLOG_STORE` names; a
 * scheme that cannot be served: one line and exit 2, before any command runs); then the command
 * runs over the file services of node:fs and the router, and its result becomes the exit code.
 */
import type { TranscriptStore } from "@branchlog/session-store"
import { SessionStore, StoreRouter } from "@branchlog/store-jsonl"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ExitCode } from "../CliError.js"
import type { Drivers } from "./drivers.js"
import { refusal } from "./drivers.js"
import * as FileProgress from "./fileProgress.js"

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

/** The store's services: the router over the drivers given (JSONL files for the rest) and the file services. */
export type StoreLayer = Layer.Layer<TranscriptStore.TranscriptStore | SessionStore.FileServices>

/** Runs `command` (given the store's layer over `drivers`) for `argv` (as `process.argv`) in this process, until it ends. */
export const runNode = (
  argv: ReadonlyArray<string>,
  drivers: () => Promise<Drivers>,
  command: (store: StoreLayer) => Effect.Effect<number>
): void =>
  Effect.promise(drivers).pipe(
    Effect.flatMap(({ drivers, unserved }) => {
      const refused = refusal(argv.slice(2), unserved)
      if (refused !== undefined) {
        return Effect.sync(() => {
          process.stderr.write(`${refused}\n`)
          return ExitCode.usage
        })
      }
      return command(Layer.provideMerge(StoreRouter.layerWith(drivers), filesLayer(argv)))
    }),
    Effect.flatMap((code) =>
      Effect.sync(() => {
        process.exitCode = code
      })
    ),
    NodeRuntime.runMain({ disableErrorReporting: false, disablePrettyLogger: true })
  )
