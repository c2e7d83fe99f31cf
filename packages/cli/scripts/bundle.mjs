// Bundles the command (over tsc's output of src/bin.ts) into `dist/bin.js` and the chunks it
// imports when it needs them (`dist/bin-chunk-*.js`): the module graph of effect, @effect/cli and
// @effect/platform-node is hundreds of files, and loading them one by one costs seconds at every
// start, so each piece is one tree-shaken file; split into chunks so that the dynamic imports of
// `bin.ts` and `Cli.ts` stay real: `--version` loads nothing of Effect, `info` nothing of the
// agent runtime or the OpenAI provider (see bench/startup.mjs). The direct path of a plain `append`
// (src/internal/direct.ts) is bundled first, on its own, into one file (`bin-chunk-direct-[hash].js`):
// one module to load at start, tree-shaken for that path alone; `bin.js` imports it by the name this
// script gives it (issue 27: append's first entry on disk soon after start).
import { build } from "esbuild"
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const outdir = fileURLToPath(new URL("../dist", import.meta.url))
const isChunk = (name) => /^bin-chunk-.*\.js$/.test(name)
// chunks of an earlier build (their names carry a hash of their content)
const earlier = existsSync(outdir) ? readdirSync(outdir).filter(isChunk) : []
const common = {
  outdir,
  // chunks sit beside bin.js: `../package.json` (the version) resolves the same from each
  chunkNames: "bin-chunk-[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // @branchlog packages resolve to their built dist (the default conditions), like a consumer's;
  // esbuild adds `import` or `require` by the kind of each import itself: naming `import` here
  // would apply it to `require()` calls too (pg's `require("pg-pool")` then got pg-pool's ESM
  // namespace instead of its class, and the PostgreSQL driver failed to load)
  conditions: ["node"],
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  },
  // native or optional drivers stay outside: better-sqlite3 loads its .node file, pg its optional pg-native
  external: ["better-sqlite3", "pg-native"],
  legalComments: "none",
  minify: true,
  logLevel: "warning",
  metafile: true
}
const direct = await build({
  ...common,
  entryPoints: { "bin-chunk-direct": fileURLToPath(new URL("../src/internal/direct.ts", import.meta.url)) },
  entryNames: "[name]-[hash]",
  // CommonJS, run by `internal/codeCache.ts` through node:vm with V8's code cache (Node 20 has no
  // compile cache for modules); `require`, `__filename` come from its wrapper
  format: "cjs",
  banner: { js: "var __branchlog_url = require(\"node:url\").pathToFileURL(__filename).href;" },
  define: { "import.meta.url": "__branchlog_url" }
})
const directName = Object.keys(direct.metafile.outputs).map((file) => file.split("/").pop()).find((name) =>
  isChunk(name)
)
const main = await build({
  ...common,
  entryPoints: { bin: fileURLToPath(new URL("../src/bin.ts", import.meta.url)) },
  splitting: true,
  define: { __BRANCHLOG_DIRECT__: JSON.stringify(directName) }
})
// only now, and only the chunks this build did not write again: a command started from the earlier
// build (another test suite running `branchlog` while this one rebuilds) still finds every chunk it
// loads later, since an unchanged chunk keeps its name
const written = new Set(
  [main, direct].flatMap((result) => Object.keys(result.metafile.outputs)).map((file) => file.split("/").pop())
)
for (const name of earlier) if (!written.has(name)) rmSync(`${outdir}/${name}`)
chmodSync(`${outdir}/bin.js`, 0o755)
