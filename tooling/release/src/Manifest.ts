/**
 * Checks of a package's manifest against its source: the packages `src/` imports (found with
 * TypeScript's own pre-processor, so comments and strings that look like imports do not count)
 * against the ones `package.json` declares, and the shape the release needs (peer ranges, internal
 * ranges, files, LICENSE, repository, engines).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { join } from "node:path"
import ts from "typescript"

/** A package's parsed package.json (only the fields these checks read are typed). */
export interface PackageJson {
  readonly name: string
  readonly private?: boolean
  readonly bin?: string | Record<string, string>
  readonly files?: ReadonlyArray<string>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
  readonly branchlog?: { readonly publish?: string }
  readonly [key: string]: unknown
}

/** Reads the package.json of a package folder. */
export const readManifest = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Every `.ts` file under a folder, recursively. */
export const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|cts)$/.test(name) ? [path] : []
  })

/** The package a bare module specifier names (`effect/Effect` → `effect`), or undefined for relative and built-in ones. */
export const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined
  const parts = specifier.split("/")
  const name = specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!
  return builtinModules.includes(name) ? undefined : name
}

/** The packages that the files under `src/` import (static, dynamic, type-only and re-exports), each with one file that imports it. */
export const importedPackages = (dir: string): Map<string, string> => {
  const found = new Map<string, string>()
  for (const file of sourceFiles(join(dir, "src"))) {
    const text = readFileSync(file, "utf8")
    const info = ts.preProcessFile(text, true, true)
    // `createRequire(import.meta.url)("x")` (a package loaded only when needed) counts too
    const required = [...text.matchAll(/createRequire\([^)]*\)\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1]!)
    for (const fileName of [...info.importedFiles.map(({ fileName }) => fileName), ...required]) {
      const name = packageOf(fileName)
      if (name !== undefined && !found.has(name)) found.set(name, file)
    }
  }
  return found
}

/**
 * What is wrong between a package's imports and its declared dependencies. A library's `src` imports
 * must be exactly its `dependencies` and `peerDependencies` (nothing undeclared, nothing unused); a
 * command package that publishes only its bundle (`"branchlog": { "publish": "bin" }`) declares no
 * runtime dependency but optional peers (a native module the bundle cannot hold, loaded only by the
 * command that needs it), and everything its `src` imports is a dev dependency (bundled).
 */
export const dependencyProblems = (dir: string, manifest: PackageJson = readManifest(dir)): Array<string> => {
  const problems: Array<string> = []
  const imported = importedPackages(dir)
  imported.delete(manifest.name)
  const runtime = { ...manifest.dependencies, ...manifest.peerDependencies }
  const dev = manifest.devDependencies ?? {}
  if (manifest.branchlog?.publish === "bin") {
    for (const name of Object.keys(runtime)) {
      if (manifest.dependencies?.[name] === undefined && manifest.peerDependenciesMeta?.[name]?.optional === true) {
        continue
      }
      problems.push(`${manifest.name} publishes a bundle but declares the runtime dependency ${name}`)
    }
    for (const [name, file] of imported) {
      if (!(name in dev)) problems.push(`${file} imports ${name}, which ${manifest.name} does not declare`)
    }
    return problems
  }
  for (const [name, file] of imported) {
    if (!(name in runtime)) problems.push(`${file} imports ${name}, which ${manifest.name} does not declare`)
  }
  for (const name of Object.keys(runtime)) {
    if (!imported.has(name)) problems.push(`${manifest.name} declares ${name}, which nothing in its src/ imports`)
  }
  return problems
}

const exactVersion = /^\d+\.\d+\.\d+$/

/** Whether an exact version `x.y.z` is inside a caret range `^a.b.c` (npm's rule, for the ranges used here). */
export const caretAllows = (range: string, version: string): boolean => {
  const match = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)
  if (match === null || !exactVersion.test(version)) return false
  const [a, b, c] = match.slice(1).map(Number) as [number, number, number]
  const [x, y, z] = version.split(".").map(Number) as [number, number, number]
  if (x !== a) return false
  if (a > 0) return y > b || (y === b && z >= c)
  if (y !== b) return false
  return b > 0 ? z >= c : z === c
}

/** What is wrong with the release shape of a public package's manifest. */
export const manifestProblems = (dir: string, manifest: PackageJson = readManifest(dir)): Array<string> => {
  const problems: Array<string> = []
  const name = manifest.name
  for (const [dep, range] of Object.entries(manifest.peerDependencies ?? {})) {
    const dev = manifest.devDependencies?.[dep]
    if (dev === undefined || !exactVersion.test(dev)) {
      problems.push(`${name}: peer ${dep} needs an exact dev dependency for the workspace`)
    } else if (!caretAllows(range, dev)) {
      problems.push(`${name}: peer range ${dep}@${range} does not allow the workspace's ${dev}`)
    }
  }
  if (manifest.peerDependencies?.effect !== undefined && manifest.peerDependencies.effect !== "^3.22.0") {
    problems.push(`${name}: effect's peer range is ${manifest.peerDependencies.effect}, not ^3.22.0`)
  }
  for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
    if (dep.startsWith("@branchlog/") && range !== "workspace:^") {
      problems.push(`${name}: internal dependency ${dep} is ${range}, not workspace:^`)
    }
    if (dep === "effect" || (manifest.peerDependencies?.[dep] !== undefined)) {
      problems.push(`${name}: ${dep} is both a dependency and a peer (or effect is a regular dependency)`)
    }
  }
  if (!existsSync(join(dir, "LICENSE"))) problems.push(`${name}: no LICENSE file`)
  else if (!readFileSync(join(dir, "LICENSE"), "utf8").startsWith("MIT License")) {
    problems.push(`${name}: LICENSE is not the MIT license`)
  }
  if (manifest.license !== "MIT") problems.push(`${name}: license is not MIT`)
  const repository = manifest.repository as { url?: string; directory?: string } | undefined
  if (typeof repository?.url !== "string" || repository.directory !== `packages/${dir.split("/").at(-1)}`) {
    problems.push(`${name}: repository needs url and directory packages/<folder>`)
  }
  if ((manifest.engines as { node?: string } | undefined)?.node !== ">=20.11") {
    problems.push(`${name}: engines.node is not >=20.11`)
  }
  const files = manifest.files ?? []
  if (files.length === 0) problems.push(`${name}: no files list`)
  if (files.some((file) => file === "src" || file.startsWith("src/"))) problems.push(`${name}: files ship src/`)
  if (files.includes("dist") && !files.includes("!dist/.tsbuildinfo")) {
    problems.push(`${name}: files ship dist/.tsbuildinfo`)
  }
  return problems
}
