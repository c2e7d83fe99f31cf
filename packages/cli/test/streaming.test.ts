/**
 * `append` streams (each line written as soon as it is read, so a killed writer keeps what it had
 * appended), a batch that stops says how many entries were written before it (none of its own), `--lock-timeout` reaches
 * every lock, and the store's notices go to stderr. Real processes fed through live pipes; bounds
 * in time are wide (they must hold on a loaded machine) and nothing asserts on a duration.
 */
import { Messages } from "@branchlog/session-core/testing"
import { SessionStore, TranscriptLock } from "@branchlog/store-jsonl"
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { bin, runInMemory, runProcess } from "./support/harness.js"

const dir = mkdtempSync(join(tmpdir(), "branchlog-streaming-"))
let counter = 0
const freshFile = () => join(dir, `s${counter++}.jsonl`)
const user = (text: string) => JSON.stringify(Messages.user(text))

/** The contents of the message entries in a file (none when it does not exist). */
const contents = (file: string): Array<string> =>
  existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))
      .filter((row) => row.type === "message").map((row) => row.message.content)
    : []

/** Polls `check` every 50 ms until it holds; fails after `ms` (generous: the machine is shared). */
const until = async (check: () => boolean, what: string, ms = 60_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A `branchlog` process whose stdin stays open for the test to write to. */
interface Live {
  readonly child: ChildProcessWithoutNullStreams
  readonly write: (text: string) => void
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>
}

const children: Array<ChildProcessWithoutNullStreams> = []
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
})

const live = (args: ReadonlyArray<string>): Live => {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"]
  })
  children.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  child.stdin.on("error", () => {}) // the child may exit before the test stops writing
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  return { child, write: (text) => void child.stdin.write(text), exited }
}

/** Holds `file`'s transcript lock from this process (another process, for the child) until `release`. */
const holdLock = async (file: string) => {
  const acquired = Deferred.unsafeMake<void>(FiberId.none)
  const release = Deferred.unsafeMake<void>(FiberId.none)
  const fiber = Effect.runFork(
    Effect.scoped(Effect.gen(function*() {
      const lock = yield* TranscriptLock.TranscriptLock
      yield* lock.acquire(file)
      yield* Deferred.succeed(acquired, undefined)
      yield* Deferred.await(release)
    })).pipe(Effect.provide(SessionStore.layerNode))
  )
  await Effect.runPromise(Deferred.await(acquired))
  return async () => {
    await Effect.runPromise(Deferred.succeed(release, undefined))
    await Effect.runPromise(Fiber.join(fiber))
  }
}

describe("append streams its input", () => {
  it("writes each line as it arrives: a writer SIGKILLed mid-stream keeps every entry it had appended", async () => {
    const file = freshFile()
    const writer = live(["append", file])
    writer.write(user("first") + "\n")
    await until(() => contents(file).length === 1, "the first entry in the file")
    writer.write(user("second") + "\n" + user("third") + "\n")
    await until(() => contents(file).length === 3, "three entries in the file")
    // the pipe is still open: the process is waiting for more input when it is killed
    writer.child.kill("SIGKILL")
    const exit = await writer.exited
    expect(exit.signal).toBe("SIGKILL")
    expect(contents(file)).toEqual(["first", "second", "third"])
    // the file stays usable: a later append continues it
    const more = await runProcess(["append", file], { input: user("fourth") + "\n" })
    expect(more.code, more.stderr).toBe(0)
    expect(contents(file)).toEqual(["first", "second", "third", "fourth"])
  }, 120_000)

  it("stops at a bad line while the pipe is still open, names the line, and keeps the entries before it", async () => {
    const file = freshFile()
    const writer = live(["append", file])
    writer.write(user("one") + "\n" + user("two") + "\n")
    await until(() => contents(file).length === 2, "two entries in the file")
    writer.write("{not json\n" + user("four") + "\n")
    // stdin is never closed: the process must end on its own
    const exit = await writer.exited
    expect(exit.code).toBe(2)
    expect(exit.stderr).toMatch(/^branchlog: stdin:3: not JSON .*; 2 appended before it$/m)
    expect(contents(file)).toEqual(["one", "two"])
  }, 120_000)

  it("joins a line split across reads, and counts lines across them", async () => {
    const volume = MemoryFileSystem.make()
    const line = user("spli✓t")
    const outcome = await runInMemory(volume, ["append", "/s/pieces.jsonl"], [
      user("a") + "\n" + line.slice(0, 10),
      line.slice(10, 20),
      line.slice(20) + "\n\n" + "[1]\n"
    ])
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toMatch(/stdin:4: not an agent message; 2 appended before it/)
    const rows = volume.readText("/s/pieces.jsonl")!.trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(rows.filter((r) => r.type === "message").map((r) => r.message.content)).toEqual(["a", "spli✓t"])
  })
})

