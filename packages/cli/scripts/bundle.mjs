// Bundles the command into one file, `dist/bin.js` (over tsc's output of src/bin.ts): the module
// graph of effect, @effect/cli and @effect/platform-node is hundreds of files, and loading them
// one by one costs seconds at every start; one tree-shaken file starts in a fraction of that.
import { build } from "esbuild"
import { chmodSync } from "node:fs"
import { fileURLToPath } from "node:url"

const outfile = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
await build({
  entryPoints: [fileURLToPath(new URL("../src/bin.ts", import.meta.url))],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // @branchlog packages resolve to their built dist (the default conditions), like a consumer's
  conditions: ["import", "node"],
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  },
  legalComments: "none",
  logLevel: "warning"
})
chmodSync(outfile, 0o755)
