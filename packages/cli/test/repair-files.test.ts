/**
 * `repair` and `migrate` on real files, through the store's one rewrite: lines kept byte for byte
 * (invalid UTF-8 included), owner and mode kept, a read-only file refused and kept, a symlink
 * rewritten at its target (the link stays a link).
 */
import { Cli, Stdin } from "@branchlog/cli"
import { SessionStore } from "@branchlog/store-jsonl"
import { NodeContext } from "@effect/platform-node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { format } from "node:util"
import { afterAll, describe, expect, it } from "vitest"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-repair-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
let n = 0
const freshDir = () => fs.mkdtempSync(path.join(root, `${n++}-`))
const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** Runs `branchlog ARGS` in this process over the Node layers (real files). */
const run = async (args: ReadonlyArray<string>) => {
  const out: Array<string> = []
  const write = (...a: ReadonlyArray<unknown>) => Effect.sync(() => void out.push(format(...a)))
  const none = () => Effect.void
  const console = {
    [Console.TypeId]: Console.TypeId,
    ...Object.fromEntries(
      ["assert", "count", "countReset", "group", "time", "timeEnd", "timeLog"].map((name) => [name, none])
    ),
    ...Object.fromEntries(
      ["debug", "dir", "dirxml", "error", "info", "log", "table", "trace", "warn"].map((name) => [name, write])
    ),
    clear: Effect.void,
    groupEnd: Effect.void,
    unsafe: globalThis.console
  } as unknown as Console.Console
  const code = await Cli.run(["node", "branchlog", ...args]).pipe(
    Effect.withConsole(console),
    Effect.provide(Layer.mergeAll(NodeContext.layer, SessionStore.layerNode, Stdin.layerText(""))),
    Effect.runPromise
  )
  return { code, output: out.join("\n") }
}

const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-05-01T09:00:00.000Z",
  cwd: "/w"
})
const invalid = Buffer.from([0xff, 0xfe, 0xc3, 0x28])
const entry = Buffer.concat([
  Buffer.from(`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"`),
  invalid,
  Buffer.from(`"}}`)
])
const corrupt = Buffer.concat([Buffer.from(`{"broken `), invalid])
const damaged = Buffer.concat([Buffer.from(header + "\n"), entry, Buffer.from("\n"), corrupt, Buffer.from("\n")])

describe("repair and migrate on real files", () => {
  it("keeps invalid UTF-8 bytes in kept lines and in the sidecar; the backup holds the original", async () => {
    const dir = freshDir()
    const file = path.join(dir, "s.jsonl")
    fs.writeFileSync(file, damaged)
    const outcome = await run(["repair", file])
    expect(outcome.code, outcome.output).toBe(0)
    expect(fs.readFileSync(file).equals(Buffer.concat([Buffer.from(header + "\n"), entry, Buffer.from("\n")]))).toBe(
      true
    )
    const names = fs.readdirSync(dir)
    const sidecar = names.find((name) => name.includes(".removed-"))!
    expect(fs.readFileSync(path.join(dir, sidecar)).equals(Buffer.concat([corrupt, Buffer.from("\n")]))).toBe(true)
    const backup = names.find((name) => name.includes(".repair-"))!
    expect(outcome.output).toContain(`the original bytes are in ${backup}`)
    expect(fs.readFileSync(path.join(dir, backup)).equals(damaged)).toBe(true)
    expect(names.filter((name) => name.endsWith(".tmp"))).toEqual([])
  })

  it("keeps the file's owner and mode", async () => {
    const file = path.join(freshDir(), "s.jsonl")
    fs.writeFileSync(file, damaged)
    fs.chmodSync(file, 0o640)
    if (isRoot) fs.chownSync(file, 1234, 2345)
    expect((await run(["repair", file])).code).toBe(0)
    const st = fs.statSync(file)
    expect(st.mode & 0o7777).toBe(0o640)
    if (isRoot) expect([st.uid, st.gid]).toEqual([1234, 2345])
  })

  it("refuses a read-only file, says so, and leaves it and its folder as they were", async () => {
    const dir = freshDir()
    const file = path.join(dir, "s.jsonl")
    fs.writeFileSync(file, damaged)
    fs.chmodSync(file, 0o444)
    const outcome = await run(["repair", file])
    expect(outcome.code).toBe(1)
    expect(outcome.output).toMatch(/read-only .*chmod u\+w/)
    expect(fs.readFileSync(file).equals(damaged)).toBe(true)
    expect(fs.statSync(file).mode & 0o7777).toBe(0o444)
    expect(fs.readdirSync(dir)).toEqual(["s.jsonl"])
  })

  it("repair and migrate through a symlink rewrite the target and leave the link a link", async () => {
    const dir = freshDir()
    fs.mkdirSync(path.join(dir, "real"))
    const real = path.join(dir, "real", "s.jsonl")
    const link = path.join(dir, "link.jsonl")
    fs.writeFileSync(real, damaged)
    fs.symlinkSync(real, link)
    expect((await run(["repair", link])).code).toBe(0)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(real).includes(Buffer.from("broken"))).toBe(false)
    expect(fs.readdirSync(dir).sort()).toEqual(["link.jsonl", "real"])

    const old = path.join(dir, "real", "old.jsonl")
    const oldLink = path.join(dir, "old.jsonl")
    fs.writeFileSync(
      old,
      JSON.stringify({ type: "session", id: "o", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" }) + "\n" +
        JSON.stringify({ type: "message", timestamp: "t", message: { role: "user", content: "hi" } }) + "\n"
    )
    fs.symlinkSync(old, oldLink)
    const migrated = await run(["migrate", oldLink])
    expect(migrated.code, migrated.output).toBe(0)
    expect(fs.lstatSync(oldLink).isSymbolicLink()).toBe(true)
    expect(JSON.parse(fs.readFileSync(old, "utf8").split("\n")[0]!).version).toBe(3)
  })
})
