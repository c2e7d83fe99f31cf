// installedPackages: what a project's node_modules holds, nested and scoped copies included, and
// which installs built an addon for the Node that ran them (the README matrix installs again for
// another Node's ABI only then).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { installedPackages } from "../src/Workspace.js"

const root = mkdtempSync(join(tmpdir(), "branchlog-installed-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const write = (path: string, text = "") => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}
const manifest = (dir: string, name: string, version: string) =>
  write(join(dir, "package.json"), JSON.stringify({ name, version }))

describe("installedPackages", () => {
  it("lists top-level, scoped and nested copies with their versions, skipping links and dot folders", () => {
    const project = join(root, "tree")
    const modules = join(project, "node_modules")
    manifest(join(modules, "effect"), "effect", "3.22.4")
    manifest(join(modules, "@branchlog", "session-store"), "@branchlog/session-store", "0.2.0")
    manifest(join(modules, "@branchlog", "session-store", "node_modules", "effect"), "effect", "3.22.3")
    manifest(join(modules, ".cache", "x"), "x", "1.0.0")
    mkdirSync(join(modules, "no-manifest"))
    mkdirSync(join(root, "elsewhere"))
    manifest(join(root, "elsewhere"), "linked", "1.0.0")
    symlinkSync(join(root, "elsewhere"), join(modules, "linked"), "dir")
    const found = installedPackages(project).map(({ name, version }) => `${name}@${version}`).sort()
    expect(found).toEqual(["@branchlog/session-store@0.2.0", "effect@3.22.3", "effect@3.22.4"])
  })

  it("marks a package native only when its install left an addon in build/Release", () => {
    const project = join(root, "native")
    const modules = join(project, "node_modules")
    manifest(join(modules, "better-sqlite3"), "better-sqlite3", "12.11.1")
    write(join(modules, "better-sqlite3", "binding.gyp"))
    write(join(modules, "better-sqlite3", "build", "Release", "better_sqlite3.node"))
    // an N-API prebuild shipped in the package serves every Node
    manifest(join(modules, "msgpackr-extract"), "msgpackr-extract", "3.0.3")
    write(join(modules, "msgpackr-extract", "binding.gyp"))
    write(join(modules, "msgpackr-extract", "prebuilds", "linux-x64", "node.napi.node"))
    // a build folder without an addon
    manifest(join(modules, "half"), "half", "1.0.0")
    mkdirSync(join(modules, "half", "build", "Release"), { recursive: true })
    const native = Object.fromEntries(installedPackages(project).map(({ name, native }) => [name, native]))
    expect(native).toEqual({ "better-sqlite3": true, "msgpackr-extract": false, half: false })
  })

  it("gives nothing for a project without node_modules", () => {
    mkdirSync(join(root, "empty"))
    expect(installedPackages(join(root, "empty"))).toEqual([])
  })
})
