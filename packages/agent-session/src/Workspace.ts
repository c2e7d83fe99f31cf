/**
 * The folder the built-in tools work on: an in-memory map of files (tests, the demo) or a real
 * folder. Paths are relative to the root; a path that leaves the root is refused. `exec` runs a
 * command with a time limit and an output cap (the in-memory workspace knows `echo`, `cat`, `ls`
 * and `pwd` only).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { ToolError } from "./AgentError.js"

/** What a command printed and how it exited. */
export interface ExecResult {
  readonly output: string
  readonly exitCode: number
}

/** A folder of files and a shell. */
export interface Workspace {
  /** The root (an absolute path; `/workspace` for memory). */
  readonly root: string
  readonly readFile: (path: string) => Effect.Effect<string, ToolError>
  readonly writeFile: (path: string, content: string) => Effect.Effect<void, ToolError>
  readonly exec: (command: string) => Effect.Effect<ExecResult, ToolError>
}

/** The most bytes of command output kept. */
export const MAX_OUTPUT = 32 * 1024

const fail = (toolName: string, reason: string) => new ToolError({ toolName, reason })

/** Resolves `path` under `root`; `undefined` when it leaves the root. */
export const resolveInside = (root: string, path: string): string | undefined => {
  const full = nodePath.resolve(root, path)
  const rel = nodePath.relative(root, full)
  return rel === "" || (!rel.startsWith("..") && !nodePath.isAbsolute(rel)) ? full : undefined
}

/** The root folder an in-memory workspace pretends to be. */
export const MEMORY_ROOT = "/workspace"

/** An in-memory workspace over `files` (relative path → content); the map is changed in place. */
export const memory = (files: Map<string, string> = new Map()): Workspace => {
  const key = (tool: string, path: string) => {
    const full = resolveInside(MEMORY_ROOT, path)
    return full === undefined || full === MEMORY_ROOT
      ? Effect.fail(fail(tool, `path outside the workspace: ${path}`))
      : Effect.succeed(full.slice(MEMORY_ROOT.length + 1))
  }
  const run = (command: string): ExecResult => {
    const [name = "", ...args] = command.trim().split(/\s+/)
    switch (name) {
      case "echo":
        return { output: args.join(" ") + "\n", exitCode: 0 }
      case "pwd":
        return { output: `${MEMORY_ROOT}\n`, exitCode: 0 }
      case "ls":
        return { output: [...files.keys()].sort().map((f) => f + "\n").join(""), exitCode: 0 }
      case "cat": {
        const missing = args.find((a) => !files.has(a))
        if (missing !== undefined) return { output: `cat: ${missing}: No such file or directory\n`, exitCode: 1 }
        return { output: args.map((a) => files.get(a)).join(""), exitCode: 0 }
      }
      default:
        return { output: `${name}: command not found (in-memory workspace)\n`, exitCode: 127 }
    }
  }
  return {
    root: MEMORY_ROOT,
    readFile: (path) =>
      Effect.flatMap(key("read", path), (k) => {
        const content = files.get(k)
        return content === undefined ? Effect.fail(fail("read", `file not found: ${path}`)) : Effect.succeed(content)
      }),
    writeFile: (path, content) =>
      Effect.flatMap(key("write", path), (k) => Effect.sync(() => void files.set(k, content))),
    exec: (command) => Effect.sync(() => run(command))
  }
}

/** A workspace over the real folder `root`; commands run with `sh -c` there, killed after `timeoutMs`. */
export const node = (root: string, options: { readonly timeoutMs?: number } = {}): Workspace => {
  const base = nodePath.resolve(root)
  const full = (tool: string, path: string) => {
    const resolved = resolveInside(base, path)
    return resolved === undefined
      ? Effect.fail(fail(tool, `path outside the workspace: ${path}`))
      : Effect.succeed(resolved)
  }
  return {
    root: base,
    readFile: (path) =>
      Effect.flatMap(
        full("read", path),
        (file) =>
          Effect.tryPromise({
            try: () => fs.readFile(file, "utf8"),
            catch: (e) => fail("read", String((e as Error).message))
          })
      ),
    writeFile: (path, content) =>
      Effect.flatMap(full("write", path), (file) =>
        Effect.tryPromise({
          try: async () => {
            await fs.mkdir(nodePath.dirname(file), { recursive: true })
            await fs.writeFile(file, content, "utf8")
          },
          catch: (e) => fail("write", String((e as Error).message))
        })),
    exec: (command) =>
      Effect.async<ExecResult, ToolError>((resume, signal) => {
        execFile(
          "/bin/sh",
          ["-c", command],
          { cwd: base, timeout: options.timeoutMs ?? 10_000, maxBuffer: MAX_OUTPUT * 4, signal },
          (error, stdout, stderr) => {
            const output = (stdout + stderr).slice(0, MAX_OUTPUT)
            const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
            resume(Effect.succeed({ output, exitCode: code }))
          }
        )
      })
  }
}
