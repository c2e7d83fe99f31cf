/**
 * Loads a CommonJS bundle of the executable with V8's code cache (what Node ≥ 22.1's compile cache
 * does for modules, which Node 20 lacks): the code compiled on a run is kept in a file, and the next
 * run takes it instead of compiling the bundle again. The cache lives in `BRANCHLOG_COMPILE_CACHE` or
 * `$TMPDIR/branchlog-compile-cache-<uid>`, a folder used only when it is this user's alone (mode
 * 0700), apart from Node's own compile cache (`NODE_COMPILE_CACHE`, which Node >= 22.1 creates with
 * the umask's mode, so it could never pass that check); each file is named by the bundle (its name carries a hash of its content) and Node's
 * version, written once (a temporary file, then renamed) when the run ends, and V8 rejects one that
 * does not match the source. Any failure of the cache only costs the compile: the bundle still runs.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Vm from "node:vm"

/** This user's cache folder, created if missing; `undefined` when it cannot be used safely. */
const folder = (): string | undefined => {
  try {
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined
    const dir = process.env["BRANCHLOG_COMPILE_CACHE"] ||
      Path.join(Os.tmpdir(), `branchlog-compile-cache${uid === undefined ? "" : `-${uid}`}`)
    Fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = Fs.lstatSync(dir)
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) return undefined
    return dir
  } catch {
    return undefined
  }
}

/** Runs the CommonJS bundle `file` and returns its exports, its compiled code from the cache when there is one. */
export const load = (file: string): unknown => {
  const source = Fs.readFileSync(file, "utf8")
  const dir = folder()
  const cacheFile = dir === undefined
    ? undefined
    : Path.join(dir, `${Path.basename(file)}-${process.version}-${process.arch}.v8cache`)
  let cachedData: Buffer | undefined
  try {
    if (cacheFile !== undefined) cachedData = Fs.readFileSync(cacheFile)
  } catch {
    // none yet
  }
  const script = new Vm.Script(
    `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`,
    { filename: file, ...(cachedData === undefined ? {} : { cachedData }) }
  )
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    // at the end of the run, so that the functions compiled while it ran are kept too
    process.once("exit", () => {
      try {
        const temporary = `${cacheFile}.${process.pid}.tmp`
        Fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 })
        Fs.renameSync(temporary, cacheFile)
      } catch {
        // the next run compiles again
      }
    })
  }
  const module = { exports: {} as unknown }
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string
  ) => void
  run(module.exports, createRequire(file), module, file, Path.dirname(file))
  return module.exports
}
