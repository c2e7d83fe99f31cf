// The release, end to end, against a real registry: a temporary copy of the workspace gets
// `changeset version`; every public package is packed (pnpm: publishConfig, workspace ranges),
// its tarball checked (publint, attw, no build info, no sources, LICENSE) and published to a
// throwaway Verdaccio on loopback. Then, in fresh folders outside the workspace, as a new team
// would: `@branchlog/session-store` alone (its size measured, no store package pulled in);
// `npm i -g @branchlog/cli` into a prefix, then `branchlog --version` and `branchlog demo`; and
// every package's README (its install lines, its examples and their test) on Node 20.15, 22 and
// 24, with npm's latest effect 3 and in an app that pins effect.
//
// Slow (installs from the registry, proxied through Verdaccio): each step has a wide timeout.
import { nodeBinary } from "@branchlog/tooling/nodes"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { availableParallelism } from "node:os"
import { join, resolve } from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BinaryMirror, startBinaryMirror } from "../src/BinaryMirror.js"
import {
  freshProject as freshProjectIn,
  type MatrixNode,
  matrixNode,
  readmeMatrix,
  refusesDeepImport
} from "../src/ReadmeMatrix.js"
import { type Registry, startRegistry } from "../src/Registry.js"
import {
  cleanEnv,
  type CopiedPackage,
  copyWorkspace,
  installedPackages,
  installedSize,
  linkWorkspaceDependencies,
  megabytes,
  pnpmCommand,
  publicPackagesOf,
  run
} from "../src/Workspace.js"

const workspace = resolve(import.meta.dirname, "..", "..", "..")
const minutes = (n: number) => n * 60_000
const temp = realpathSync(mkdtempSync(join(tmpdir(), "branchlog-release-")))
const copy = join(temp, "workspace")
const tarballs = join(temp, "tarballs")
const keep = process.env.BRANCHLOG_RELEASE_KEEP === "1"

const effectPin: string = JSON.parse(readFileSync(join(workspace, "packages/session-core/package.json"), "utf8"))
  .devDependencies.effect
const onePatchBelow = (version: string) => {
  const [major, minor, patch] = version.split(".").map(Number) as [number, number, number]
  return `${major}.${minor}.${patch - 1}`
}

let registry: Registry | undefined
let mirror: BinaryMirror | undefined
const packages: Array<CopiedPackage & { readonly tarball: string; readonly published: Record<string, any> }> = []
const sizes: Record<string, string> = {}

/**
 * npm's settings against the throwaway registry: a cache of this run's own, trusted without asking
 * again (`prefer-offline`). The run's registry is new (its storage, its port): nothing of another
 * run can be in this cache, and within a run a package is published before any install reads it.
 * Each install asking the registry again about every package (`prefer-online` over the machine's
 * cache) had Verdaccio serve the same documents (typescript's, vitest's, …) to every one of the
 * release check's ~40 installs, a good part of its CPU.
 */
const npmConfig = () => ({
  npm_config_userconfig: registry!.npmrc,
  npm_config_registry: registry!.url,
  npm_config_cache: join(temp, "npm-cache"),
  npm_config_prefer_offline: "true"
})

/** npm against the throwaway registry. */
const npm = (args: ReadonlyArray<string>, cwd: string, allowFailure = false) =>
  run("npm", args, { cwd, allowFailure, env: cleanEnv(npmConfig()) })

/**
 * A module of an app that exports what the public factories return, types inferred: with
 * `declaration: true`, tsc must name every type through public entries (TS2742 otherwise).
 * session-store's, for an app that installs session-store alone (no store package).
 */
const inferredExports = [
  `import * as Effect from "effect/Effect"`,
  `import { SessionManager, TranscriptStore } from "@branchlog/session-store"`,
  `export const open = (path: string) => SessionManager.open(path)`,
  `export const create = () => SessionManager.create("/work")`,
  `export const recent = () => SessionManager.continueRecent("/work")`,
  `export const fork = (path: string) => SessionManager.forkFrom(path, "/elsewhere")`,
  `export const write = (path: string) =>`,
  `  Effect.flatMap(SessionManager.open(path), (sm) => sm.withWriteLock(Effect.zip(sm.flush(), sm.branch("x"))))`,
  `export const stored = Effect.flatMap(TranscriptStore.TranscriptStore, (store) => store.list({}))`,
  ``
].join("\n")

