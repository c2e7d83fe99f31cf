/**
 * A throwaway npm registry on loopback: Verdaccio (pinned in this package's devDependencies) as a
 * child process, with its storage in a temporary folder. `@branchlog/*` lives only here (never
 * proxied); every other package is proxied from the npm registry the machine is set up with.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"

/** A running registry. */
export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string
  /** A token that may publish `@branchlog/*`. */
  readonly token: string
  /** An npm user config (`npm_config_userconfig`) pointing npm at this registry, with the token. */
  readonly npmrc: string
  /** Everything Verdaccio printed (for failure messages). */
  readonly log: () => string
  /** Stops the registry (and waits for its exit). */
  readonly stop: () => Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(address))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts Verdaccio in `dir` (storage, config, htpasswd), proxying other packages from `uplink`;
 * `cafile` (npm's own, when the machine's npm config names one) is the extra CA Verdaccio trusts
 * when it fetches from the uplink, as npm would.
 */
export const startRegistry = async (
  dir: string,
  uplink: string,
  options: { readonly cafile?: string | undefined; readonly timeoutMs?: number } = {}
): Promise<Registry> => {
  const timeoutMs = options.timeoutMs ?? 180_000
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  mkdirSync(join(dir, "storage"), { recursive: true })
  const config = join(dir, "config.yaml")
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      `plugins: ${JSON.stringify(join(dir, "plugins"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "    max_users: 10",
      "uplinks:",
      "  npmjs:",
      `    url: ${JSON.stringify(uplink)}`,
      "    timeout: 120s",
      "    max_fails: 20",
      "    maxage: 30m",
      "packages:",
      "  \"@branchlog/*\":",
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      "  \"**\":",
      "    access: $all",
      "    publish: $authenticated",
      "    proxy: npmjs",
      "max_body_size: 200mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "web:",
      "  enable: false",
      ""
    ].join("\n")
  )
  const bin = join(import.meta.dirname, "..", "node_modules", "verdaccio", "bin", "verdaccio")
  let output = ""
  const child: ChildProcess = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      ...(process.env.NODE_EXTRA_CA_CERTS === undefined && options.cafile !== undefined
        ? { NODE_EXTRA_CA_CERTS: options.cafile }
        : {})
    }
  })
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await Promise.race([exited, sleep(10_000)])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${output}`)
    try {
      const response = await fetch(`${url}-/ping`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`verdaccio did not answer on ${url} within ${timeoutMs} ms:\n${output}`)
    }
    await sleep(250)
  }
  // a user (htpasswd) and its token, the way `npm adduser` makes one
  const response = await fetch(`${url}-/user/org.couchdb.user:release`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release", password: "release-check", email: "release@example.invalid" })
  })
  const body = await response.json() as { token?: string }
  if (!response.ok || typeof body.token !== "string") {
    await stop()
    throw new Error(`could not add a user to verdaccio (${response.status}): ${JSON.stringify(body)}\n${output}`)
  }
  const npmrc = join(dir, "npmrc")
  writeFileSync(
    npmrc,
    [`registry=${url}`, `//127.0.0.1:${port}/:_authToken=${body.token}`, "fund=false", "audit=false", ""].join("\n")
  )
  return { url, token: body.token, npmrc, log: () => output, stop }
}
