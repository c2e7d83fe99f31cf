/**
 * The lock layer's state belongs to a layer, not to the process: each Node backend has its own
 * held locks for the exit and signal handlers (and its own handlers and timer), its own boot-time
 * cache and its own count of temporary files. What a lock file names, a pid, is the process's:
 * the held locks and gates (`ProcessLocks`) are shared, so two layers of one process never take
 * each other's lock over as an orphan. And the in-process gate: waiters that give up leave it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import { makeLockRegistry, ProcessLocks } from "../src/internal/backend.js"
import * as NodeBackend from "../src/internal/nodeBackend.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptLock from "../src/TranscriptLock.js"
import { start } from "./support/children.js"

afterAll(cleanupTempRoots)

const lockChild = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "lock-child.ts")
const transcript = () => path.join(tempDir(), "session.jsonl")
const lockOf = (token: string) => JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString(), token })

/** A fake /proc: a boot time and one process's stat line (start time in ticks in field 22). */
const fakeProc = (btime: number, pid: number, ticks: number) => {
  const reads: Array<string> = []
  const read = (file: string) => {
    reads.push(file)
    if (file === "/proc/stat") return `cpu 1 2 3\nbtime ${btime}\nprocesses 9\n`
    if (file === `/proc/${pid}/stat`) {
      return `${pid} (a b) S ${Array.from({ length: 18 }, () => "0").join(" ")} ${ticks} 0`
    }
    return undefined
  }
  return { read, reads }
}

const buildLock = Effect.map(Layer.build(TranscriptLock.layer), Context.get(TranscriptLock.TranscriptLock))

describe("the lock layer's state is the layer's (node)", () => {
  it.effect("two backends keep their own held locks for the exit handlers, and only their own handlers", () =>
    Effect.sync(() => {
      const locks = makeLockRegistry()
      const a = NodeBackend.make(locks)
      const b = NodeBackend.make(locks)
      const file = transcript()
      const lockPath = `${file}.lock`
      fs.writeFileSync(lockPath, lockOf("token-a"))
      a.backend.registerHeld(lockPath, "token-a")
      try {
        expect(a.cleanup.installed()).toBe(true)
        expect(b.cleanup.installed()).toBe(false)
        // b's exit cleanup knows nothing of a's lock
        b.cleanup.removeHeld()
        expect(fs.existsSync(lockPath)).toBe(true)
        a.cleanup.removeHeld()
        expect(fs.existsSync(lockPath)).toBe(false)
      } finally {
        a.backend.unregisterHeld(lockPath)
        a.cleanup.dispose()
        b.cleanup.dispose()
      }
      expect(a.cleanup.installed()).toBe(false)
    }))

  it.effect("two backends keep their own boot-time cache and their own count of temporary files", () =>
    Effect.sync(() => {
      const locks = makeLockRegistry()
      const first = fakeProc(1_000, 42, 500)
      const second = fakeProc(2_000, 42, 500)
      const a = NodeBackend.make(locks, { readProc: first.read }).backend
      const b = NodeBackend.make(locks, { readProc: second.read }).backend
      // boot time + 500 ticks of 10 ms
      expect(a.startedAtMs(42)).toBe(1_000_000 + 5_000)
      expect(b.startedAtMs(42)).toBe(2_000_000 + 5_000)
      expect(a.startedAtMs(42)).toBe(1_005_000)
      // cached per backend: /proc/stat read once by each
      expect(first.reads.filter((f) => f === "/proc/stat")).toHaveLength(1)
      expect(second.reads.filter((f) => f === "/proc/stat")).toHaveLength(1)
      expect([a.nextTemporary(), a.nextTemporary(), b.nextTemporary(), a.nextTemporary()]).toEqual([0, 1, 0, 2])
    }))

  it.live(
    "two layers built in one process: each its own handlers while it holds a lock; neither takes the other's lock over",
    () =>
      Effect.gen(function*() {
        const before = process.listenerCount("exit")
        const file = transcript()
        yield* Effect.scoped(Effect.gen(function*() {
          const a = yield* buildLock
          const b = yield* buildLock
          // a holds the lock in a fiber of its own (a fiber forked by a holder inherits what it owns)
          const entered = yield* Deferred.make<void>()
          const holder = yield* Effect.fork(
            a.withLock(file, Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never))
          )
          yield* Deferred.await(entered)
          expect(process.listenerCount("exit")).toBe(before + 1)
          yield* b.acquire(`${file}.2`)
          expect(process.listenerCount("exit")).toBe(before + 2)
          // through the other layer: the lock file names this pid, which holds it (not an orphan to take over)
          const error = yield* Effect.flip(b.withLock(file, Effect.void, { timeoutMs: 150 }))
          expect(error).toMatchObject({ _tag: "LockTimeoutError", holderPid: process.pid, holderAlive: true })
          expect(fs.existsSync(`${file}.lock`)).toBe(true)
          yield* Fiber.interrupt(holder)
        }))
        // released, and the layers' handlers went with the layers
        expect(fs.existsSync(`${file}.lock`)).toBe(false)
        expect(fs.existsSync(`${file}.2.lock`)).toBe(false)
        expect(process.listenerCount("exit")).toBe(before)
      }),
    30_000
  )

  it.live(
    "a process holding locks through two layers removes both on SIGTERM and still ends by it",
    () =>
      Effect.promise(async () => {
        const file = transcript()
        const child = start([lockChild, file, "hold-two-layers"])
        const deadline = Date.now() + 60_000
        while (!child.output.includes("locked") && Date.now() < deadline && child.process.exitCode === null) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        expect(child.output).toContain("locked")
        expect(fs.existsSync(`${file}.lock`)).toBe(true)
        expect(fs.existsSync(`${file}.2.lock`)).toBe(true)
        child.process.kill("SIGTERM")
        await child.exited
        expect(child.process.signalCode).toBe("SIGTERM")
        expect(fs.existsSync(`${file}.lock`)).toBe(false)
        expect(fs.existsSync(`${file}.2.lock`)).toBe(false)
      }),
    120_000
  )
})

