import { Cli, Stdin } from "@branchlog/cli"
import { SessionStore } from "@branchlog/store-jsonl"
import type { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { NodeContext } from "@effect/platform-node"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { format } from "node:util"

/** What a run printed and returned. */
export interface Outcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A Console that collects what is printed. */
const capturing = (out: Array<string>, err: Array<string>): Console.Console => {
  const write = (into: Array<string>) => (...args: ReadonlyArray<unknown>) =>
    Effect.sync(() => void into.push(format(...args)))
  const none = () => Effect.void
  const unsafe = {
    ...globalThis.console,
    log: (...a: Array<unknown>) => void out.push(format(...a)),
    error: (...a: Array<unknown>) => void err.push(format(...a))
  }
  return {
    [Console.TypeId]: Console.TypeId,
    assert: none,
    clear: Effect.void,
    count: none,
    countReset: none,
    debug: write(err),
    dir: write(out),
    dirxml: write(out),
    error: write(err),
    group: none,
    groupEnd: Effect.void,
    info: write(out),
    log: write(out),
    table: write(out),
    time: none,
    timeEnd: none,
    timeLog: none,
    trace: write(err),
    warn: write(err),
    unsafe
  } as Console.Console
}

/** Runs `branchlog ARGS` in this process over the memory layer holding `volume`, with `input` as stdin (pieces: one per read). */
export const runInMemory = (
  volume: MemoryFileSystem.MemoryVolume,
  args: ReadonlyArray<string>,
  input: string | ReadonlyArray<string> = ""
): Promise<Outcome> => {
  const out: Array<string> = []
  const err: Array<string> = []
  return Cli.run(["node", "branchlog", ...args]).pipe(
    Effect.withConsole(capturing(out, err)),
    Effect.provide(
      Layer.mergeAll(
        NodeContext.layer,
        SessionStore.layerMemory(volume),
        typeof input === "string" ? Stdin.layerText(input) : Stdin.layerPieces(input)
      )
    ),
    Effect.runPromise
  ).then((code) => ({ code, stdout: out.join("\n"), stderr: err.join("\n") }))
}

/** The built executable. */
export const bin = resolve(import.meta.dirname, "..", "..", "dist", "bin.js")

/** Runs `node dist/bin.js ARGS` as a real process (asynchronously: the test worker stays responsive). */
export const runProcess = (
  args: ReadonlyArray<string>,
  options: { readonly input?: string; readonly cwd?: string; readonly env?: Record<string, string> } = {}
): Promise<Outcome> => {
  if (!existsSync(bin)) return Promise.reject(new Error(`${bin} is missing: the cli's test script builds it first`))
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolvePromise({ code: code ?? -1, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })
}

/**
 * A `--json` answer as the reference fixtures give it: `info`'s without the CLI's `usage` totals
 * (checked on their own in daily.test.ts), the others as they are.
 */
export const referenceShape = (section: string, answer: any): unknown => {
  if (section !== "info" || typeof answer !== "object" || answer === null) return answer
  const { usage, ...rest } = answer
  if (typeof usage?.all?.totalTokens !== "number") {
    throw new Error(`info --json has no usage totals: ${JSON.stringify(answer)}`)
  }
  return rest
}

/**
 * Runs `node script ARGS` as a real process and collects what it printed: any Node binary, any
 * bundle, with exactly the environment given (nothing of this process's added), as another user
 * when `uid`/`gid` are given; stdin gets `input` and is closed.
 */
export const spawnCollect = (
  node: string,
  script: string,
  args: ReadonlyArray<string>,
  options: {
    readonly cwd?: string
    readonly env: NodeJS.ProcessEnv
    readonly input?: string
    readonly uid?: number
    readonly gid?: number
  }
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((done, fail) => {
    const child = spawn(node, [script, ...args], {
      cwd: options.cwd,
      env: options.env,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid })
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c))
    child.once("error", fail)
    child.once("close", (code) => done({ code, stdout, stderr }))
    child.stdin.end(options.input ?? "")
  })
