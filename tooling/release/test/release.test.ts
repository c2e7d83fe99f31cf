// The release, end to end, against a real registry: a temporary copy of the workspace gets
// `changeset version`; every public package is packed (pnpm: publishConfig, workspace ranges),
// its tarball checked (publint, attw, no build info, no sources, LICENSE) and published to a
// throwaway Verdaccio on loopback. Then, in fresh folders outside the workspace, as a new team
// would: `@branchlog/session-store` alone (its size measured); an app on its own effect (one patch
// below the workspace's pin, then the latest 3.x) that type-checks and runs the README's example
// and test with one copy of effect; session-core's README example; and `npm i -g @branchlog/cli`
// into a prefix, then `branchlog --version` and `branchlog demo`.
//
// Slow (installs from the registry, proxied through Verdaccio): each step has a wide timeout.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
const packages: Array<CopiedPackage & { readonly tarball: string; readonly published: Record<string, any> }> = []
const sizes: Record<string, string> = {}

/** npm against the throwaway registry (its own cache folder unless the machine's is wanted). */
const npm = (args: ReadonlyArray<string>, cwd: string, allowFailure = false) =>
  run("npm", args, {
    cwd,
    allowFailure,
    env: cleanEnv({
      npm_config_userconfig: registry!.npmrc,
      npm_config_registry: registry!.url,
      npm_config_prefer_online: "true"
    })
  })

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
 */
const inferredExports = [
  `import * as Effect from "effect/Effect"`,
  `import { SessionCatalog, SessionManager, TranscriptStore } from "@branchlog/session-store"`,
  `export const open = (path: string) => SessionManager.open(path)`,
  `export const create = () => SessionManager.create("/work")`,
  `export const recent = () => SessionManager.continueRecent("/work")`,
  `export const fork = (path: string) => SessionManager.forkFrom(path, "/elsewhere")`,
  `export const write = (path: string) =>`,
  `  Effect.flatMap(SessionManager.open(path), (sm) => sm.withWriteLock(Effect.zip(sm.flush(), sm.branch("x"))))`,
  `export const list = () => SessionCatalog.list("/work")`,
  `export const stored = Effect.flatMap(TranscriptStore.TranscriptStore, (store) => store.list({}))`,
  ``
].join("\n")

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
}, minutes(5))

afterAll(async () => {
  await registry?.stop()
  console.log(`release check sizes: ${JSON.stringify(sizes)}`)
  if (!keep) rmSync(temp, { recursive: true, force: true })
  else console.log(`release check folder kept: ${temp}`)
}, minutes(2))

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

  it("installs @branchlog/session-store alone: one copy of effect, no internal module reachable", async () => {
    const dir = freshProject("store-alone")
    await npm(["install", "@branchlog/session-store"], dir)
    const effect = await copiesOf(dir, "effect")
    expect(effect.length, JSON.stringify(effect)).toBe(1)
    const size = installedSize(join(dir, "node_modules"))
    sizes["session-store alone"] = `${megabytes(size.bytes)}, ${size.packages} packages`
    expect(size.packages).toBeLessThan(10)
    const deep = await run(process.execPath, [
      "--input-type=module",
      "-e",
      "await import('@branchlog/session-store/internal/nodeBackend')"
    ], { cwd: dir, allowFailure: true })
    expect(deep.status).not.toBe(0)
    expect(deep.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED")
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
        const examples = readmeExamples(join(workspace, "packages/session-store/README.md"))
        expect([...examples.keys()]).toEqual(["main.ts", "test/transcript.test.ts"])
        writeFiles(dir, examples)
        writeFiles(dir, { "tsconfig.json": appTsconfig, "exports.ts": inferredExports })
        await npm([
          "install",
          "--save-exact",
          "@branchlog/session-store",
          `effect@${effectVersion}`,
          "typescript@5.9.3",
          "@types/node@20.19.43",
          "vitest@3.2.7",
          "@effect/vitest@0.30.0"
        ], dir)
        const effect = await copiesOf(dir, "effect")
        expect(effect.length, JSON.stringify(effect)).toBe(1)
        if (effectVersion !== "^3") expect(effect[0]!.version).toBe(effectVersion)
        await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: dir })
        const main = await run(process.execPath, ["dist/main.js"], { cwd: dir })
        expect(main.stdout).toContain("true demo 1")
        expect(main.stdout).toMatch(/<- leaf/)
        const tests = await run(process.execPath, [join(dir, "node_modules/vitest/vitest.mjs"), "run"], {
          cwd: dir,
          env: cleanEnv({ NO_COLOR: "1", FORCE_COLOR: "0" })
        })
        expect(tests.stdout).toMatch(/Test Files\s+1 passed \(1\)/)
        expect(tests.stdout).toMatch(/Tests\s+1 passed \(1\)/)
      },
      minutes(15)
    )
  }

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

/** A file inside an installed package of this package's node_modules. */
function packageFile(name: string, file: string): string {
  return join(import.meta.dirname, "..", "node_modules", name, file)
}