describe("append through every store", () => {
  it(
    "a sqlite: reference (the full way, its driver loaded) and a file (the direct way) take the same input alike",
    async () => {
      const file = freshFile()
      const first = await runProcess(["append", file], { input: user("one") + "\n" })
      expect(first.code, first.stderr).toBe(0)
      const copied = await runProcess(["copy", file, `sqlite:${join(dir, "append.db")}`, "--json"])
      expect(copied.code, copied.stderr).toBe(0)
      const ref: string = JSON.parse(copied.stdout).to
      for (const target of [file, ref]) {
        const more = await runProcess(["append", target, "--json"], {
          input: user("two") + "\n" + user("three") + "\n"
        })
        expect(more.code, more.stderr).toBe(0)
        expect(JSON.parse(more.stdout)).toMatchObject({ file: target, appended: 2 })
        const context = await runProcess(["context", target, "--json"])
        expect(context.code, context.stderr).toBe(0)
        expect(JSON.stringify(JSON.parse(context.stdout))).toMatch(/"one".*"two".*"three"/)
      }
    },
    120_000
  )
})

describe("a batch that stops part-way", () => {
  it("when the disk fills, says that none of the batch was written and where a retry starts", async () => {
    const volume = MemoryFileSystem.make()
    const first = await runInMemory(volume, ["append", "/s/full.jsonl"], user("m0") + "\n")
    expect(first.code, first.stderr).toBe(0)
    const size = volume.readFile("/s/full.jsonl")!.length
    const line = volume.readText("/s/full.jsonl")!.split("\n")[1]!.length + 1
    volume.setSizeLimit("/s/full.jsonl", size + 2 * line + Math.floor(line / 2))
    const input = ["m1", "m2", "m3", "m4"].map(user).join("\n") + "\n"
    const outcome = await runInMemory(volume, ["append", "/s/full.jsonl"], input)
    expect(outcome.code).toBe(1)
    // the four lines arrive as one batch, which is one write: it fits whole or not at all
    expect(outcome.stderr).toMatch(
      /^branchlog: \/s\/full\.jsonl: append stopped at line 1 of stdin: .*ENOSPC.*; 0 entries were written before it \(a retry should start at line 1\)$/
    )
    expect(volume.readFile("/s/full.jsonl")!.length).toBe(size)
    volume.setSizeLimit("/s/full.jsonl", undefined)
    // the retry the message asks for: from line 1 on
    const retry = await runInMemory(volume, ["append", "/s/full.jsonl"], input)
    expect(retry.code, retry.stderr).toBe(0)
    const rows = volume.readText("/s/full.jsonl")!.trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(rows.filter((r) => r.type === "message").map((r) => r.message.content)).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "m4"
    ])
  })

  it("says how many entries were written when another process holds the lock past --lock-timeout", async () => {
    const file = freshFile()
    const writer = live(["append", file, "--lock-timeout", "1s"])
    writer.write(user("one") + "\n" + user("two") + "\n")
    await until(() => contents(file).length === 2, "two entries in the file")
    const release = await holdLock(file)
    try {
      writer.write(user("three") + "\n")
      const exit = await writer.exited
      expect(exit.code).toBe(1)
      expect(exit.stderr).toMatch(
        /append stopped at line 3 of stdin: transcript locked \(timeout 1000ms\): pid=\d+ .*; 2 entries were written before it \(a retry should start at line 3\)/
      )
      expect(contents(file)).toEqual(["one", "two"])
    } finally {
      await release()
    }
  }, 120_000)
})

describe("--lock-timeout and the store's notices", () => {
  const session = (file: string) => {
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" }),
        JSON.stringify({
          type: "message",
          id: "a1",
          parentId: null,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: Messages.user("hi")
        })
      ].join("\n") + "\n"
    )
  }

  it(
    "every write waits for the lock at most --lock-timeout (as a duration or milliseconds, anywhere on the line)",
    async () => {
      const file = freshFile()
      session(file)
      const release = await holdLock(file)
      try {
        const label = await runProcess(["label", file, "a1", "x", "--lock-timeout", "300ms"])
        expect(label.code).toBe(1)
        expect(label.stderr).toMatch(/transcript locked \(timeout 300ms\): pid=\d+/)
        const name = await runProcess(["--lock-timeout=250", "name", file, "n"])
        expect(name.code).toBe(1)
        expect(name.stderr).toMatch(/transcript locked \(timeout 250ms\)/)
        const repair = await runProcess(["repair", file, "--lock-timeout", "0.2s"])
        expect(repair.code).toBe(1)
        expect(repair.stderr).toMatch(/transcript locked \(timeout 200ms\)/)
      } finally {
        await release()
      }
      expect(contents(file)).toEqual(["hi"])
      const bad = await runProcess(["label", file, "a1", "x", "--lock-timeout", "soon"])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/^branchlog: --lock-timeout: not a duration: "soon"/)
      const missing = await runProcess(["label", file, "a1", "x", "--lock-timeout"])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toMatch(/--lock-timeout needs a duration/)
    },
    120_000
  )

  it("prints the notice of a stale lock taken over on stderr; stdout keeps only the command's output", async () => {
    const file = freshFile()
    session(file)
    // a lock left by a process that has exited
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: dead, hostname: hostname(), createdAt: new Date().toISOString() }, null, 2) + "\n"
    )
    const outcome = await runProcess(["label", file, "a1", "checked"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toBe(`labelled a1 "checked"\n`)
    expect(outcome.stderr).toMatch(/^branchlog: transcript lock: took over a stale lock \(dead-pid\) pid=\d+ /m)
  }, 120_000)
})
