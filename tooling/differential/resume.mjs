// Differential run of the bounded resume (issue 16): random sessions (generate.mjs's shapes v3,
// openclaw, v2), each opened by branchlog with a writable `SessionManager.resume` (which builds the
// sidecar index), then rounds of appends by pi 0.73.1's own SessionManager (messages, branches,
// labels, names, compactions: pi writes no index) and by branchlog, with branchlog's resume (through
// the stale index: it must catch up, or rebuild) compared after each with branchlog's full
// read-only open: leaf, name, every label, header and the context at the leaf (see resume-rounds.mjs).
//
//   pnpm differential:resume [--count 100] [--seed 1] [--ops 12] [--rounds 4] [--shapes v3,openclaw,v2] [--out DIR]
//
// Needs pi 0.73.1 (installed on demand into the references cache, see references.mjs) and
// `pnpm build` (it loads session-store's and store-jsonl's dist; the root script builds them). Mismatching files (with
// their index and both answers) are saved in `--out` (default: a temporary folder, kept then).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { loadPi } from "./references.mjs"
import { reportLines, RESUME_SHAPES, runResumeRounds } from "./resume-rounds.mjs"

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
    ops: { type: "string", default: "12" },
    rounds: { type: "string", default: "4" },
    shapes: { type: "string", default: RESUME_SHAPES.join(",") },
    out: { type: "string" }
  }
})
const repoRoot = resolve(import.meta.dirname, "..", "..")
const dist = join(repoRoot, "packages/store-jsonl/dist")
const { IdSource, SessionManager } = await import(join(repoRoot, "packages/session-store/dist/index.js"))
const { SessionStore, SessionFiles } = await import(join(dist, "index.js"))
const Format = await import(join(dist, "internal/index/format.js"))
const { Effect } = await import(join(repoRoot, "packages/session-store/node_modules/effect/dist/esm/index.js"))
const Pi = await loadPi()
const work = mkdtempSync(join(tmpdir(), "branchlog-resume-differential-"))
const options = {
  count: Number(args.count),
  seed: Number(args.seed),
  ops: Number(args.ops),
  rounds: Number(args.rounds),
  shapes: args.shapes.split(",").filter((shape) => RESUME_SHAPES.includes(shape)),
  work,
  out: args.out ?? join(work, "mismatches")
}
const started = Date.now()
const tally = await runResumeRounds(
  { SessionManager, IdSource, SessionFiles, Format, layer: SessionStore.layerNode, Effect },
  Pi,
  options
)
for (const line of reportLines(tally, options)) console.log(line)
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`)
if (tally.mismatches.length > 0) console.log(`mismatching files are kept in ${options.out}`)
else rmSync(work, { recursive: true, force: true })
process.exitCode = tally.mismatches.length > 0 ? 1 : 0
