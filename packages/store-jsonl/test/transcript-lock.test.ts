/**
 * TranscriptLock with real processes (Node layer) and with the fake process table (memory layer).
 */
import { bundledChild } from "@branchlog/tooling/children"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Testing from "../src/testing.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptLock from "../src/TranscriptLock.js"

afterAll(cleanupTempRoots)

const here = path.dirname(fileURLToPath(import.meta.url))
const packageDir = path.resolve(here, "..")
const holderScript = path.join(here, "fixtures", "lock-holder.mjs")
const childScript = path.join(here, "fixtures", "lock-child.ts")
const hasProc = fs.existsSync("/proc/self/stat")

const starttimeOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
}

/** Spawns a node process, killed when the scope closes; resolves once its stdout has printed `ready`. */
const spawnNode = (args: ReadonlyArray<string>, ready: string) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(process.execPath, [...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] })),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  ).pipe(Effect.tap((child) => waitForOutput(child, ready)))

const outputs = new WeakMap<ChildProcess, { text: string }>()
const waitForOutput = (child: ChildProcess, needle: string) =>
  Effect.async<string, Error>((resume) => {
    let out = outputs.get(child)
    if (out === undefined) {
      const created = { text: "" }
      out = created
      outputs.set(child, created)
      child.stdout?.on("data", (data: Buffer) => {
        created.text += data.toString()
      })
      child.stderr?.on("data", (data: Buffer) => {
        created.text += data.toString()
      })
    }
    const state = out
    const timer = setInterval(() => {
      if (state.text.includes(needle)) {
        clearInterval(timer)
        resume(Effect.succeed(state.text))
      } else if (child.exitCode !== null && !state.text.includes(needle)) {
        clearInterval(timer)
        resume(Effect.fail(new Error(`child exited (${child.exitCode}) without "${needle}": ${state.text}`)))
      }
    }, 10)
    return Effect.sync(() => clearInterval(timer))
  })

const waitExit = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

const readLock = (lockPath: string) => JSON.parse(fs.readFileSync(lockPath, "utf8")) as Record<string, unknown>

const writeLock = (lockPath: string, payload: Record<string, unknown>) =>
  fs.writeFileSync(lockPath, JSON.stringify(payload, null, 2) + "\n", { flag: "wx" })

const nodeLock = TranscriptLock.layer
const transcript = () => path.join(tempDir(), "session.jsonl")

