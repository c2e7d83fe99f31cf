/**
 * Child processes for the multi-process tests: `node --conditions=@branchlog/source --import tsx`
 * in the package folder, stdout and stderr collected as it runs.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** A running child: its process, what it printed so far, and its exit code once it ends. */
export interface Child {
  readonly process: ChildProcess
  output: string
  readonly exited: Promise<number | null>
}

/** Starts `node --import tsx ARGS` in the package folder. */
export const start = (args: ReadonlyArray<string>): Child => {
  const argv = ["--conditions=@branchlog/source", "--import", "tsx", ...args]
  const child = spawn(process.execPath, argv, { cwd: packageDir, stdio: ["pipe", "pipe", "pipe"] })
  const handle: Child = {
    process: child,
    output: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code)))
  }
  child.stdout!.on("data", (data: Buffer) => void (handle.output += data.toString()))
  child.stderr!.on("data", (data: Buffer) => void (handle.output += data.toString()))
  return handle
}

/** Waits until the child printed what `predicate` looks for (fails if it exits first or after `timeoutMs`). */
export const waitFor = async (child: Child, predicate: (output: string) => boolean, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!predicate(child.output)) {
    if (child.process.exitCode !== null) throw new Error(`child exited (${child.process.exitCode}): ${child.output}`)
    if (Date.now() > deadline) throw new Error(`timeout waiting for child: ${child.output}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
