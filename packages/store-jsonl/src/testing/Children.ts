/**
 * Child processes for multi-process tests: `node` (through tsx from source, with the
 * `@branchlog/source` condition, unless told otherwise) in a package's folder, its stdout and
 * stderr collected as it runs, and a wait for what it prints. One helper for every package's
 * tests of writers racing across processes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** A running child: its process, what it printed so far (both streams, and each), and its exit code once it ends. */
export interface Child {
  readonly process: ChildProcess
  /** stdout and stderr as they arrived, interleaved. */
  output: string
  stdout: string
  stderr: string
  readonly exited: Promise<number | null>
}

/** How a child is started. */
export interface StartOptions {
  /** The folder it runs in (a package's folder: its `tsx` and workspace packages resolve from there). */
  readonly cwd: string
  /** Run through tsx from source (`--conditions=@branchlog/source --import tsx`; default `true`). */
  readonly tsx?: boolean
  /** Its standard input: a pipe the test may write to (default), or none. */
  readonly stdin?: "pipe" | "ignore"
}

/** Starts `node [--conditions=@branchlog/source --import tsx] ARGS`. */
export const start = (args: ReadonlyArray<string>, options: StartOptions): Child => {
  const argv = options.tsx === false ? [...args] : ["--conditions=@branchlog/source", "--import", "tsx", ...args]
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd,
    stdio: [options.stdin ?? "pipe", "pipe", "pipe"]
  })
  const handle: Child = {
    process: child,
    output: "",
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code)))
  }
  child.stdout!.on("data", (data: Buffer) => {
    const text = data.toString()
    handle.stdout += text
    handle.output += text
  })
  child.stderr!.on("data", (data: Buffer) => {
    const text = data.toString()
    handle.stderr += text
    handle.output += text
  })
  return handle
}

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 60 s). */
  readonly timeoutMs?: number
  /** What the predicate reads: both streams interleaved (default) or stdout alone. */
  readonly of?: "output" | "stdout"
}

/** Waits until the child printed what `predicate` looks for; fails when it exits first or the time is up. */
export const waitFor = async (
  child: Child,
  predicate: (printed: string) => boolean,
  options: WaitOptions = {}
): Promise<void> => {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  const printed = () => options.of === "stdout" ? child.stdout : child.output
  while (!predicate(printed())) {
    if (child.process.exitCode !== null) {
      throw new Error(`child exited (${child.process.exitCode}): ${child.output.slice(-4000)}`)
    }
    if (Date.now() > deadline) throw new Error(`timeout waiting for child: ${child.output.slice(-4000)}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** The lines of stdout that start with `prefix` (default `"ack "`), without it: what a writer acknowledged. */
export const acked = (child: Pick<Child, "stdout">, prefix = "ack "): Array<string> =>
  child.stdout.split("\n").filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length))

/** The package folder of a test file two levels down (`<package>/test/support/x.ts`, given its `import.meta.url`). */
export const packageOf = (url: string, levels = 2): string =>
  path.resolve(path.dirname(fileURLToPath(url)), ...Array<string>(levels).fill(".."))
