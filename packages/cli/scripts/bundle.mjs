// Bundles the command (over tsc's output of src/bin.ts) into `dist/bin.js` and the chunks it
// imports when it needs them (`dist/bin-chunk-*.js`): the module graph of effect, @effect/cli and
// @effect/platform-node is hundreds of files, and loading them one by one costs seconds at every
// start, so each piece is one tree-shaken file; split into chunks so that the dynamic imports of
// `bin.ts` and `Cli.ts` stay real: `--version` loads nothing of Effect, `info` nothing of the
// agent runtime or the OpenAI provider (see bench/startup.mjs). The direct path of a plain `append`
// (src/internal/direct.ts) and the read commands `info`, `tree`, `context` (src/internal/readMain.ts)
// are bundled first, each on its own into one CommonJS file (`bin-chunk-direct-[hash].js`,
// `bin-chunk-read-commands-[hash].js`): tree-shaken for that path alone, run by `bin.js` (which gets
// their names from here) through node:vm with V8's code cache (issue 27: start-up of append and info).
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
  // BRANCHLOG_BUNDLE_NAMES=1 keeps the names (for a readable CPU profile)
  minify: process.env["BRANCHLOG_BUNDLE_NAMES"] !== "1",
  logLevel: "warning",
  metafile: true
}
/** A one-file CommonJS bundle of `entry` named `bin-chunk-NAME-[hash].js`; returns its file name. */
const cjsBundle = async (name, entry) => {
  const result = await build({
    ...common,
    entryPoints: { [`bin-chunk-${name}`]: fileURLToPath(new URL(entry, import.meta.url)) },
    entryNames: "[name]-[hash]",
    // CommonJS, run by `internal/codeCache.ts` through node:vm with V8's code cache (Node 20 has no
    // compile cache for modules); `require`, `__filename` come from its wrapper
    format: "cjs",
    banner: { js: "var __branchlog_url = require(\"node:url\").pathToFileURL(__filename).href;" },
    define: { "import.meta.url": "__branchlog_url" }
  })
  return { result, file: Object.keys(result.metafile.outputs).map((file) => file.split("/").pop()).find(isChunk) }
}
const direct = await cjsBundle("direct", "../src/internal/direct.ts")
const read = await cjsBundle("read-commands", "../src/internal/readMain.ts")
const main = await build({
  ...common,
  entryPoints: { bin: fileURLToPath(new URL("../src/bin.ts", import.meta.url)) },
  splitting: true,
  define: { __BRANCHLOG_DIRECT__: JSON.stringify(direct.file), __BRANCHLOG_READ__: JSON.stringify(read.file) }
})
// only now, and only the chunks this build did not write again: a command started from the earlier
// build (another test suite running `branchlog` while this one rebuilds) still finds every chunk it
// loads later, since an unchanged chunk keeps its name
const written = new Set(
  [main, direct.result, read.result].flatMap((result) => Object.keys(result.metafile.outputs)).map((file) =>
    file.split("/").pop()
  )
)
for (const name of earlier) if (!written.has(name)) rmSync(`${outdir}/${name}`)
chmodSync(`${outdir}/bin.js`, 0o755)
