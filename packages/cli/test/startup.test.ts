/**
 * The executable loads what the command line needs and nothing more: real processes, with a
 * loader hook recording every module they load (the speed itself is measured by `pnpm bench`).
 */
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { bin, runInMemory } from "./support/harness.js"

const dir = mkdtempSync(join(tmpdir(), "branchlog-startup-"))
const trace = join(import.meta.dirname, "support", "trace-loads.mjs")
const session = join(dir, "small.jsonl")
writeFileSync(
  session,
  JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: dir }) + "\n"
)

/** The files of the bundle that `branchlog ARGS` loaded, and whether any holds the agent runtime's HTTP stack. */
const loads = (args: ReadonlyArray<string>, input?: string) => {
  const out = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`)
  const result = spawnSync(process.execPath, ["--import", trace, bin, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", BRANCHLOG_TRACE_LOADS: out },
    encoding: "utf8",
    timeout: 120_000,
    ...(input === undefined ? {} : { input })
  })
  expect(result.status, result.stderr).toBe(0)
  const files = readFileSync(out, "utf8").trim().split("\n").filter((url) => url.startsWith("file:")).map((url) =>
    fileURLToPath(url)
  ).filter((file) => file.startsWith(join(bin, "..")))
  const text = files.map((file) => readFileSync(file, "utf8")).join("\n")
  return {
    names: files.map((file) => file.slice(join(bin, "..").length + 1)),
    // undici's error codes, and the OpenAI provider's endpoint
    agentRuntime: text.includes("UND_ERR") || text.includes("chat/completions"),
    // @effect/cli's parser (its message for a missing option)
    effectCli: text.includes("Expected to find option"),
    stdout: result.stdout
  }
}

describe("what each command line loads", () => {
  it("--version loads the executable alone", () => {
    const loaded = loads(["--version"])
    expect(loaded.names).toEqual(["bin.js"])
    expect(loaded.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it("info loads its own module, not the other commands' nor the agent runtime; run loads the agent runtime", () => {
    // info, tree and context on files: their own bundle, run through node:vm (not loaded as a module)
    const bundled = loads(["info", session])
    expect(bundled.stdout).toContain("entries  0")
    for (const other of ["main", "read", "agent", "write", "fsck", "export", "ls", "NodeTerminal"]) {
      expect(bundled.names.some((name) => name.startsWith(`bin-chunk-${other}-`)), other).toBe(false)
    }
    const readBundle = readdirSync(join(bin, "..")).filter((name) => /^bin-chunk-read-commands-.*\.js$/.test(name))
    expect(readBundle).toHaveLength(1)
    const readText = readFileSync(join(bin, "..", readBundle[0]!), "utf8")
    // no agent runtime, no write command ("leaf moved to"), no database driver
    for (const absent of ["UND_ERR", "chat/completions", "leaf moved to", "better-sqlite3", "pg_notify"]) {
      expect(readText.includes(absent), absent).toBe(false)
    }
    // the full way (an option of @effect/cli's own before the command): the split chunks
    const info = loads(["--log-level=debug", "info", session])
    expect(info.names.some((name) => name.startsWith("bin-chunk-read-"))).toBe(true)
    for (const other of ["agent", "write", "fsck", "export", "ls"]) {
      expect(info.names.some((name) => name.startsWith(`bin-chunk-${other}-`)), other).toBe(false)
    }
    expect(info.agentRuntime).toBe(false)
    // nor @effect/platform-node's terminal (readline, process.stdin): it loads when a prompt needs it
    expect(info.names.some((name) => name.startsWith("bin-chunk-NodeTerminal-"))).toBe(false)
    const help = loads(["--help"])
    expect(help.agentRuntime).toBe(false)
    const run = loads(["run", "hello", "--session", join(dir, "run.jsonl")])
    expect(run.names.some((name) => name.startsWith("bin-chunk-agent-"))).toBe(true)
    expect(run.agentRuntime).toBe(true)
  }, 120_000)

  it(
    "a plain append runs directly: its one-file bundle, no @effect/cli, no other command's module, no agent runtime; odd lines go through @effect/cli",
    () => {
      const target = join(dir, "append.jsonl")
      const message = JSON.stringify({ role: "user", content: "hi", timestamp: 1 }) + "\n"
      // the direct bundle is run through node:vm (with V8's code cache), not loaded as a module
      const direct = readdirSync(join(bin, "..")).filter((name) => /^bin-chunk-direct-.*\.js$/.test(name))
      expect(direct).toHaveLength(1)
      const directText = readFileSync(join(bin, "..", direct[0]!), "utf8")
      expect(directText.includes("Expected to find option")).toBe(false)
      expect(directText.includes("UND_ERR") || directText.includes("chat/completions")).toBe(false)
      for (
        const args of [["append", target], ["--verbose", "append", "--json", target, "--full", "--lock-timeout", "5s"]]
      ) {
        const loaded = loads(args, message)
        expect(loaded.effectCli, args.join(" ")).toBe(false)
        expect(loaded.agentRuntime).toBe(false)
        for (const other of ["write", "read", "agent", "fsck", "main", "NodeTerminal", "direct"]) {
          expect(loaded.names.some((name) => name.startsWith(`bin-chunk-${other}-`)), other).toBe(false)
        }
      }
      expect(readFileSync(target, "utf8").split("\n").filter((line) => line.includes(`"content":"hi"`))).toHaveLength(2)
      // help, and a line @effect/cli reads its own way (a boolean flag's value), are @effect/cli's
      for (const args of [["append", "--help"], ["append", target, "--json", "true"]]) {
        expect(loads(args, "").effectCli, args.join(" ")).toBe(true)
      }
    },
    120_000
  )

  it(
    "the direct bundle's code cache: written in a folder of this user's alone, used, rejected when damaged, never in a shared folder",
    () => {
      const target = join(dir, "cached.jsonl")
      const message = JSON.stringify({ role: "user", content: "cached", timestamp: 1 }) + "\n"
      const append = (cache: string) =>
        spawnSync(process.execPath, [bin, "append", target], {
          env: { ...process.env, BRANCHLOG_COMPILE_CACHE: cache },
          input: message,
          encoding: "utf8",
          timeout: 120_000
        })
      const own = join(dir, "cache-own")
      for (let run = 0; run < 2; run++) expect(append(own).status).toBe(0)
      const files = readdirSync(own)
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(/^bin-chunk-direct-.*\.js-v\d+\.\d+\.\d+-\w+\.v8cache$/)
      expect(statSync(join(own, files[0]!)).size).toBeGreaterThan(0)
      // a damaged cache file is rejected by V8 (the run compiles and writes a good one)
      writeFileSync(join(own, files[0]!), "not code")
      const damaged = append(own)
      expect(damaged.status, damaged.stderr).toBe(0)
      expect(statSync(join(own, files[0]!)).size).toBeGreaterThan(100)
      // a folder others can write is not used
      const shared = join(dir, "cache-shared")
      mkdirSync(shared, { mode: 0o777 })
      chmodSync(shared, 0o777)
      expect(append(shared).status).toBe(0)
      expect(readdirSync(shared)).toEqual([])
      expect(readFileSync(target, "utf8").split("\n").filter((line) => line.includes(`"content":"cached"`)))
        .toHaveLength(4)
    },
    120_000
  )

  it("takes the values of @effect/cli's own options for what they are, not for a subcommand's name", async () => {
    const volume = MemoryFileSystem.make()
    volume.writeFile("/s/x.jsonl", readFileSync(session))
    const outcome = await runInMemory(volume, ["--log-level", "info", "ls", "--dir", "/s"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toContain("/s/x.jsonl")
  })
})
