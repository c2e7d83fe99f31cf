/**
 * A prebuilt-binary mirror on loopback, as a team behind a firewall runs one: native packages that
 * fetch their binary with `prebuild-install` (better-sqlite3) read the mirror from npm's config
 * (`npm_config_<package>_binary_host_mirror`) and download
 * `MIRROR/v<version>/<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz` instead of asking
 * GitHub, which these machines cannot reach. Without a binary, the install compiles from source
 * (a minute and a half of both cores on Node 20, per install).
 *
 * The mirror serves what the workspace already has: its own install of the package, built for
 * the Node running the tests, packed as prebuild-install's tarball (`build/Release/NAME.node`).
 * It holds the workspace's version for that Node's ABI only (a binary that this Node cannot load,
 * one built for another Node, is left out); any other version or ABI gets a 404, and the install
 * compiles, as it would behind a firewall without a mirror.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { run } from "./Workspace.js"

/** A running mirror. */
export interface BinaryMirror {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  /** The environment that points an install at the mirror (npm hands it to the install script). */
  readonly env: Record<string, string>
  /** What it serves (`/v12.11.1/better-sqlite3-v12.11.1-node-v115-linux-x64.tar.gz`). */
  readonly paths: ReadonlyArray<string>
  /** How many times each path was fetched. */
  readonly served: () => Readonly<Record<string, number>>
  readonly stop: () => Promise<void>
}

/** One native package of the workspace: its name, and a module of the workspace that depends on it. */
export interface NativePackage {
  readonly name: string
  /** The `.node` file's name in `build/Release/`. */
  readonly binary: string
  /** A file inside a workspace package that has the native package among its dependencies. */
  readonly from: string
}

/** Whether this Node loads an addon (built for its ABI: else `NODE_MODULE_VERSION` refuses it). */
const loads = (file: string): boolean => {
  try {
    createRequire(import.meta.url)(file)
    return true
  } catch {
    return false
  }
}

/** prebuild-install's name for a package's tarball: `NAME-vVERSION-node-vABI-PLATFORM-ARCH.tar.gz` (glibc). */
export const prebuildPath = (name: string, version: string, abi: string = process.versions.modules): string =>
  `/v${version}/${name}-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`

/** npm's config key for a package's mirror, as an environment variable (`npm_config_better_sqlite3_binary_host_mirror`). */
export const mirrorVariable = (name: string): string =>
  `npm_config_${name.replace(/[^a-zA-Z0-9]/g, "_").replace(/^_/, "")}_binary_host_mirror`

/**
 * Packs each package's built binary (from the workspace's install, for this Node) into `dir` and
 * serves them on loopback. A package without a built binary is left out (its installs compile).
 */
export const startBinaryMirror = async (
  dir: string,
  natives: ReadonlyArray<NativePackage>
): Promise<BinaryMirror> => {
  const files = new Map<string, string>()
  for (const native of natives) {
    const manifest = createRequire(native.from).resolve(`${native.name}/package.json`)
    const root = dirname(manifest)
    const version: string = JSON.parse(readFileSync(manifest, "utf8")).version
    const binary = join("build", "Release", native.binary)
    if (!existsSync(join(root, binary)) || !loads(join(root, binary))) continue
    const path = prebuildPath(native.name, version)
    const tarball = join(dir, path.slice(1))
    mkdirSync(dirname(tarball), { recursive: true })
    await run("tar", ["czf", tarball, "-C", root, binary], { cwd: root })
    files.set(path, tarball)
  }
  const counts: Record<string, number> = {}
  const server: Server = createServer((request, response) => {
    const file = files.get(request.url ?? "")
    if (request.method !== "GET" || file === undefined) {
      response.writeHead(404).end()
      return
    }
    counts[request.url!] = (counts[request.url!] ?? 0) + 1
    const body = readFileSync(file)
    response.writeHead(200, { "content-type": "application/gzip", "content-length": body.length }).end(body)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error(`the mirror has no port: ${String(address)}`)
  const url = `http://127.0.0.1:${address.port}`
  return {
    url,
    env: Object.fromEntries(natives.map(({ name }) => [mirrorVariable(name), url])),
    paths: [...files.keys()],
    served: () => ({ ...counts }),
    stop: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
