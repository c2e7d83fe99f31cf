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
import { interleaved } from "./interleaved.js"

/** The worker: `once(round)` runs one case (the harness times the second round). */
const worker = `
import * as path from "node:path"
const [kind, scratch] = process.argv.slice(2)
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
`

interleaved({
  name: "batch",
  worker,
  setup: (scratch) => [scratch],
  cases: [
    ["locked", "1,000 batches of 10, each taking the lock"],
    ["held", "1,000 batches of 10 inside one withWriteLock"],
    ["fsync", "100 batches of 10 with fsync, each taking the lock"]
  ],
  target: 1
})
