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
import * as fs from "node:fs"
import * as path from "node:path"
import { interleaved } from "./interleaved.js"

/** The worker: `once(round)` runs one case (the harness times the second round). */
const worker = `
import * as fs from "node:fs"
import * as path from "node:path"
const [kind, target, scratch] = process.argv.slice(2)
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
`

interleaved({
  name: "compare",
  worker,
  setup: (scratch) => {
    const session = path.join(scratch, "open-100k.jsonl")
    fs.writeFileSync(session, Synthetic.toText(Synthetic.session({ entries: 100_000, seed: 7 })))
    return [session, scratch]
  },
  cases: [
    ["open", "open, 100k entries (read-only, no cache)"],
    ["held", "10,000 appends inside one withWriteLock"],
    ["locked", "1,000 appends, each taking the lock"]
  ],
  target: 1.1
})
