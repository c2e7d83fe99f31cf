/**
 * SessionIndex over real files: the shared behavioural suite, and concurrent upserts from four
 * real processes (each its own Node, tsx and lock) that must lose nothing.
 */
import { Harness } from "@branchlog/store-jsonl/testing"
import { bundledChild } from "@branchlog/tooling/children"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import { sessionIndexSuite } from "./SessionIndex.suite.js"

afterAll(Harness.cleanupTempRoots)

sessionIndexSuite(Harness.nodeHarness)

const here = path.dirname(fileURLToPath(import.meta.url))
const packageDir = path.resolve(here, "..")
const childScript = path.join(here, "fixtures", "index-child.ts")

interface Child {
  readonly process: ChildProcess
  readonly output: { text: string }
  readonly exited: Promise<number | null>
}

const startChild = (args: ReadonlyArray<string>): Child => {
  const child = spawn(
    process.execPath,
    [bundledChild(childScript), ...args],
    { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] }
  )
  const output = { text: "" }
  child.stdout.on("data", (d: Buffer) => (output.text += d.toString()))
  child.stderr.on("data", (d: Buffer) => (output.text += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { process: child, output, exited }
}

const waitFor = (children: ReadonlyArray<Child>, needle: string, timeoutMs: number) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const timer = setInterval(() => {
      if (children.every((c) => c.output.text.includes(needle))) {
        clearInterval(timer)
        resolve()
      } else if (children.some((c) => c.process.exitCode !== null && !c.output.text.includes(needle))) {
        clearInterval(timer)
        reject(new Error(`a child exited early: ${children.map((c) => c.output.text).join("\n---\n")}`))
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer)
        reject(new Error(`timed out waiting for "${needle}": ${children.map((c) => c.output.text).join("\n---\n")}`))
      }
    }, 10)
  })

describe("SessionIndex across processes (node)", () => {
  it.live(
    "4 processes upserting 50 distinct keys each (and one shared record) lose nothing",
    () =>
      Effect.gen(function*() {
        const dir = Harness.tempDir()
        const file = path.join(dir, "sessions.json")
        const go = path.join(dir, "go")
        const workers = 4
        const count = 50
        const children = Array.from({ length: workers }, (_, w) => startChild([file, String(w), String(count), go]))
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => children.forEach((c) => c.process.exitCode === null && c.process.kill("SIGKILL")))
        )
        yield* Effect.promise(() => waitFor(children, "ready", 60_000))
        fs.writeFileSync(go, "")
        yield* Effect.promise(() => waitFor(children, "\"done\":true", 170_000))
        const codes = yield* Effect.promise(() => Promise.all(children.map((c) => c.exited)))
        expect(codes).toEqual(Array(workers).fill(0))

        const stored = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>
        expect(Object.keys(stored)).toHaveLength(workers * count + 1)
        for (let w = 0; w < workers; w++) {
          for (let i = 0; i < count; i++) {
            expect(stored[`agent:main:telegram:direct:w${w}-${i}`]).toMatchObject({
              sessionId: `w${w}-${i}`,
              worker: String(w)
            })
          }
          expect(stored["agent:main:main"]![`worker${w}`]).toBe(count)
        }
        // the backup is a good, older version; nothing else is left behind (no temp or lock files)
        const backup = JSON.parse(fs.readFileSync(`${file}.bak`, "utf8")) as Record<string, unknown>
        expect(Object.keys(backup).length).toBeGreaterThanOrEqual(workers * count)
        expect(fs.readdirSync(dir).sort()).toEqual(["go", "sessions.json", "sessions.json.bak"])
        for (const c of children) expect(c.output.text).toContain("\"recoveries\":0")
      }).pipe(Effect.scoped),
    180_000
  )
})