describe("the in-process gate (node)", () => {
  it.live(
    "waiters that time out or are interrupted leave the queue; the next in line gets the lock; no gate is left",
    () =>
      Effect.gen(function*() {
        const registry = yield* ProcessLocks
        const locks = yield* TranscriptLock.TranscriptLock
        const file = transcript()
        const lockPath = `${file}.lock`
        const release = yield* Deferred.make<void>()
        const entered = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(
          locks.withLock(file, Effect.zipRight(Deferred.succeed(entered, undefined), Deferred.await(release)))
        )
        yield* Deferred.await(entered)
        const impatient = yield* Effect.fork(Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 50 })))
        const interrupted = yield* Effect.fork(locks.withLock(file, Effect.void))
        const order: Array<string> = []
        const patient = (name: string) =>
          Effect.fork(locks.withLock(file, Effect.sync(() => void order.push(name)), { timeoutMs: 60_000 }))
        const first = yield* patient("first")
        yield* Effect.sleep("20 millis")
        const second = yield* patient("second")
        expect((yield* Fiber.join(impatient))._tag).toBe("LockTimeoutError")
        yield* Fiber.interrupt(interrupted)
        expect(registry.gates.get(lockPath)?.waiters).toHaveLength(2)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        yield* Fiber.join(first)
        yield* Fiber.join(second)
        expect(order).toEqual(["first", "second"])
        expect(registry.gates.has(lockPath)).toBe(false)
        expect(registry.held.has(lockPath)).toBe(false)
        expect(fs.existsSync(lockPath)).toBe(false)
        // and it is free for the next one at once
        yield* locks.withLock(file, Effect.void, { timeoutMs: 100 })
      }).pipe(Effect.provide(TranscriptLock.layer)),
    30_000
  )
})
