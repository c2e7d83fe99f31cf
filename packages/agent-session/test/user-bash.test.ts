/**
 * A user's `!cmd` and `!!cmd` with real shell commands: output and exit code, a timeout and a
 * cancel (the process group is gone afterwards), `!!` left out of the context, a 10 MB output
 * capped with the full output in a file.
 */
import { SessionManager } from "@branchlog/session-store"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as AgentSession from "../src/AgentSession.js"
import * as UserBash from "../src/UserBash.js"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

/** `true` while `pid` runs (a zombie waiting to be reaped counts as ended). */
const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    try {
      process.kill(pid, 0)
      return !fs.existsSync("/proc/self")
    } catch {
      return false
    }
  }
}

/**
 * Whether `pid` has ended within 10 s: a killed process group ends asynchronously (the kernel
 * delivers the signal and init reaps the orphan), so a loaded machine may show it for a moment.
 */
const endsWithin = (pid: number): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      if (!alive(pid)) return true
      yield* Effect.sleep("50 millis")
    }
    return !alive(pid)
  })

/** Waits (bounded) until `file` exists and holds a line. */
const waitForFile = (file: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2000; i++) {
      if (fs.existsSync(file) && fs.readFileSync(file, "utf8").endsWith("\n")) return
      yield* Effect.sleep(10)
    }
    throw new Error(`${file} never appeared`)
  })

const bashRows = (file: string) =>
  rowsOf(file).filter((r) => r.type === "message" && r.message.role === "bashExecution").map((r) => r.message)

const agentIn = (cwd: string, extra: Partial<AgentSession.Options> = {}) =>
  Effect.gen(function*() {
    const sm = yield* SessionManager.create(cwd, path.join(cwd, ".sessions"))
    return yield* scripted(sm, { extra })
  })

describe("UserBash.parse", () => {
  it("`!` and `!!` prompts; a blank command is an ordinary prompt", () => {
    expect(UserBash.parse("!ls -la")).toEqual({ command: "ls -la", excludeFromContext: false })
    expect(UserBash.parse("!! echo hi")).toEqual({ command: "echo hi", excludeFromContext: true })
    expect(UserBash.parse("!  ")).toBeUndefined()
    expect(UserBash.parse("hello !ls")).toBeUndefined()
  })
})

describe("AgentSession `!cmd` (real shell)", () => {
  it.live("records output, exit code and the working folder as a bashExecution message; no model call; the model sees it next turn", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      fs.writeFileSync(path.join(cwd, "marker.txt"), "here\n")
      const { events, session, sm } = yield* agentIn(cwd)
      const result = yield* session.prompt("!ls; echo to-stderr >&2; exit 3")
      expect(result.stopReason).toBe("stop")
      expect(events.some((e) => e._tag === "TurnStart")).toBe(false)
      const [message] = bashRows(sm.getSessionFile()!)
      expect(message).toMatchObject({
        role: "bashExecution",
        command: "ls; echo to-stderr >&2; exit 3",
        exitCode: 3,
        cancelled: false,
        truncated: false
      })
      expect(message.output).toContain("marker.txt")
      expect(message.output).toContain("to-stderr")
      expect(message.excludeFromContext).toBeUndefined()
      const context = JSON.stringify(session.messages())
      expect(context).toContain("Ran `ls; echo to-stderr >&2; exit 3`")
      expect(context).toContain("Command exited with code 3")
      const next = yield* session.prompt("what did it print?")
      expect(next.stopReason).toBe("stop")
    }).pipe(Effect.provide(storeLayer)))

  it.live("`!!cmd` is recorded with excludeFromContext and never reaches the model", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const { session, sm } = yield* agentIn(cwd)
      yield* session.prompt("!!echo secret-value")
      const [message] = bashRows(sm.getSessionFile()!)
      expect(message).toMatchObject({ excludeFromContext: true, exitCode: 0, output: "secret-value\n" })
      expect(JSON.stringify(session.messages())).not.toContain("secret-value")
    }).pipe(Effect.provide(storeLayer)))

  it.live("a timeout kills the command's process group and records it cancelled", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const { session, sm } = yield* agentIn(cwd, { bash: { timeoutMs: 3000 } })
      const result = yield* session.prompt("!sleep 60 & echo $! > pid; echo started; wait")
      expect(result.stopReason).toBe("stop")
      const [message] = bashRows(sm.getSessionFile()!)
      expect(message).toMatchObject({ cancelled: true, truncated: false })
      expect(message.exitCode).toBeUndefined()
      expect(message.output).toContain("started")
      expect(message.output).toContain("(timed out after 3000 ms)")
      expect(yield* endsWithin(Number(fs.readFileSync(path.join(cwd, "pid"), "utf8")))).toBe(true)
    }).pipe(Effect.provide(storeLayer)))

  it.live("abort() cancels the running command with the turn", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const { session, sm } = yield* agentIn(cwd)
      const fiber = yield* Effect.fork(session.prompt("!sleep 60 & echo $! > pid; wait"))
      yield* waitForFile(path.join(cwd, "pid"))
      expect(session.isRunning()).toBe(true)
      yield* session.abort()
      const result = yield* Fiber.join(fiber)
      expect(result.stopReason).toBe("aborted")
      const [message] = bashRows(sm.getSessionFile()!)
      expect(message).toMatchObject({ cancelled: true })
      expect(yield* endsWithin(Number(fs.readFileSync(path.join(cwd, "pid"), "utf8")))).toBe(true)
      expect(session.isRunning()).toBe(false)
    }).pipe(Effect.provide(storeLayer)))

  it.live("10 MB of output: the message keeps the last 50 KiB, the full output is in a file", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const out = tempDir()
      const { session, sm } = yield* agentIn(cwd, { bash: { outputDir: out } })
      yield* session.prompt("!head -c 10485760 /dev/zero | tr '\\0' 'x'; echo; echo the-end")
      const [message] = bashRows(sm.getSessionFile()!)
      expect(message.truncated).toBe(true)
      expect(Buffer.byteLength(message.output)).toBe(50 * 1024)
      expect(message.output.endsWith("\nthe-end\n")).toBe(true)
      expect(path.dirname(message.fullOutputPath)).toBe(out)
      expect(fs.statSync(message.fullOutputPath).size).toBe(10485760 + "\nthe-end\n".length)
      expect(fs.statSync(sm.getSessionFile()!).size).toBeLessThan(200 * 1024)
      expect(JSON.stringify(session.messages())).toContain(`[Output truncated. Full output: ${message.fullOutputPath}]`)
    }).pipe(Effect.provide(storeLayer)))
})
