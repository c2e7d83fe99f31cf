/**
 * The catalog index benchmark (issue 16): `ls` of 10,000 sessions (`SessionCatalog.list` of one
 * folder, warm: the files in the page cache, the catalog index written) beside the listing without
 * the index (`index: "off"`, every file read), for sessions of 2 and of 200 entries. Target: the
 * warm listing under 200 ms and independent of the sessions' sizes. Prints a table; figures, not
 * a gate (the machine is shared).
 *
 * Run: `node --conditions=@branchlog/source --import tsx bench/catalog.ts` in this package
 * (`BRANCHLOG_BENCH_SESSIONS=N` for fewer sessions, `BRANCHLOG_BENCH_RUNS=N` for fewer runs).
 */
import { ms, ratio, table } from "@branchlog/tooling/bench"
import type * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"

const count = Number(process.env.BRANCHLOG_BENCH_SESSIONS ?? 10_000)
const runs = Number(process.env.BRANCHLOG_BENCH_RUNS ?? 7)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-catalog-bench-"))
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const hourAgo = Date.now() / 1000 - 3600

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

const time = async (effect: Effect.Effect<unknown, unknown, SessionStore.Services>) => {
  const t = performance.now()
  await runtime.runPromise(effect)
  return performance.now() - t
}

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

const measureFolder = async (entries: number) => {
  const dir = generate(entries)
  const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
  const off = () => SessionCatalog.list("", dir, undefined, { index: "off" })
  const through = () => SessionCatalog.list("", dir, undefined, { index: "write" })
  await time(off()) // warm the page cache
  const build = await time(through()) // reads every file, writes the index
  const catalogBytes = fs.statSync(path.join(dir, SessionFiles.CATALOG_NAME)).size
  const warm: Array<number> = []
  const full: Array<number> = []
  for (let i = 0; i < runs; i++) { // interleaved
    full.push(await time(off()))
    warm.push(await time(through()))
  }
  const listed = await runtime.runPromise(through())
  if (listed.length !== count) throw new Error(`listed ${listed.length} of ${count}`)
  return { entries, bytes, catalogBytes, build, warm: median(warm), full: median(full) }
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
      "warm (median)",
      "warm vs without"
    ],
    ...[small, large].map((r) => [
      `${count} × ${r.entries} entries`,
      mb(r.bytes),
      mb(r.catalogBytes),
      ms(r.full),
      ms(r.build),
      ms(r.warm),
      ratio(r.warm, r.full)
    ])
  ])
  console.log(`warm 200 entries vs warm 2 entries: ${ratio(large.warm, small.warm)}`)
  console.log(`warm under 200 ms: ${small.warm < 200 && large.warm < 200 ? "met" : "MISSED"}`)
  await runtime.dispose()
  fs.rmSync(root, { recursive: true, force: true })
}

void main()
