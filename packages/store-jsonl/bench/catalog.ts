/**
 * The catalog index benchmark (issue 16): `ls` of 10,000 sessions (`SessionCatalog.list` of one
 * folder, warm: the files in the page cache, the catalog index written) beside the listing without
 * the index (`index: "off"`, every file read), for sessions of 2 and of 200 entries. Target: the
 * warm listing under 200 ms and independent of the sessions' sizes. Prints a table with the load
 * average, each warm figure as the median (and range) of the wall-clock time and of the CPU time
 * (user + system) of the process; figures, not a gate (the machine is shared: the CPU time is the
 * figure least moved by other processes).
 *
 * Each warm listing is checked: it returns every session, reads no session file (only the index,
 * by the bytes-read counter) and does not write the index again (same inode and mtime); the first
 * warm one equals the listing without the index on every field but `allMessagesText`.
 *
 * Run: `node --conditions=@branchlog/source --import tsx bench/catalog.ts` in this package
 * (`BRANCHLOG_BENCH_SESSIONS=N` for fewer sessions, `BRANCHLOG_BENCH_RUNS=N` warm runs (default 15),
 * `BRANCHLOG_BENCH_FULL_RUNS=N` runs without the index (default 3), interleaved with the warm ones).
 */
import { ms, ratio, table } from "@branchlog/tooling/bench"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"
import { TranscriptFile } from "../src/TranscriptFile.js"

const count = Number(process.env.BRANCHLOG_BENCH_SESSIONS ?? 10_000)
const runs = Number(process.env.BRANCHLOG_BENCH_RUNS ?? 15)
const fullRuns = Number(process.env.BRANCHLOG_BENCH_FULL_RUNS ?? 3)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-catalog-bench-"))
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const hourAgo = Date.now() / 1000 - 3600
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ")

/** A folder of `count` sessions of `entries` entries (user and assistant messages of ~60 characters). */
const generate = (entries: number): string => {
  const dir = path.join(root, `s${entries}`)
  fs.mkdirSync(dir)
  for (let s = 0; s < count; s++) {
    const id = `${String(s).padStart(8, "0")}-0000-4000-8000-000000000000`
    const lines = [
      JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })
    ]
    let parent: string | null = null
    for (let i = 0; i < entries; i++) {
      const eid = (s * 1000 + i).toString(16).padStart(8, "0")
      const role = i % 2 === 0 ? "user" : "assistant"
      const text = `message ${i} of session ${s}: lorem ipsum dolor sit amet`
      lines.push(JSON.stringify({
        type: "message",
        id: eid,
        parentId: parent,
        timestamp: new Date(Date.UTC(2026, 0, 1) + s * 60_000 + i * 1000).toISOString(),
        message: role === "user"
          ? { role, content: text, timestamp: Date.UTC(2026, 0, 1) + s * 60_000 + i * 1000 }
          : {
            role,
            content: [{ type: "text", text }],
            provider: "p",
            model: "m",
            stopReason: "stop",
            timestamp: Date.UTC(2026, 0, 1) + s * 60_000 + i * 1000
          }
      }))
      parent = eid
    }
    const file = path.join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`)
    fs.writeFileSync(file, lines.join("\n") + "\n")
    // written an hour ago: not "racily" recent (see internal/catalogIndex.ts)
    fs.utimesSync(file, hourAgo + s / 1000, hourAgo + s / 1000)
  }
  return dir
}

interface Timed<A> {
  readonly value: A
  readonly wall: number
  readonly cpu: number
}

const time = async <A>(effect: Effect.Effect<A, unknown, SessionStore.Services>): Promise<Timed<A>> => {
  const cpu = process.cpuUsage()
  const t = performance.now()
  const value = await runtime.runPromise(effect)
  const wall = performance.now() - t
  const used = process.cpuUsage(cpu)
  return { value, wall, cpu: (used.user + used.system) / 1000 }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const spread = (xs: ReadonlyArray<number>) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`

/** Every field but `allMessagesText` (reading it would read the files of long texts). */
const fields = (infos: ReadonlyArray<SessionCatalog.SessionInfo>) =>
  JSON.stringify(infos.map((i) => [i.path, i.id, i.cwd, i.name, i.created, i.modified, i.messageCount, i.firstMessage]))

const measureFolder = async (entries: number) => {
  const dir = generate(entries)
  const catalog = path.join(dir, SessionFiles.CATALOG_NAME)
  const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
  const off = () => SessionCatalog.list("", dir, undefined, { index: "off" })
  // a listing through the index, with the session bytes it read (the index's own bytes taken off)
  const through = Effect.gen(function*() {
    const files = yield* TranscriptFile
    const before = yield* files.bytesRead
    const infos = yield* SessionCatalog.list("", dir, undefined, { index: "write" })
    return { infos, read: (yield* files.bytesRead) - before }
  })
  const loadBefore = load()
  await time(off()) // warm the page cache
  const without = (await time(off())).value
  const build = await time(through) // reads every file, writes the index
  const written = fs.statSync(catalog, { bigint: true })
  const warm: Array<{ readonly wall: number; readonly cpu: number }> = [] // (the listings themselves not kept)
  const full: Array<number> = []
  for (let i = 0; i < runs; i++) { // interleaved
    if (i % Math.max(1, Math.floor(runs / Math.max(1, fullRuns))) === 0 && full.length < fullRuns) {
      full.push((await time(off())).wall)
    }
    const run = await time(through)
    const now = fs.statSync(catalog, { bigint: true })
    if (run.value.infos.length !== count) throw new Error(`listed ${run.value.infos.length} of ${count}`)
    if (run.value.read !== Number(now.size)) throw new Error(`a warm listing read ${run.value.read} bytes`)
    if (now.ino !== written.ino || now.mtimeNs !== written.mtimeNs) throw new Error("a warm listing wrote the index")
    if (i === 0 && fields(run.value.infos) !== fields(without)) throw new Error("the warm listing differs")
    warm.push({ wall: run.wall, cpu: run.cpu })
  }
  return {
    entries,
    bytes,
    catalogBytes: Number(written.size),
    build: build.wall,
    full,
    warmWall: warm.map((r) => r.wall),
    warmCpu: warm.map((r) => r.cpu),
    load: `${loadBefore} → ${load()}`
  }
}

const main = async () => {
  const small = await measureFolder(2)
  const large = await measureFolder(200)
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
  table([
    [
      "sessions",
      "folder",
      "catalog index",
      "without index (median)",
      "first, writing the index",
      "warm wall (median, range)",
      "warm CPU (median, range)",
      "warm vs without",
      "load (1 5 15 min)"
    ],
    ...[small, large].map((r) => [
      `${count} × ${r.entries} entries`,
      mb(r.bytes),
      mb(r.catalogBytes),
      ms(median(r.full)),
      ms(r.build),
      spread(r.warmWall),
      spread(r.warmCpu),
      ratio(median(r.warmWall), median(r.full)),
      r.load
    ])
  ])
  console.log(`${runs} warm runs each, ${fullRuns} without the index; ${os.cpus().length} CPUs`)
  console.log(
    `warm 200 entries vs warm 2 entries: wall ${ratio(median(large.warmWall), median(small.warmWall))}, CPU ${
      ratio(median(large.warmCpu), median(small.warmCpu))
    }`
  )
  const met = median(small.warmWall) < 200 && median(large.warmWall) < 200
  console.log(`warm under 200 ms (median wall): ${met ? "met" : "MISSED"}`)
  await runtime.dispose()
  fs.rmSync(root, { recursive: true, force: true })
}

void main()
