#!/usr/bin/env node
// The `exports` of every public workspace package, derived from its `src/` folder: `.` (src/index.ts),
// `./package.json`, and one subpath per public module (every `src/*.ts` but index.ts and the files
// that `bin` builds), `./testing` among them; `./internal/*` (and every other deeper path) is not
// exported. The workspace's own `exports` add the `@branchlog/source` condition (tests and type
// checks run from src); `publishConfig.exports` (what `pnpm pack` and `pnpm publish` write into the
// published package.json) has none of it. A command package (one with `bin` and
// `"branchlog": { "publish": "bin" }`) publishes its bundle only: `./package.json` alone.
//
// `node tooling/scripts/package-exports.mjs` rewrites the manifests (after a module is added or
// removed); `--check` only compares, prints each difference and exits 1 (the release-check suite
// runs the same comparison as a test).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "..", "..")

/** The folders of the workspace packages under packages/, with their parsed manifests. */
export const workspacePackages = () =>
  readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))

/** The public packages (the ones that get published). */
export const publicPackages = () => workspacePackages().filter(({ manifest }) => manifest.private !== true)

const entry = (name, source) => ({
  ...(source ? { "@branchlog/source": `./src/${name}.ts` } : {}),
  types: `./dist/${name}.d.ts`,
  import: `./dist/${name}.js`
})

/** The public module names of a package: its `src/*.ts` files but index.ts and bin entry points. */
export const publicModules = (dir, manifest) => {
  const bins = new Set(
    Object.values(typeof manifest.bin === "string" ? { bin: manifest.bin } : manifest.bin ?? {}).map((path) =>
      basename(path).replace(/\.js$/, "")
    )
  )
  return readdirSync(join(dir, "src"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => file.slice(0, -3))
    .filter((name) => name !== "index" && !bins.has(name))
    .sort()
}

/** The exports a package should have, in the workspace (`source: true`) or as published. */
export const expectedExports = (dir, manifest, { source }) => {
  if (!source && manifest.branchlog?.publish === "bin") return { "./package.json": "./package.json" }
  const exports = { ".": entry("index", source), "./package.json": "./package.json" }
  for (const name of publicModules(dir, manifest)) exports[`./${name}`] = entry(name, source)
  exports["./internal/*"] = null
  return exports
}

const main = () => {
  const check = process.argv.includes("--check")
  let differences = 0
  for (const { dir, manifest } of publicPackages()) {
    const workspace = expectedExports(dir, manifest, { source: true })
    const published = expectedExports(dir, manifest, { source: false })
    const same = JSON.stringify(manifest.exports) === JSON.stringify(workspace) &&
      JSON.stringify(manifest.publishConfig?.exports) === JSON.stringify(published)
    if (same) continue
    differences += 1
    if (check) {
      console.error(`${manifest.name}: exports differ from src/ (run node tooling/scripts/package-exports.mjs)`)
      continue
    }
    manifest.exports = workspace
    manifest.publishConfig = { ...manifest.publishConfig, exports: published }
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
    console.log(`${manifest.name}: exports written`)
  }
  if (check && differences > 0) process.exit(1)
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main()
