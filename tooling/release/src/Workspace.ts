/**
 * The release steps on a temporary copy of the workspace: copy what a release needs (manifests,
 * READMEs, LICENSEs, CHANGELOGs, the built `dist/`, the changesets), run `changeset version` there,
 * pack every public package with pnpm (which writes `publishConfig` and turns `workspace:^` into
 * ranges), and helpers to run commands with a clean environment and measure installs.
 */
import { spawn, spawnSync } from "node:child_process"
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs"
import { join } from "node:path"

/** The pinned pnpm (the root package.json's `packageManager`). */
export const pnpmVersion = "12.4.2"

/**
 * The environment for child commands: the caller's, less npm's and pnpm's per-script variables and
 * `NODE_PATH` (pnpm's bin shims point it at the workspace's hoisted packages: a fresh folder would
 * resolve better-sqlite3 and the rest from there).
 */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|NPM_|PNPM_|pnpm_|INIT_CWD$|NODE_OPTIONS$|NODE_PATH$|VITEST|TEST$)/.test(key)) continue
    env[key] = value
  }
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", ...extra }
}

/** The result of one command. */
export interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a command to its end (no shell, never blocking the event loop: vitest's worker must keep
 * answering); rejects with its output unless it exits 0 (or `allowFailure`).
 */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env?: NodeJS.ProcessEnv
    readonly allowFailure?: boolean
    readonly timeoutMs?: number
  }
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 900_000)
    child.once("error", (error) => {
      clearTimeout(timer)
      reject(new Error(`${command} ${args.join(" ")} (in ${options.cwd}) could not start: ${error.message}`))
    })
    child.once("close", (status, signal) => {
      clearTimeout(timer)
      const ran = { status, stdout, stderr }
      if (status === 0 || options.allowFailure === true) return resolve(ran)
      reject(
        new Error(
          `${command} ${args.join(" ")} (in ${options.cwd}) exited with ${status ?? signal}\n--- stdout\n${
            stdout.slice(-20_000)
          }\n--- stderr\n${stderr.slice(-20_000)}`
        )
      )
    })
  })

/** The pnpm command: `pnpm` when the one on PATH is the pinned version, else `npx -y pnpm@<pin>`. */
export const pnpmCommand = (cwd: string): [string, Array<string>] => {
  const onPath = spawnSync("pnpm", ["--version"], { cwd, encoding: "utf8", env: cleanEnv() })
  return onPath.status === 0 && onPath.stdout.trim() === pnpmVersion
    ? ["pnpm", []]
    : ["npx", ["-y", `pnpm@${pnpmVersion}`]]
}

/** A public package of the copy: its folder and manifest. */
export interface CopiedPackage {
  readonly dir: string
  readonly folder: string
  readonly manifest: Record<string, any>
}

/** Copies the release's inputs of the workspace at `root` into `to` (no node_modules, no sources). */
export const copyWorkspace = (root: string, to: string): void => {
  mkdirSync(to, { recursive: true })
  for (const file of ["package.json", "pnpm-workspace.yaml", "LICENSE"]) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(to, file))
  }
  cpSync(join(root, ".changeset"), join(to, ".changeset"), { recursive: true })
  for (const folder of ["tooling", "tooling/release"]) {
    mkdirSync(join(to, folder), { recursive: true })
    cpSync(join(root, folder, "package.json"), join(to, folder, "package.json"))
  }
  for (const name of readdirSync(join(root, "packages"))) {
    const from = join(root, "packages", name)
    if (!existsSync(join(from, "package.json"))) continue
    const dest = join(to, "packages", name)
    mkdirSync(dest, { recursive: true })
    for (const file of ["package.json", "README.md", "LICENSE", "CHANGELOG.md"]) {
      if (existsSync(join(from, file))) cpSync(join(from, file), join(dest, file))
    }
    if (existsSync(join(from, "dist"))) cpSync(join(from, "dist"), join(dest, "dist"), { recursive: true })
  }
}

/**
 * Links each copied package's `workspace:` dependencies into its node_modules (what `pnpm install`
 * would do for them), so that `pnpm pack` can turn `workspace:^` into the versions they have now.
 */
export const linkWorkspaceDependencies = (root: string): void => {
  const folders = [
    ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name)),
    join(root, "tooling"),
    join(root, "tooling", "release")
  ].filter((dir) => existsSync(join(dir, "package.json")))
  const byName = new Map(folders.map((dir) => [JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir]))
  for (const dir of folders) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      if (!String(range).startsWith("workspace:") || !byName.has(name)) continue
      const link = join(dir, "node_modules", name)
      if (existsSync(link)) continue
      mkdirSync(join(link, ".."), { recursive: true })
      symlinkSync(byName.get(name)!, link, "dir")
    }
  }
}

/** The public packages of a (copied) workspace. */
export const publicPackagesOf = (root: string): Array<CopiedPackage> =>
  readdirSync(join(root, "packages"))
    .map((folder) => ({ folder, dir: join(root, "packages", folder) }))
    .filter(({ dir }) => existsSync(join(dir, "package.json")))
    .map(({ dir, folder }) => ({ dir, folder, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)

/** Bytes and package count of an installed `node_modules` tree (symlinks not followed). */
export const installedSize = (nodeModules: string): { readonly bytes: number; readonly packages: number } => {
  let bytes = 0
  let packages = 0
  const walk = (dir: string, inNodeModules: boolean) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stat = lstatSync(path)
      if (stat.isSymbolicLink()) continue
      if (stat.isDirectory()) {
        if (inNodeModules && !name.startsWith("@") && !name.startsWith(".") && existsSync(join(path, "package.json"))) {
          packages += 1
        }
        walk(path, name === "node_modules" || (inNodeModules && name.startsWith("@")))
      } else {
        bytes += stat.size
      }
    }
  }
  walk(nodeModules, true)
  return { bytes, packages }
}

/** One installed package of a project: where it is, its name and version, whether its install built a native addon. */
export interface InstalledPackage {
  readonly path: string
  readonly name: string
  readonly version: string
  /**
   * An addon in its `build/Release/` (compiled by node-gyp, or a prebuilt binary fetched for the
   * Node that ran the install, as better-sqlite3's): tied to that Node's ABI. An N-API prebuild
   * shipped in the package (`prebuilds/`) serves every Node and does not count.
   */
  readonly native: boolean
}

/**
 * Every package installed in a project's `node_modules`, nested copies included (what
 * `npm ls --all --parseable` lists, without starting npm: the release check asks about 40 times).
 */
export const installedPackages = (project: string): Array<InstalledPackage> => {
  const found: Array<InstalledPackage> = []
  const visit = (nodeModules: string) => {
    if (!existsSync(nodeModules)) return
    for (const name of readdirSync(nodeModules)) {
      if (name.startsWith(".")) continue
      const path = join(nodeModules, name)
      if (name.startsWith("@")) {
        for (const scoped of readdirSync(path)) visitPackage(join(path, scoped))
      } else {
        visitPackage(path)
      }
    }
  }
  const visitPackage = (path: string) => {
    if (lstatSync(path).isSymbolicLink() || !existsSync(join(path, "package.json"))) return
    const manifest = JSON.parse(readFileSync(join(path, "package.json"), "utf8"))
    const built = join(path, "build", "Release")
    found.push({
      path,
      name: manifest.name,
      version: manifest.version,
      native: existsSync(built) && readdirSync(built).some((file) => file.endsWith(".node"))
    })
    visit(join(path, "node_modules"))
  }
  visit(join(project, "node_modules"))
  return found
}

/** `123.4 MB` */
export const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(1)} MB`