/**
 * The same for an app of `@branchlog/store-jsonl`: its listings, layers, router and repair (whose
 * types are declared in the public `Repair` modules, so tsc can name them: TS2742 otherwise).
 */
const inferredJsonlExports = [
  `import * as Effect from "effect/Effect"`,
  `import { SessionManager } from "@branchlog/session-store"`,
  `import { Repair, SessionCatalog, SessionStore, StoreRouter } from "@branchlog/store-jsonl"`,
  `export const list = () => SessionCatalog.list("/work")`,
  `export const recent = (dir: string) => SessionCatalog.findMostRecent(dir)`,
  `export const files = SessionStore.layerNode`,
  `export const routed = StoreRouter.layerNode([])`,
  `export const resumed = (path: string) => Effect.provide(SessionManager.resume(path), SessionStore.layerNode)`,
  `export const checked = (path: string) => Repair.check(path)`,
  `export const repaired = (path: string) => Repair.repair(path, { cwd: "/work" })`,
  ``
].join("\n")

/** A fresh npm project in the temporary folder (outside the workspace). */
const freshProject = (name: string) => freshProjectIn(temp, name)

/** Every installed copy of a package in a project. */
const copiesOf = (dir: string, name: string) => installedPackages(dir).filter((installed) => installed.name === name)

beforeAll(async () => {
  mkdirSync(tarballs, { recursive: true })
  const npmConfig = async (key: string) => {
    const value = (await run("npm", ["config", "get", key], { cwd: temp })).stdout.trim()
    return value === "" || value === "null" || value === "undefined" ? undefined : value
  }
  const uplink = (await npmConfig("registry")) ?? "https://registry.npmjs.org/"
  registry = await startRegistry(join(temp, "verdaccio"), uplink, { cafile: await npmConfig("cafile") })
  // the registry reaches its uplink (or every install below would fail with a 404)
  const effect = await fetch(`${registry.url}effect`)
  if (!effect.ok) throw new Error(`verdaccio cannot fetch effect from ${uplink} (${effect.status}):\n${registry.log()}`)
  // better-sqlite3's binary for the Node 20 cells, from the workspace's own build (see BinaryMirror)
  mirror = await startBinaryMirror(join(temp, "binaries"), [
    {
      name: "better-sqlite3",
      binary: "better_sqlite3.node",
      from: join(workspace, "packages/store-sqlite/package.json")
    }
  ])
}, minutes(5))

afterAll(async () => {
  await registry?.stop()
  await mirror?.stop()
  console.log(
    `release check binary mirror: served ${JSON.stringify(mirror?.served())} of ${JSON.stringify(mirror?.paths)}`
  )
  console.log(`release check sizes: ${JSON.stringify(sizes)}`)
  if (!keep) rmSync(temp, { recursive: true, force: true })
  else console.log(`release check folder kept: ${temp}`)
}, minutes(6))

