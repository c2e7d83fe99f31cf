/**
 * Before and after, in one run: the open, held appends and locked appends of this checkout's
 * store-jsonl build against another build (the one before a change: store-jsonl, or session-store from before the JSONL backend moved out), each
 * case interleaved (before, after, before, after…) so that both see the same load. Each build runs
 * in processes of its own (a worker written into the build's folder, so that it resolves its own
 * `effect` and `@branchlog/session-core`), timing only the measured operation after a warm-up.
 *
 * - open: `SessionManager.open` read-only, no cache, of a generated 100k-entry session (43 MB);
 * - held appends: 10,000 `appendMessage` inside one `withWriteLock` (eagerFlush);
 * - locked appends: 1,000 `appendMessage`, each taking the transcript lock itself.
 *
 * Run (both builds built: `pnpm -F @branchlog/store-jsonl... build` in each checkout):
 * `BRANCHLOG_BENCH_BEFORE=/path/to/other/checkout/packages/session-store node --import tsx bench/compare.ts`
 * (`BRANCHLOG_BENCH_ROUNDS=N` rounds, default 7). Prints medians and after / before (target ≤ 1.1×).
 */
import { Synthetic } from "@branchlog/session-core/testing"
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
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-bench-compare-"))

/** The worker: one case, one warm-up run and one timed run, the time printed on stdout. */
const worker = `
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as pkg from "./dist/index.js"
// a build from before store-jsonl holds SessionManager itself; a later one takes it from session-store
const { SessionStore } = pkg
const SessionManager = pkg.SessionManager ?? (await import("@branchlog/session-store")).SessionManager
const [kind, target, scratch] = process.argv.slice(2)
const run = (effect) => Effect.runPromise(Effect.provide(effect, SessionStore.layerNode))
const message = (i) => ({ role: "user", content: "message " + i + ": " + "lorem ipsum dolor sit amet ".repeat(12), timestamp: 1777000000000 + i })
const once = async (round) => {
  if (kind === "open") {
    return run(SessionManager.open(target, undefined, undefined, { readOnly: true, cache: false }))
  }
  const dir = path.join(scratch, kind + "-" + process.pid + "-" + round)
  const sm = await run(SessionManager.create("/bench", dir, { eagerFlush: true }))
  const count = kind === "held" ? 10000 : 1000
  const all = Effect.gen(function*() {
    for (let i = 0; i < count; i++) yield* sm.appendMessage(message(i))
  })
  return run(kind === "held" ? sm.withWriteLock(all) : all)
}
await once(0)
const t = performance.now()
await once(1)
process.stdout.write(String(performance.now() - t))
`

const workers = [before, after].map((dir) => {
  const file = path.join(dir, `.bench-compare-worker-${process.pid}.mjs`)
  fs.writeFileSync(file, worker)
  return file
})
process.on("exit", () => {
  for (const file of workers) fs.rmSync(file, { force: true })
  fs.rmSync(root, { recursive: true, force: true })
})

const session = path.join(root, "open-100k.jsonl")
fs.writeFileSync(session, Synthetic.toText(Synthetic.session({ entries: 100_000, seed: 7 })))

const time = (workerFile: string, kind: string): number => {
  const out = spawnSync(process.execPath, [workerFile, kind, session, root], { encoding: "utf8" })
  if (out.status !== 0) throw new Error(`${workerFile} ${kind}: exit ${out.status}\n${out.stderr}`)
  return Number(out.stdout)
}
const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const rows: Array<Array<string>> = [["case", "before", "after", "after / before"]]
for (
  const [kind, name] of [
    ["open", "open, 100k entries (read-only, no cache)"],
    ["held", "10,000 appends inside one withWriteLock"],
    ["locked", "1,000 appends, each taking the lock"]
  ] as const
) {
  const b: Array<number> = []
  const a: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    b.push(time(workers[0]!, kind))
    a.push(time(workers[1]!, kind))
  }
  rows.push([name, ms(median(b)), ms(median(a)), ratio(median(a), median(b), 1.1)])
}
console.log(`before: ${before}\nafter:  ${after}\nload average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
table(rows)