describe("TranscriptLock (node, real processes)", () => {
  it.scopedLive("a lock left by a dead pid is taken over", () =>
    Effect.gen(function*() {
      const file = transcript()
      const lockPath = `${file}.lock`
      const child = yield* spawnNode([holderScript, lockPath, "exit"], "ready")
      yield* waitExit(child)
      expect(readLock(lockPath).pid).toBe(child.pid)
      const locks = yield* TranscriptLock.TranscriptLock
      yield* locks.withLock(
        file,
        Effect.sync(() => {
          const payload = readLock(lockPath)
          expect(payload.pid).toBe(process.pid)
          expect(payload.hostname).toBe(os.hostname())
          expect(typeof payload.token).toBe("string")
          if (hasProc) expect(payload.starttime).toBe(starttimeOf(process.pid))
        }),
        { timeoutMs: 2000 }
      )
      expect(fs.existsSync(lockPath)).toBe(false)
      expect(fs.readdirSync(path.dirname(file))).toEqual([])
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive("a live holder makes the waiter time out with the holder named", () =>
    Effect.gen(function*() {
      const file = transcript()
      const lockPath = `${file}.lock`
      const child = yield* spawnNode([holderScript, lockPath, "hold", "20000"], "ready")
      const locks = yield* TranscriptLock.TranscriptLock
      const started = Date.now()
      const error = yield* Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 300 }))
      expect(Date.now() - started).toBeGreaterThanOrEqual(290)
      expect(error._tag).toBe("LockTimeoutError")
      if (error._tag !== "LockTimeoutError") return
      expect(error.holderPid).toBe(child.pid)
      expect(error.holderAlive).toBe(true)
      expect(error.lockPath).toBe(lockPath)
      expect(error.ageMs).toBeGreaterThanOrEqual(0)
      expect(error.message).toContain(`pid=${child.pid}`)
      expect(error.message).toContain("alive=true")
      expect(readLock(lockPath).pid).toBe(child.pid) // untouched
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive("a waiter gets the lock once the live holder dies", () =>
    Effect.gen(function*() {
      const file = transcript()
      const lockPath = `${file}.lock`
      yield* spawnNode([holderScript, lockPath, "hold", "300"], "ready")
      const locks = yield* TranscriptLock.TranscriptLock
      const handle = yield* locks.acquire(file, { timeoutMs: 10_000 })
      expect(readLock(lockPath).token).toBe(handle.token)
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive("a recycled pid (starttime mismatch) is taken over; too-old alone is report-only", () =>
    Effect.gen(function*() {
      if (!hasProc) return
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const lockPath = `${file}.lock`
      const ppid = process.ppid
      writeLock(lockPath, { pid: ppid, createdAt: new Date().toISOString(), starttime: starttimeOf(ppid) + 1 })
      yield* locks.withLock(file, Effect.void, { timeoutMs: 1000 })
      expect(fs.existsSync(lockPath)).toBe(false)

      const old = new Date(Date.now() - 3_600_000).toISOString()
      writeLock(lockPath, { pid: ppid, createdAt: old, starttime: starttimeOf(ppid), maxHoldMs: 1000 })
      const error = yield* Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 200, staleMs: 60_000 }))
      expect(error).toMatchObject({ _tag: "LockTimeoutError", holderPid: ppid, holderAlive: true })
      if (error._tag === "LockTimeoutError") expect(error.staleReasons).toEqual(["too-old", "hold-exceeded"])
      const info = Option.getOrThrow(yield* locks.inspect(file, { staleMs: 60_000 }))
      expect(info.takeover).toBe(false)
      expect(readLock(lockPath).pid).toBe(ppid)
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive("a malformed lock is waited on during its grace period and taken over after it", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const lockPath = `${file}.lock`
      fs.writeFileSync(lockPath, "{\"pid\": 12")
      const error = yield* Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 150 }))
      expect(error).toMatchObject({ _tag: "LockTimeoutError" })
      if (error._tag === "LockTimeoutError") expect(error.staleReasons).toContain("malformed")
      const past = new Date(Date.now() - 60_000)
      fs.utimesSync(lockPath, past, past)
      yield* locks.withLock(file, Effect.void, { timeoutMs: 1000 })
      expect(fs.existsSync(lockPath)).toBe(false)
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive("a lock file of this very process that nobody here holds (orphan) is taken over", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      writeLock(`${file}.lock`, {
        pid: process.pid,
        createdAt: new Date().toISOString(),
        ...(hasProc ? { starttime: starttimeOf(process.pid) } : {})
      })
      const handle = yield* locks.acquire(file, { timeoutMs: 1000 })
      expect(readLock(`${file}.lock`).token).toBe(handle.token)
    }).pipe(Effect.provide(nodeLock)))

  it.live("the lock is released when the scope closes, on success, failure and interruption", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const lockPath = `${file}.lock`
      yield* Effect.scoped(Effect.gen(function*() {
        const handle = yield* locks.acquire(file)
        expect(handle.lockPath).toBe(lockPath)
        expect(fs.existsSync(lockPath)).toBe(true)
        expect(yield* locks.isHeld(file)).toBe(true)
      }))
      expect(fs.existsSync(lockPath)).toBe(false)
      expect(yield* locks.isHeld(file)).toBe(false)

      const failed = yield* Effect.flip(locks.withLock(file, Effect.fail("boom" as const)))
      expect(failed).toBe("boom")
      expect(fs.existsSync(lockPath)).toBe(false)

      const entered = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        locks.withLock(file, Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never))
      )
      yield* Deferred.await(entered)
      expect(fs.existsSync(lockPath)).toBe(true)
      yield* Fiber.interrupt(fiber)
      expect(fs.existsSync(lockPath)).toBe(false)

      // released = usable again right away
      yield* locks.withLock(file, Effect.void, { timeoutMs: 100 })
    }).pipe(Effect.provide(nodeLock)))

  it.live("release removes the lock file only if it still holds our token", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const lockPath = `${file}.lock`
      yield* locks.withLock(
        file,
        Effect.sync(() => {
          fs.rmSync(lockPath)
          writeLock(lockPath, { pid: 1, createdAt: new Date().toISOString(), token: "someone-else" })
        })
      )
      expect(readLock(lockPath).token).toBe("someone-else")
    }).pipe(Effect.provide(nodeLock)))

  it.live("two fibers of one process are serialised, and re-entrancy counts up", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const lockPath = `${file}.lock`
      const events: Array<string> = []
      const critical = (name: string) =>
        locks.withLock(
          file,
          Effect.gen(function*() {
            events.push(`${name}:in`)
            yield* Effect.sleep("30 millis")
            // re-entrant: the same fiber nests without waiting
            const inner = yield* Effect.scoped(locks.acquire(file, { timeoutMs: 10 }))
            expect(inner.reentrant).toBe(true)
            expect(fs.existsSync(lockPath)).toBe(true)
            events.push(`${name}:out`)
          })
        )
      yield* Effect.all([critical("a"), critical("b"), critical("c")], { concurrency: "unbounded" })
      expect(events).toHaveLength(6)
      for (let i = 0; i < 6; i += 2) {
        expect(events[i]?.endsWith(":in")).toBe(true)
        expect(events[i + 1]).toBe(events[i]?.replace(":in", ":out"))
      }
      expect(fs.existsSync(lockPath)).toBe(false)
    }).pipe(Effect.provide(nodeLock)))

  it.live("an in-process waiter times out naming this process as the holder", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      const file = transcript()
      const entered = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        locks.withLock(file, Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never))
      )
      yield* Deferred.await(entered)
      const error = yield* Effect.flip(locks.withLock(file, Effect.void, { timeoutMs: 100 }))
      expect(error).toMatchObject({ _tag: "LockTimeoutError", holderPid: process.pid, holderAlive: true })
      yield* Fiber.interrupt(holder)
    }).pipe(Effect.provide(nodeLock)))

  it.scopedLive(
    "another process using TranscriptLock waits on us, and its lock is removed on SIGTERM",
    () =>
      Effect.gen(function*() {
        const locks = yield* TranscriptLock.TranscriptLock
        const file = transcript()
        const lockPath = `${file}.lock`
        yield* Effect.scoped(Effect.gen(function*() {
          yield* locks.acquire(file)
          const child = yield* spawnNode([bundledChild(childScript), file, "try", "200"], "\n")
          yield* waitExit(child)
          const result = JSON.parse((outputs.get(child)?.text ?? "").trim()) as Record<string, unknown>
          expect(result.tag).toBe("LockTimeoutError")
          expect(result.message).toContain(`pid=${process.pid}`)
        }))
        expect(fs.existsSync(lockPath)).toBe(false)

        const holder = yield* spawnNode([bundledChild(childScript), file, "hold"], "locked")
        expect(readLock(lockPath).pid).toBe(holder.pid)
        holder.kill("SIGTERM")
        yield* waitExit(holder)
        expect(holder.signalCode).toBe("SIGTERM")
        expect(fs.existsSync(lockPath)).toBe(false)
      }).pipe(Effect.provide(nodeLock)),
    120_000
  )

  it.scopedLive(
    "a process that has let its lock go still ends on SIGINT / SIGTERM (the handlers linger, harmlessly)",
    () =>
      Effect.gen(function*() {
        const file = transcript()
        for (const signal of ["SIGTERM", "SIGINT"] as const) {
          const child = yield* spawnNode([bundledChild(childScript), file, "released"], "released")
          child.kill(signal)
          yield* waitExit(child)
          expect(child.signalCode).toBe(signal)
        }
        expect(fs.existsSync(`${file}.lock`)).toBe(false)
      }),
    120_000
  )

  it.live("takes the signal handlers away a moment after the last lock is let go", () =>
    Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      yield* Effect.sleep("1200 millis") // the handlers of earlier tests' locks are gone by now
      const before = process.listenerCount("SIGTERM")
      yield* locks.withLock(transcript(), Effect.void)
      yield* locks.withLock(transcript(), Effect.void)
      expect(process.listenerCount("SIGTERM")).toBeLessThanOrEqual(before + 1)
      yield* Effect.sleep("1500 millis")
      expect(process.listenerCount("SIGTERM")).toBe(before)
    }).pipe(Effect.provide(nodeLock)), 10_000)
})

