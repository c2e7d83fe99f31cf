/**
 * The transcript lock's own cost, beside what the kernel charges for it, measured in one process:
 *
 * - `appendFileSync` of one 300-byte line (the session-store benchmark's baseline);
 * - the lock file's syscalls alone, in plain node:fs (realpath, exclusive create + write + close,
 *   read back + unlink): what no implementation of this lock can go below;
 * - `TranscriptLock.withLock(path, Effect.void)`, wall and CPU time (user + system) per lock;
 * - the syscalls of one append that takes the lock (the lock's, the snapshot check, the append
 *   and the snapshot after it), in plain node:fs: the floor of "append, each taking the lock".
 *
 * Run with `node --conditions=@branchlog/source --import tsx bench/lock.ts` (N=… for more rounds).
 * Timings on shared machines are noisy: figures, not a gate; the CPU time moves less with load.
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TranscriptLock from "../src/TranscriptLock.js"

const runtime = ManagedRuntime.make(TranscriptLock.layer)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-lock-bench-"))
const n = Number(process.env.N ?? 3000)
const file = path.join(root, "t.jsonl")
const lockPath = `${file}.lock`
const bareFile = path.join(root, "bare.jsonl")
fs.writeFileSync(file, "{}\n")
const line = "x".repeat(299) + "\n"

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
/** Microseconds per round, wall and CPU. */
const time = async (f: () => unknown): Promise<{ wall: number; cpu: number }> => {
  const c = cpuMs()
  const t = performance.now()
  await f()
  return { wall: (performance.now() - t) / n * 1000, cpu: (cpuMs() - c) / n * 1000 }
}

const payload = () =>
  JSON.stringify(
    { pid: process.pid, hostname: os.hostname(), createdAt: new Date().toISOString(), token: randomUUID() },
    null,
    2
  ) + "\n"

const rawLock = () => {
  fs.realpathSync.native(file)
  const fd = fs.openSync(lockPath, "wx", 0o600)
  fs.writeSync(fd, payload())
  fs.closeSync(fd)
  fs.readFileSync(lockPath, "utf8")
  fs.unlinkSync(lockPath)
}

const rawLockedAppend = () => {
  rawLock()
  // the snapshot check, the append (last byte read back, one write, the size after) and the snapshot after it
  fs.statSync(file, { bigint: true })
  const fd = fs.openSync(file, fs.constants.O_APPEND | fs.constants.O_RDWR)
  const size = fs.fstatSync(fd).size
  fs.readSync(fd, Buffer.alloc(1), 0, 1, size - 1)
  fs.writeSync(fd, line)
  fs.fstatSync(fd)
  fs.closeSync(fd)
  fs.statSync(file)
  const read = fs.openSync(file, "r")
  const st = fs.fstatSync(read)
  const tail = Buffer.alloc(Math.min(4096, st.size))
  fs.readSync(read, tail, 0, tail.length, st.size - tail.length)
  fs.closeSync(read)
  createHash("sha256").update(tail).digest("hex")
}

const withLock = () =>
  runtime.runPromise(Effect.gen(function*() {
    const locks = yield* TranscriptLock.TranscriptLock
    for (let i = 0; i < n; i++) yield* locks.withLock(file, Effect.void)
  }))

const us = (x: number) => `${x.toFixed(1)} µs`
console.log(`transcript lock benchmark (node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)}, ${n} rounds)`)
for (let round = 0; round < 3; round++) {
  const bare = await time(() => {
    for (let i = 0; i < n; i++) fs.appendFileSync(bareFile, line)
  })
  const raw = await time(() => {
    for (let i = 0; i < n; i++) rawLock()
  })
  const ours = await time(withLock)
  const floor = await time(() => {
    for (let i = 0; i < n; i++) rawLockedAppend()
  })
  console.log(
    [
      `appendFileSync ${us(bare.wall)}`,
      `lock syscalls alone ${us(raw.wall)} (${(raw.wall / bare.wall).toFixed(1)}×)`,
      `withLock ${us(ours.wall)} (${(ours.wall / bare.wall).toFixed(1)}×; CPU ${us(ours.cpu)} vs ${us(raw.cpu)} raw)`,
      `syscalls of a locked append ${us(floor.wall)} (${(floor.wall / bare.wall).toFixed(1)}×)`
    ].join(" | ")
  )
}
await runtime.dispose()
fs.rmSync(root, { recursive: true, force: true })