describe.sequential("the release", async () => {
  it("changeset version on a copy of the workspace bumps the packages its changesets name", async () => {
    for (const { dir } of publicPackagesOf(workspace)) {
      expect(existsSync(join(dir, "dist", "index.js")) || existsSync(join(dir, "dist", "bin.js")), `${dir} is built`)
        .toBe(true)
    }
    copyWorkspace(workspace, copy)
    await run(process.execPath, [join(workspace, "node_modules/@changesets/cli/bin.js"), "version"], { cwd: copy })
    linkWorkspaceDependencies(copy)
    for (const { folder, manifest } of publicPackagesOf(copy)) {
      expect(manifest.version, folder).not.toBe("0.0.0")
      expect(readFileSync(join(copy, "packages", folder, "CHANGELOG.md"), "utf8")).toContain(`## ${manifest.version}`)
    }
  }, minutes(5))

  it("packs every public package into a tarball with no build info, no sources, no internal exports", async () => {
    const [pnpm, pnpmArgs] = pnpmCommand(copy)
    for (const pkg of publicPackagesOf(copy)) {
      const out = (await run(pnpm, [...pnpmArgs, "pack", "--pack-destination", tarballs], { cwd: pkg.dir })).stdout
      const tarball = out.trim().split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".tgz")).at(-1)!
      expect(tarball, out).toBeDefined()
      const files = (await run("tar", ["tzf", tarball], { cwd: temp })).stdout.split("\n").filter((line) => line !== "")
      const published = JSON.parse(
        (await run("tar", ["xzf", tarball, "-O", "package/package.json"], { cwd: temp })).stdout
      )
      expect(files, pkg.folder).toContain("package/LICENSE")
      expect(files, pkg.folder).toContain("package/README.md")
      expect(files.filter((file) => file.endsWith(".tsbuildinfo")), pkg.folder).toEqual([])
      expect(files.filter((file) => file.startsWith("package/src/")), pkg.folder).toEqual([])
      expect(files.filter((file) => file.endsWith(".d.ts.map")), pkg.folder).toEqual([])
      // what resolution reads has no source condition (scripts and devDependencies are not read by installs)
      const resolution = JSON.stringify([published.exports, published.imports, published.main, published.types])
      expect(resolution, pkg.folder).not.toContain("@branchlog/source")
      expect(resolution, pkg.folder).not.toContain("/src/")
      expect(JSON.stringify(published), pkg.folder).not.toContain("workspace:")
      expect(published.private, pkg.folder).toBeUndefined()
      for (const [name, range] of Object.entries<string>(published.dependencies ?? {})) {
        if (!name.startsWith("@branchlog/")) continue
        const version = publicPackagesOf(copy).find(({ manifest }) => manifest.name === name)!.manifest.version
        expect(range, `${pkg.folder} → ${name}`).toBe(`^${version}`)
      }
      if (published.bin === undefined) {
        expect(published.exports["./internal/*"], pkg.folder).toBeNull()
      } else {
        // the command ships its bundle: no runtime dependency, nothing but node: built-ins imported
        expect(published.dependencies ?? {}, pkg.folder).toEqual({})
        // but optional peers: a native module the bundle cannot hold (npm does not install them)
        for (const name of Object.keys(published.peerDependencies ?? {})) {
          expect(published.peerDependenciesMeta?.[name]?.optional, `${pkg.folder}: peer ${name}`).toBe(true)
        }
        expect(
          files.filter((file) =>
            !/^package\/(dist\/bin(-chunk-[\w-]+)?\.js|README\.md|LICENSE|package\.json)$/.test(file)
          )
        )
          .toEqual([])
        const extracted = join(temp, "bundle-check")
        mkdirSync(extracted, { recursive: true })
        await run("tar", ["xzf", tarball, "-C", extracted], { cwd: temp })
        for (const file of files.filter((file) => file.endsWith(".js"))) {
          const code = readFileSync(join(extracted, file), "utf8")
          // TypeScript's pre-processor reads JavaScript too: static and dynamic imports, require calls
          // bare specifiers only for the optional peers (a storage backend's native driver, loaded on demand)
          const peers = Object.keys(published.peerDependencies ?? {})
          const bare = ts.preProcessFile(code, true, true).importedFiles.map(({ fileName }) => fileName)
            .filter((specifier) =>
              !specifier.startsWith(".") && !specifier.startsWith("node:") && !peers.includes(specifier)
            )
          expect(bare, file).toEqual([])
        }
      }
      packages.push({ ...pkg, tarball, published })
    }
    expect(packages.map(({ manifest }) => manifest.name)).not.toContain("@branchlog/tooling")
    expect(packages.length).toBeGreaterThanOrEqual(5)
  }, minutes(10))

  it("publint and arethetypeswrong find nothing in any tarball", async () => {
    const publint = packageFile(
      "publint",
      JSON.parse(readFileSync(packageFile("publint", "package.json"), "utf8")).bin.publint
    )
    const attw = packageFile(
      "@arethetypeswrong/cli",
      JSON.parse(readFileSync(packageFile("@arethetypeswrong/cli", "package.json"), "utf8")).bin.attw
    )
    for (const { tarball, folder } of packages) {
      const extracted = join(temp, "lint", folder)
      mkdirSync(extracted, { recursive: true })
      await run("tar", ["xzf", tarball, "-C", extracted, "--strip-components=1"], { cwd: temp })
      const lint = await run(process.execPath, [
        publint,
        extracted,
        "--pack",
        "false",
        "--level",
        "suggestion",
        "--strict"
      ], {
        cwd: temp,
        allowFailure: true
      })
      expect(lint.status, `${folder}: publint\n${lint.stdout}${lint.stderr}`).toBe(0)
      const types = await run(process.execPath, [attw, tarball, "--profile", "esm-only", "--format", "ascii"], {
        cwd: temp,
        allowFailure: true
      })
      expect(types.status, `${folder}: attw\n${types.stdout}${types.stderr}`).toBe(0)
    }
  }, minutes(10))

  it("publishes every public package to the loopback registry", async () => {
    expect(packages.length).toBe(publicPackagesOf(copy).length)
    for (const { tarball, manifest } of packages) {
      await npm(["publish", tarball, "--access", "public", "--tag", "latest"], temp)
      const seen = (await npm(["view", `${manifest.name}@${manifest.version}`, "version"], temp)).stdout.trim()
      expect(seen).toBe(manifest.version)
    }
  }, minutes(10))

  it("a patch changeset to session-core alone bumps session-core and nothing else", async () => {
    const before = new Map(publicPackagesOf(copy).map(({ manifest }) => [manifest.name, manifest.version]))
    writeFileSync(
      join(copy, ".changeset", "release-check-core-patch.md"),
      "---\n\"@branchlog/session-core\": patch\n---\n\nA fix.\n"
    )
    await run(process.execPath, [join(workspace, "node_modules/@changesets/cli/bin.js"), "version"], { cwd: copy })
    const after = new Map(publicPackagesOf(copy).map(({ manifest }) => [manifest.name, manifest.version]))
    const [major, minor, patch] = before.get("@branchlog/session-core")!.split(".").map(Number) as [
      number,
      number,
      number
    ]
    expect(after.get("@branchlog/session-core")).toBe(`${major}.${minor}.${patch + 1}`)
    for (const [name, version] of before) {
      if (name !== "@branchlog/session-core") expect(after.get(name), name).toBe(version)
    }
  }, minutes(5))

  it("installs @branchlog/session-store alone: one effect, no store package, no internal module", async () => {
    const dir = freshProject("store-alone")
    await npm(["install", "@branchlog/session-store"], dir)
    const effect = copiesOf(dir, "effect")
    expect(effect.length, JSON.stringify(effect)).toBe(1)
    // the storage interface alone: the JSONL backend (and every other store) is a package of its own
    expect(copiesOf(dir, "@branchlog/store-jsonl")).toEqual([])
    const size = installedSize(join(dir, "node_modules"))
    sizes["session-store alone"] = `${megabytes(size.bytes)}, ${size.packages} packages`
    expect(size.packages).toBeLessThan(10)
    // a module that is in dist (so only the exports map refuses it)
    expect(existsSync(join(dir, "node_modules/@branchlog/session-store/dist/internal/manager/core.js"))).toBe(true)
    await refusesDeepImport(dir, "@branchlog/session-store/internal/manager/core")
    const publicModule = await run(process.execPath, [
      "--input-type=module",
      "-e",
      "const m = await import('@branchlog/session-store/SessionManager'); console.log(typeof m.create)"
    ], { cwd: dir })
    expect(publicModule.stdout.trim()).toBe("function")
  }, minutes(10))

  it("npm i -g @branchlog/cli installs one package; branchlog --version and demo run", async () => {
    const prefix = join(temp, "global")
    await npm(["install", "--global", "--prefix", prefix, "@branchlog/cli"], temp)
    const installed = join(prefix, "lib", "node_modules")
    const size = installedSize(installed)
    sizes["cli global"] = `${megabytes(size.bytes)}, ${size.packages} packages`
    expect(size.packages).toBe(1)
    const cli = packages.find(({ manifest }) => manifest.name === "@branchlog/cli")!
    const bin = join(prefix, "bin", "branchlog")
    const version = (await run(bin, ["--version"], { cwd: temp })).stdout.trim()
    expect(version).toBe(cli.manifest.version)
    const demoDir = join(temp, "demo")
    const demo = await run(bin, ["demo", "--dir", demoDir], { cwd: temp })
    expect(demo.stdout).toContain("6. forked")
    expect(demo.stdout).toContain("◀ leaf")
  }, minutes(10))
})

