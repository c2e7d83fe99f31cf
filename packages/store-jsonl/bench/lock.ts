/**
 * The transcript lock's own cost, beside what the kernel charges for it, measured in one process:
 *
 * - `appendFileSync` of one 300-byte line (the session-store benchmark's baseline);
 * - the lock file's syscalls alone, in plain node:fs (realpath, exclusive create + write, then
 *   fstat + lstat of the kept descriptor and the path, unlink, close): what no implementation of
 *   this lock can go below;
 * - `TranscriptLock.withLock(path, Effect.void)`, wall and CPU time (user + system) per lock;
 * - the syscalls of one append that takes the lock, as `SessionManager` makes them (the lock's,
 *   the snapshot check by a stat of the path, the append through the kept descriptor with the
 *   fstat after it, the lock's release): 13 syscalls, in plain node:fs, the floor of "append,
 *   each taking the lock";
 * - `SessionManager.appendMessage` outside `withWriteLock` (each append takes the lock), wall and
 *   CPU time per append, beside `appendFileSync` of a line of the same size and beside that floor.
 *
 * Run with `node --conditions=@branchlog/source --import tsx bench/lock.ts` (N=… for more rounds).
 * Timings on shared machines are noisy: figures, not a gate; the CPU time moves less with load.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionStore from "../src/SessionStore.js"
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
  // the release: the lock path still names the file we keep open, then remove and close it
  const own = fs.fstatSync(fd, { bigint: true })
  const there = fs.lstatSync(lockPath, { bigint: true })
  if (there.ino === own.ino) fs.unlinkSync(lockPath)
  fs.closeSync(fd)
}

let kept: number | undefined
const rawLockedAppend = () => {
  // the lock: the transcript's real path, the lock file created with its payload (kept open)
  fs.realpathSync.native(file)
  const lock = fs.openSync(lockPath, "wx", 0o600)
  fs.writeSync(lock, payload())
  // the snapshot check through the path (the descriptor of the last append kept open), then one
  // write and the fstat the next snapshot is worked out from
  kept ??= fs.openSync(file, fs.constants.O_APPEND | fs.constants.O_WRONLY)
  fs.statSync(file, { bigint: true })
  fs.writeSync(kept, line)
  fs.fstatSync(kept, { bigint: true })
  // the release
  const own = fs.fstatSync(lock, { bigint: true })
  const there = fs.lstatSync(lockPath, { bigint: true })
  if (there.ino === own.ino) fs.unlinkSync(lockPath)
  fs.closeSync(lock)
}

/** The same append as the protocol had it before the lock file and the transcript stayed open (17 syscalls). */
const rawLockedAppendBefore = () => {
  fs.realpathSync.native(file)
  const lock = fs.openSync(lockPath, "wx", 0o600)
  fs.writeSync(lock, payload())
  fs.closeSync(lock)
  const fd = fs.openSync(file, fs.constants.O_APPEND | fs.constants.O_WRONLY)
  fs.fstatSync(fd, { bigint: true })
  fs.writeSync(fd, line)
  fs.fstatSync(fd, { bigint: true })
  fs.closeSync(fd)
  const read = fs.openSync(lockPath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  fs.readSync(read, Buffer.allocUnsafe(1024), 0, 1024, 0)
  fs.closeSync(read)
  fs.unlinkSync(lockPath)
}

const withLock = () =>
  runtime.runPromise(Effect.gen(function*() {
    const locks = yield* TranscriptLock.TranscriptLock
    for (let i = 0; i < n; i++) yield* locks.withLock(file, Effect.void)
  }))

// appends that each take the lock, through SessionManager (entries of about the baseline's 300 bytes)
const managers = ManagedRuntime.make(SessionStore.layerNode)
const message = { role: "user", content: "x".repeat(200), timestamp: 1_777_000_000_000 } as const
const session = await managers.runPromise(
  SessionManager.create("/bench", path.join(root, "sessions"), { eagerFlush: true })
)
const lockedAppends = () =>
  managers.runPromise(Effect.gen(function*() {
    for (let i = 0; i < n; i++) yield* session.appendMessage(message)
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
  const before = await time(() => {
    for (let i = 0; i < n; i++) rawLockedAppendBefore()
  })
  const appends = await time(lockedAppends)
  console.log(
    [
      `appendFileSync ${us(bare.wall)}`,
      `lock syscalls alone ${us(raw.wall)} (${(raw.wall / bare.wall).toFixed(1)}×)`,
      `withLock ${us(ours.wall)} (${(ours.wall / bare.wall).toFixed(1)}×; CPU ${us(ours.cpu)} vs ${us(raw.cpu)} raw)`,
      `syscalls of a locked append ${us(floor.wall)} (${(floor.wall / bare.wall).toFixed(1)}×; the 17 of before ${
        us(before.wall)
      }, ${(before.wall / bare.wall).toFixed(1)}×)`,
      `SessionManager append, each taking the lock ${us(appends.wall)} (${(appends.wall / bare.wall).toFixed(1)}×, ${
        (appends.wall / floor.wall).toFixed(2)
      }× the syscalls; CPU ${us(appends.cpu)} vs ${us(floor.cpu)})`
    ].join(" | ")
  )
}
const written = fs.readFileSync(session.getSessionFile()!, "utf8").split("\n")
console.log(
  `(an entry line is ${Buffer.byteLength(written[written.length - 2]!) + 1} bytes, the baseline's ${line.length})`
)
await managers.dispose()
await runtime.dispose()
fs.rmSync(root, { recursive: true, force: true })
