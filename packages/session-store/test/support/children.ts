/**
 * Child processes for the multi-process tests: a node process of this package (run through tsx
 * from source unless told otherwise) whose stdout and stderr are collected as it runs.
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

/** Starts `node [--import tsx] ARGS` in the package folder. */
export const start = (args: ReadonlyArray<string>, tsx = true): Child => {
  const argv = tsx ? ["--conditions=@branchlog/source", "--import", "tsx", ...args] : [...args]
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
