import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { mirrorVariable, prebuildPath, startBinaryMirror } from "../src/BinaryMirror.js"

const workspace = resolve(import.meta.dirname, "..", "..", "..")
const from = join(workspace, "packages/store-sqlite/package.json")
const temp = mkdtempSync(join(tmpdir(), "branchlog-mirror-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const betterSqlite = dirname(createRequire(from).resolve("better-sqlite3/package.json"))
const version: string = JSON.parse(readFileSync(join(betterSqlite, "package.json"), "utf8")).version

describe("the binary mirror", () => {
  it("names the tarball and the variable as prebuild-install reads them", () => {
    // prebuild-install's own answer, from better-sqlite3's install: the mirror from the environment
    const requireFromIt = createRequire(join(betterSqlite, "package.json"))
    const util = requireFromIt("prebuild-install/util")
    const pkg = JSON.parse(readFileSync(join(betterSqlite, "package.json"), "utf8"))
    const variable = mirrorVariable("better-sqlite3")
    expect(variable).toBe("npm_config_better_sqlite3_binary_host_mirror")
    const saved = process.env[variable]
    process.env[variable] = "http://127.0.0.1:1"
    try {
      // its options as its command reads them (defaults, npm's config, this Node's ABI)
      const url = util.getDownloadUrl({ ...requireFromIt("prebuild-install/rc")(pkg), pkg })
      expect(url).toBe(`http://127.0.0.1:1${prebuildPath("better-sqlite3", version)}`)
    } finally {
      if (saved === undefined) delete process.env[variable]
      else process.env[variable] = saved
    }
  })

  it("serves the workspace's build as build/Release/NAME.node, a 404 for anything else, and counts", async () => {
    const mirror = await startBinaryMirror(join(temp, "served"), [
      { name: "better-sqlite3", binary: "better_sqlite3.node", from },
      { name: "better-sqlite3", binary: "not_built.node", from }
    ])
    try {
      const path = prebuildPath("better-sqlite3", version)
      expect(mirror.paths).toEqual([path])
      expect(mirror.env).toEqual({ npm_config_better_sqlite3_binary_host_mirror: mirror.url })
      const got = await fetch(mirror.url + path)
      expect(got.status).toBe(200)
      const tarball = join(temp, "got.tar.gz")
      writeFileSync(tarball, Buffer.from(await got.arrayBuffer()))
      expect(execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim()).toBe(
        "build/Release/better_sqlite3.node"
      )
      const extracted = execFileSync("tar", ["xzf", tarball, "-O"], { maxBuffer: 64 * 1024 * 1024 })
      expect(extracted.equals(readFileSync(join(betterSqlite, "build/Release/better_sqlite3.node")))).toBe(true)
      expect((await fetch(mirror.url + prebuildPath("better-sqlite3", "0.0.1"))).status).toBe(404)
      expect((await fetch(mirror.url + prebuildPath("better-sqlite3", version, "1"))).status).toBe(404)
      expect(mirror.served()).toEqual({ [path]: 1 })
    } finally {
      await mirror.stop()
    }
  })
})