describe("TranscriptLock (memory, fake process table)", () => {
  const setup = () => {
    const volume = MemoryFileSystem.make({ pid: 100 })
    volume.mkdir("/s")
    return { volume, layer: Testing.layerMemory(volume) }
  }

  it.live("a dead fake pid is taken over; a live one times out naming it; release on scope close", () => {
    const { volume, layer } = setup()
    const payload = (pid: number) =>
      JSON.stringify({ pid, hostname: volume.hostname, createdAt: new Date().toISOString() })
    return Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      volume.addProcess(200, 7)
      volume.writeFile("/s/t.jsonl.lock", payload(200))
      const error = yield* Effect.flip(locks.withLock("/s/t.jsonl", Effect.void, { timeoutMs: 100 }))
      expect(error).toMatchObject({
        _tag: "LockTimeoutError",
        holderPid: 200,
        holderAlive: true,
        holderHostname: "memory-host"
      })
      volume.killProcess(200)
      yield* locks.withLock(
        "/s/t.jsonl",
        Effect.sync(() => {
          expect(JSON.parse(volume.readText("/s/t.jsonl.lock") ?? "{}").pid).toBe(100)
        }),
        { timeoutMs: 100 }
      )
      expect(volume.exists("/s/t.jsonl.lock")).toBe(false)
      expect(volume.list("/s")).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.live("two layers over one volume share the in-process lock state", () => {
    const { volume } = setup()
    return Effect.gen(function*() {
      const a = yield* Effect.provide(TranscriptLock.TranscriptLock, Testing.layerMemory(volume))
      const b = yield* Effect.provide(TranscriptLock.TranscriptLock, Testing.layerMemory(volume))
      const entered = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        a.withLock("/s/x.jsonl", Effect.zipRight(Deferred.succeed(entered, undefined), Effect.never))
      )
      yield* Deferred.await(entered)
      const error = yield* Effect.flip(b.withLock("/s/x.jsonl", Effect.void, { timeoutMs: 80 }))
      expect(error).toMatchObject({ _tag: "LockTimeoutError", holderPid: 100 })
      yield* Fiber.interrupt(holder)
      yield* b.withLock("/s/x.jsonl", Effect.void, { timeoutMs: 80 })
    })
  })
})
