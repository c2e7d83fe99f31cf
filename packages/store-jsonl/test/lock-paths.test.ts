/**
 * Lock paths that could never be taken: a dangling symlink (was: a CPU spun for the whole
 * timeout), a directory (was: EISDIR on every write, no hint), a live pid that cannot be the
 * holder (was: waited on for ever). Real files, real processes; each answered within seconds.
 */
import { bundledChild } from "@branchlog/tooling/children"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Testing from "../src/testing.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptLock from "../src/TranscriptLock.js"

afterAll(cleanupTempRoots)

const hasProc = fs.existsSync("/proc/self/stat")
const here = path.dirname(fileURLToPath(import.meta.url))
const packageDir = path.resolve(here, "..")
const lockChild = path.join(here, "fixtures", "lock-child.ts")
const transcript = () => path.join(tempDir(), "session.jsonl")
const writeLock = (lockPath: string, payload: Record<string, unknown>) =>
  fs.writeFileSync(lockPath, JSON.stringify(payload, null, 2) + "\n", { flag: "wx" })

/** A live process that has nothing to do with branchlog, killed when the scope closes. */
const unrelatedProcess = Effect.acquireRelease(
  Effect.sync(() => spawn("sleep", ["120"], { stdio: "ignore" })),
  (child: ChildProcess) => Effect.sync(() => child.kill("SIGKILL"))
)

