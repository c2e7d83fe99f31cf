/**
 * `appendMessages` before and after a change, in one run (as `compare.ts`: each build in processes
 * of its own, interleaved round by round, one warm-up and one timed run per process), on real files
 * (eagerFlush):
 *
 * - locked: 1,000 batches of 10 messages, each `appendMessages` taking the transcript lock itself;
 * - held: 1,000 batches of 10 inside one `withWriteLock`;
 * - fsync: 100 batches of 10 with `durability: "fsync"`, each taking the lock.
 *
 * Run (both builds built): `BRANCHLOG_BENCH_BEFORE=/path/to/other/packages/session-store node
 * --import tsx bench/batch.ts` (`BRANCHLOG_BENCH_ROUNDS=N`, default 7). Prints medians and after /
 * before.
 *
 * Issue 28 (a batch committed once, not once per message), 7 Dec 2026 06:53–07:01 UTC, the 2-core
 * machine shared with other sessions (load 7–12: read the ratios), medians, before = the build at
 * 5d389cc (one write per message under one hold), after = one write per batch. 7 rounds: locked
 * 2.25 s → 1.13 s (0.50×), held 2.05 s → 506 ms (0.25×), fsync 4.38 s → 931 ms (0.21×); an earlier
 * run of 5 rounds: 0.56×, 0.21×, 0.22×. Every locked batch took the one-step path
 * (`unsafeAppendLocked`: lock, check, one write, release), as single appends do.
 */
import { ms, ratio, table } from "@branchlog/tooling/bench"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const after = path.resolve(import.meta.dirname, "..")
const before = process.env.BRANCHLOG_BENCH_BEFORE
if (before === undefined || !fs.existsSync(path.join(before, "dist", "index.js"))) {
  throw new Error(
    "BRANCHLOG_BENCH_BEFORE must name another built package folder (store-jsonl, or session-store from before the move)"
  )
}
const rounds = Number(process.env.BRANCHLOG_BENCH_ROUNDS ?? 7)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-bench-batch-"))

/** The worker: one case, one warm-up run and one timed run, the time printed on stdout. */
const worker = `
import * as Effect from "effect/Effect"
import * as path from "node:path"
import * as pkg from "./dist/index.js"
// a build from before store-jsonl holds SessionManager itself; a later one takes it from session-store
const { SessionStore } = pkg
const SessionManager = pkg.SessionManager ?? (await import("@branchlog/session-store")).SessionManager
const [kind, scratch] = process.argv.slice(2)
const run = (effect) => Effect.runPromise(Effect.provide(effect, SessionStore.layerNode))
const message = (i) => ({ role: "user", content: "message " + i + ": " + "lorem ipsum dolor sit amet ".repeat(12), timestamp: 1777000000000 + i })
const once = async (round) => {
  const dir = path.join(scratch, kind + "-" + process.pid + "-" + round)
  const fsync = kind === "fsync"
  const sm = await run(SessionManager.create("/bench", dir, fsync ? { eagerFlush: true, durability: "fsync" } : { eagerFlush: true }))
  const batches = fsync ? 100 : 1000
  const all = Effect.gen(function*() {
    for (let b = 0; b < batches; b++) {
      yield* sm.appendMessages(Array.from({ length: 10 }, (_, i) => message(b * 10 + i)))
    }
  })
  return run(kind === "held" ? sm.withWriteLock(all) : all)
}
await once(0)
const t = performance.now()
await once(1)
process.stdout.write(String(performance.now() - t))
`

const workers = [before, after].map((dir) => {
  const file = path.join(dir, `.bench-batch-worker-${process.pid}.mjs`)
  fs.writeFileSync(file, worker)
  return file
})
process.on("exit", () => {
  for (const file of workers) fs.rmSync(file, { force: true })
  fs.rmSync(root, { recursive: true, force: true })
})

const time = (workerFile: string, kind: string): number => {
  const out = spawnSync(process.execPath, [workerFile, kind, root], { encoding: "utf8" })
  if (out.status !== 0) throw new Error(`${workerFile} ${kind}: exit ${out.status}\n${out.stderr}`)
  return Number(out.stdout)
}
const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const rows: Array<Array<string>> = [["case", "before", "after", "after / before"]]
for (
  const [kind, name] of [
    ["locked", "1,000 batches of 10, each taking the lock"],
    ["held", "1,000 batches of 10 inside one withWriteLock"],
    ["fsync", "100 batches of 10 with fsync, each taking the lock"]
  ] as const
) {
  const b: Array<number> = []
  const a: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    b.push(time(workers[0]!, kind))
    a.push(time(workers[1]!, kind))
  }
  rows.push([name, ms(median(b)), ms(median(a)), ratio(median(a), median(b), 1)])
}
console.log(`before: ${before}\nafter:  ${after}\nload average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
table(rows)
