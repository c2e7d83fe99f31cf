#!/usr/bin/env node
/**
 * The `branchlog` executable. It loads only what the command line needs: `--version` alone reads
 * the package's version and prints it (nothing of Effect is loaded); everything else imports the
 * command runner (`internal/main`), which in turn imports only the named subcommand's module; a
 * plain `append FILE [--json] [--full]` line runs directly (`internal/direct`: no @effect/cli), and
 * `info`, `tree` and `context` on files run from their own bundle (`internal/readMain`); those two
 * are one CommonJS file each, run with V8's code cache (`internal/codeCache`).
 *
 * @since 0.1.0
 */
import * as NodeModule from "node:module"
import { fileURLToPath } from "node:url"
import type * as Direct from "./internal/direct.js"
import type * as ReadMain from "./internal/readMain.js"

/** The file name of the direct `append` path's bundle (`bundle.mjs` defines it; unbundled, the module itself). */
declare const __BRANCHLOG_DIRECT__: string | undefined
/** The file name of the read commands' bundle (`bundle.mjs` defines it; unbundled, the module itself). */
declare const __BRANCHLOG_READ__: string | undefined

const args = process.argv.slice(2)
if (args.length === 1 && args[0] === "--version") {
  process.stdout.write(
    `${(NodeModule.createRequire(import.meta.url)("../package.json") as { readonly version: string }).version}\n`
  )
} else {
  // Node >= 22.1 keeps the compiled code of the chunks between runs (in its cache under the temporary
  // folder, or NODE_COMPILE_CACHE); Node 20 has no such cache and compiles them at every start
  ;(NodeModule as { readonly enableCompileCache?: () => unknown }).enableCompileCache?.()
  const { directAppend, isReadLine } = await import("./internal/argv.js")
  const store = process.env["BRANCHLOG_STORE"]
  const direct = directAppend(args, store)
  // the one-file CommonJS bundles beside this one (`scripts/bundle.mjs` names them), run with V8's code cache
  const bundle = async (name: string) =>
    (await import("./internal/codeCache.js")).load(fileURLToPath(new URL(`./${name}`, import.meta.url)))
  if (direct !== undefined) {
    const module = typeof __BRANCHLOG_DIRECT__ === "string"
      ? await bundle(__BRANCHLOG_DIRECT__) as typeof Direct
      : await import("./internal/direct.js")
    module.main(process.argv, direct)
  } else if (isReadLine(args, store)) {
    const module = typeof __BRANCHLOG_READ__ === "string"
      ? await bundle(__BRANCHLOG_READ__) as typeof ReadMain
      : await import("./internal/readMain.js")
    module.main(process.argv)
  } else (await import("./internal/main.js")).main(process.argv)
}