describe("TranscriptLock: lock paths that could never be taken (node)", () => {
  it.scopedLive(
    "a dangling symlink at the lock path is taken over at once (the link's target is not created)",
    () =>
      Effect.gen(function*() {
        const file = transcript()
        const lockPath = `${file}.lock`
        const target = path.join(path.dirname(file), "nowhere", "x.lock")
        fs.symlinkSync(target, lockPath)
        const locks = yield* TranscriptLock.TranscriptLock
        const cpu = process.cpuUsage()
        yield* locks.withLock(
          file,
          Effect.sync(() => {
            expect(fs.lstatSync(lockPath).isFile()).toBe(true)
          })
        )
        // answered within seconds, not by spinning through the 60 s default timeout
        expect(process.cpuUsage(cpu).user / 1000).toBeLessThan(10_000)
        expect(fs.existsSync(lockPath)).toBe(false)
        expect(fs.existsSync(target)).toBe(false)
        expect(fs.readdirSync(path.dirname(file))).toEqual([])
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )

  it.scopedLive(
    "a directory at the lock path fails at once with LockUnusableError saying what to do",
    () =>
      Effect.gen(function*() {
        const file = transcript()
        const lockPath = `${file}.lock`
        fs.mkdirSync(lockPath)
        fs.writeFileSync(path.join(lockPath, "keep"), "user data")
        const locks = yield* TranscriptLock.TranscriptLock
        const error = yield* Effect.flip(locks.withLock(file, Effect.void))
        expect(error).toMatchObject({ _tag: "LockUnusableError", lockPath, kind: "directory" })
        expect(error.message).toContain("is a directory")
        expect(error.message).toContain(lockPath)
        expect(error.message).toMatch(/remove|move/)
        // nothing of the user's is touched
        expect(fs.readFileSync(path.join(lockPath, "keep"), "utf8")).toBe("user data")
        const inspected = yield* Effect.flip(locks.inspect(file))
        expect(inspected._tag).toBe("LockUnusableError")
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )

  it.scopedLive("a FIFO at the lock path is refused at once (never opened for reading)", () =>
    Effect.gen(function*() {
      const file = transcript()
      const lockPath = `${file}.lock`
      const made = spawn("mkfifo", [lockPath])
      yield* Effect.async<void>((resume) => void made.once("exit", () => resume(Effect.void)))
      if (!fs.existsSync(lockPath)) return
      const locks = yield* TranscriptLock.TranscriptLock
      const error = yield* Effect.flip(locks.withLock(file, Effect.void))
      expect(error).toMatchObject({ _tag: "LockUnusableError", kind: "fifo" })
    }).pipe(Effect.provide(TranscriptLock.layer)), 30_000)

  it.scopedLive(
    "a live unrelated pid without a start time, hours older than the staleness bound, is taken over",
    () =>
      Effect.gen(function*() {
        if (!hasProc) return
        const child = yield* unrelatedProcess
        const file = transcript()
        const lockPath = `${file}.lock`
        const hoursAgo = new Date(Date.now() - 3 * 3_600_000).toISOString()
        writeLock(lockPath, { pid: child.pid, createdAt: hoursAgo, maxHoldMs: 300_000 })
        const locks = yield* TranscriptLock.TranscriptLock
        const info = Option.getOrThrow(yield* locks.inspect(file))
        expect(info.alive).toBe(true)
        expect(info.takeover).toBe(true)
        yield* locks.withLock(file, Effect.void, { timeoutMs: 5_000 })
        expect(fs.existsSync(lockPath)).toBe(false)
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )

  it.scopedLive(
    "a live pid that started after the lock was written cannot hold it (taken over before staleMs)",
    () =>
      Effect.gen(function*() {
        if (!hasProc) return
        const child = yield* unrelatedProcess
        const file = transcript()
        const lockPath = `${file}.lock`
        writeLock(lockPath, { pid: child.pid, createdAt: new Date(Date.now() - 10 * 60_000).toISOString() })
        const locks = yield* TranscriptLock.TranscriptLock
        const info = Option.getOrThrow(yield* locks.inspect(file))
        expect(info.reasons).toContain("recycled-pid")
        yield* locks.withLock(file, Effect.void, { timeoutMs: 5_000 })
        expect(fs.existsSync(lockPath)).toBe(false)
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )

  it.scopedLive(
    "a live pid without a start time, started before its recent lock, is still waited on",
    () =>
      Effect.gen(function*() {
        if (!hasProc) return
        const child = yield* unrelatedProcess
        yield* Effect.sleep("1200 millis")
        const file = transcript()
        const lockPath = `${file}.lock`
        writeLock(lockPath, { pid: child.pid, createdAt: new Date().toISOString() })
        const locks = yield* TranscriptLock.TranscriptLock
        const error = yield* Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 300 }))
        expect(error).toMatchObject({ _tag: "LockTimeoutError", holderPid: child.pid, holderAlive: true })
        expect(JSON.parse(fs.readFileSync(lockPath, "utf8")).pid).toBe(child.pid)
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )

  it.scopedLive("a symlinked transcript and its target share one lock", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const real = path.join(dir, "real.jsonl")
      const link = path.join(dir, "link.jsonl")
      fs.writeFileSync(real, "")
      fs.symlinkSync("real.jsonl", link)
      const locks = yield* TranscriptLock.TranscriptLock
      const handle = yield* locks.acquire(link)
      expect(handle.lockPath).toBe(`${real}.lock`)
      expect(yield* locks.isHeld(real)).toBe(true)
      // another process locking the target meets this process's lock taken through the link
      const child = spawn(process.execPath, [bundledChild(lockChild), real, "try", "300"], {
        cwd: packageDir,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      child.stdout.on("data", (data: Buffer) => void (out += data.toString()))
      yield* Effect.async<void>((resume) => void child.once("exit", () => resume(Effect.void)))
      expect(JSON.parse(out.trim())).toMatchObject({ tag: "LockTimeoutError", error: { holderPid: process.pid } })
    }).pipe(Effect.provide(TranscriptLock.layer)), 30_000)
})

describe("TranscriptLock: lock paths that could never be taken (memory)", () => {
  it.live("a folder at the lock path fails at once with LockUnusableError", () => {
    const volume = MemoryFileSystem.make({ pid: 100 })
    volume.mkdir("/s/t.jsonl.lock")
    return Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const error = yield* Effect.flip(locks.withLock("/s/t.jsonl", Effect.void))
      expect(error).toMatchObject({ _tag: "LockUnusableError", kind: "directory", lockPath: "/s/t.jsonl.lock" })
      expect(volume.isDirectory("/s/t.jsonl.lock")).toBe(true)
    }).pipe(Effect.provide(Testing.layerMemory(volume)))
  })
})
