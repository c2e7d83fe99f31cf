/** Child processes for the multi-process tests: node through tsx from source, output collected. */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** A running child: its process, what it printed so far, and its exit code once it ends. */
export interface Child {
  readonly process: ChildProcess
  stdout: string
  stderr: string
  readonly exited: Promise<number | null>
}

/** Starts `node --import tsx SCRIPT ARGS` (script relative to test/workers). */
export const start = (script: string, args: ReadonlyArray<string>): Child => {
  const argv = [
    "--conditions=@branchlog/source",
    "--import",
    "tsx",
    path.join(packageDir, "test", "workers", script),
    ...args
  ]
  const child = spawn(process.execPath, argv, { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] })
  const handle: Child = {
    process: child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code)))
  }
  child.stdout!.on("data", (data: Buffer) => void (handle.stdout += data.toString()))
  child.stderr!.on("data", (data: Buffer) => void (handle.stderr = (handle.stderr + data.toString()).slice(-20_000)))
  return handle
}

/** Waits until `predicate` holds of the child's stdout (fails when it exits first or after `timeoutMs`). */
export const waitFor = async (child: Child, predicate: (stdout: string) => boolean, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs
  while (!predicate(child.stdout)) {
    if (child.process.exitCode !== null) throw new Error(`child exited (${child.process.exitCode}): ${child.stderr}`)
    if (Date.now() > deadline) {
      throw new Error(`timeout waiting for child: ${child.stdout.slice(-2000)} ${child.stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The ids a writer printed as acknowledged. */
export const acked = (child: Child): Array<string> =>
  child.stdout.split("\n").filter((line) => line.startsWith("ack ")).map((line) => line.slice(4))
