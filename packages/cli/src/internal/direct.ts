/**
 * The executable's direct path for a plain `append` line on JSONL files (`argv.ts`'s `directAppend`):
 * the same handler, error lines, exit codes and global options as through @effect/cli, without
 * loading @effect/cli, @effect/platform-node's file system and terminal, any other command's module
 * or a database driver, so that the first entry from stdin reaches the file as soon after start as it
 * can (issue 27). It is bundled on its own, in one file (`scripts/bundle.mjs`): one module to load,
 * tree-shaken for this path alone.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ExitCode } from "../CliError.js"
import * as Stdin from "../Stdin.js"
import { appendStdin } from "./append.js"
import type { DirectAppend } from "./argv.js"
import { withLockTimeout } from "./globals.js"
import { runNode } from "./nodeRun.js"
import { withPlainConsole } from "./plainConsole.js"
import * as Runner from "./runner.js"

/** Runs the `append` line `line` of `argv` (as `process.argv`) in this process, until it ends. */
export const main = (argv: ReadonlyArray<string>, line: DirectAppend): void =>
  runNode(argv, () => Promise.resolve({ drivers: [], unserved: [] }), (store) =>
    withPlainConsole(
      Runner.around(
        line.globals,
        appendStdin(line).pipe(
          withLockTimeout(line.globals.lockTimeoutMs),
          Effect.as(ExitCode.ok as number),
          Effect.catchAll(Runner.report(line.globals.verbose))
        )
      )
    ).pipe(Effect.provide(Layer.mergeAll(store, Stdin.layerProcess))))