/**
 * Every public package as its README says, on Node 20.15, 22 and 24 (src/ReadmeMatrix.ts): each
 * library with npm's latest effect 3 on every Node and in an app that pins effect (one patch below
 * the workspace's) on the last; the CLI on every Node. Two tasks at a time (the machines have two
 * cores): a library (all its Nodes and both effects) or the CLI on one Node.
 */
const nodeVersions = ["20.15", "22", "24.22.3"] as const
const timings: Array<string> = []

/** Runs tasks `limit` at a time; every task runs, the failures are collected with their names. */
const pool = async (tasks: ReadonlyArray<readonly [string, () => Promise<void>]>, limit: number) => {
  const failures: Array<string> = []
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const [name, task] = tasks[next++]!
      const started = Date.now()
      try {
        await task()
        timings.push(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`)
      } catch (error) {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 6000))
      }
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  return failures
}

// the matrix runs its own Node binaries, whatever Node runs the suite: CI's second pass (the suite on
// Node 24) sets BRANCHLOG_RELEASE_MATRIX=once-done to run it once, not twice
describe.skipIf(process.env.BRANCHLOG_RELEASE_MATRIX === "once-done")(
  "every README's install lines and examples, on Node 20.15, 22 and 24",
  () => {
    it(
      "each library with npm's latest effect 3 on every Node and in an app that pins effect on the last; the CLI on every Node",
      async () => {
        const nodes: Array<MatrixNode> = []
        for (const version of nodeVersions) nodes.push(await matrixNode(version, await nodeBinary(version), temp))
        const matrix = readmeMatrix({
          workspace,
          temp,
          keep,
          npmEnv: { ...npmConfig(), ...mirror!.env },
          effectPinned: onePatchBelow(effectPin),
          typeCheckOnly: new Set(["store-postgres"]),
          strictApps: { "session-core": "", "session-store": inferredExports, "store-jsonl": inferredJsonlExports },
          tested: new Set(["session-store", "store-jsonl"]),
          printed: {
            "session-core": ["entries: 3"],
            "session-store": ["true demo 1", /<- leaf/],
            // the sidecar index the resume built, beside the session, and the folder's catalog
            "store-jsonl": ["written yet? false", "true demo 1", /\.jsonl\.index'/, ".branchlog-catalog.json"]
          }
        })
        const libraries = packages.filter(({ published }) => published.bin === undefined).map(({ folder }) => folder)
        const failures = await pool([
          ...libraries.map((folder) => [folder, () => matrix.library(folder, nodes)] as const),
          ...nodes.map((node) => [`cli on Node ${node.version}`, () => matrix.cli(node)] as const)
        ], Math.max(1, Math.min(2, availableParallelism())))
        expect(failures, failures.join("\n\n")).toEqual([])
      },
      minutes(60)
    )
  }
)

afterAll(() => console.log(`release check README cells:\n${timings.join("\n")}`))

/** A file inside an installed package of this package's node_modules. */
function packageFile(name: string, file: string): string {
  return join(import.meta.dirname, "..", "node_modules", name, file)
}
