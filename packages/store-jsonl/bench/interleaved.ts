/**
 * Before and after, in one run: the harness of `compare.ts` and `batch.ts`. Each build (this
 * package's, and the one `BRANCHLOG_BENCH_BEFORE` names: a store-jsonl folder, or session-store's
 * from before the JSONL backend moved out) runs a worker written into its own folder (so that it
 * resolves its own `effect` and `@branchlog/*` packages), in processes of its own, interleaved
 * round by round (before, after, before, after…) so that both see the same load. A worker gets
 * `kind` and its arguments, does one warm-up and one timed run, and prints the time on stdout.
 */
import { ms, ratio, table } from "@branchlog/tooling/bench"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The worker's prelude: `SessionStore` and `SessionManager` of the build, `run` (an effect over
 * real files) and `message(i)` (a user message of about 350 characters).
 */
const prelude = `
import * as Effect from "effect/Effect"
import * as pkg from "./dist/index.js"
// a build from before store-jsonl holds SessionManager itself; a later one takes it from session-store
const { SessionStore } = pkg
const SessionManager = pkg.SessionManager ?? (await import("@branchlog/session-store")).SessionManager
const run = (effect) => Effect.runPromise(Effect.provide(effect, SessionStore.layerNode))
const message = (i) => ({ role: "user", content: "message " + i + ": " + "lorem ipsum dolor sit amet ".repeat(12), timestamp: 1777000000000 + i })
`

/** The worker's end: a warm-up round, then the timed one, its milliseconds on stdout. */
const epilogue = `
await once(0)
const t = performance.now()
await once(1)
process.stdout.write(String(performance.now() - t))
`

/** Runs every case `rounds` times per build, interleaved, and prints the medians and after / before. */
export const interleaved = (options: {
  /** A short name (the scratch folder's and the worker file's). */
  readonly name: string
  /**
   * The worker's code between the prelude and the timing: it reads `process.argv.slice(2)` (the
   * kind, then `args`) and defines `once(round)`, which runs the case once.
   */
  readonly worker: string
  /** Prepares the scratch folder (a session to open, say) and gives the worker's arguments after the kind. */
  readonly setup: (scratch: string) => ReadonlyArray<string>
  readonly cases: ReadonlyArray<readonly [kind: string, title: string]>
  /** The ratio the report holds each case to (`after / before ≤ target`). */
  readonly target: number
}): void => {
  const after = path.resolve(import.meta.dirname, "..")
  const before = process.env.BRANCHLOG_BENCH_BEFORE
  if (before === undefined || !fs.existsSync(path.join(before, "dist", "index.js"))) {
    throw new Error(
      "BRANCHLOG_BENCH_BEFORE must name another built package folder (store-jsonl, or session-store from before the move)"
    )
  }
  const rounds = Number(process.env.BRANCHLOG_BENCH_ROUNDS ?? 7)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `branchlog-bench-${options.name}-`))
  const workers = [before, after].map((dir) => {
    const file = path.join(dir, `.bench-${options.name}-worker-${process.pid}.mjs`)
    fs.writeFileSync(file, prelude + options.worker + epilogue)
    return file
  })
  process.on("exit", () => {
    for (const file of workers) fs.rmSync(file, { force: true })
    fs.rmSync(scratch, { recursive: true, force: true })
  })
  const args = options.setup(scratch)
  const time = (workerFile: string, kind: string): number => {
    const out = spawnSync(process.execPath, [workerFile, kind, ...args], { encoding: "utf8" })
    if (out.status !== 0) throw new Error(`${workerFile} ${kind}: exit ${out.status}\n${out.stderr}`)
    return Number(out.stdout)
  }
  const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const rows: Array<Array<string>> = [["case", "before", "after", "after / before"]]
  for (const [kind, title] of options.cases) {
    const b: Array<number> = []
    const a: Array<number> = []
    for (let r = 0; r < rounds; r++) {
      b.push(time(workers[0]!, kind))
      a.push(time(workers[1]!, kind))
    }
    rows.push([title, ms(median(b)), ms(median(a)), ratio(median(a), median(b), options.target)])
  }
  console.log(`before: ${before}\nafter:  ${after}\nload average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  table(rows)
}
