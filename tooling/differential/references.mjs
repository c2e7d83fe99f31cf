// The two reference implementations the fixtures were made with, installed on demand from npm into
// a cache folder (never into the workspace), and their session managers loaded from there.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

export const PI = "@mariozechner/pi-coding-agent@0.73.1"
export const OPENCLAW = "openclaw@2026.6.11"

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
