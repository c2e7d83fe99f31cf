/**
 * The CLI on a large session no branchlog writer has touched (issue 27): a generated session of at
 * least 600 MB (1.45M entries, a branch every ~300 entries, a compaction every 2,000; written by
 * session-store's index benchmark generator, raw lines, no index) and each command as a fresh
 * process of the built executable, timed and measured by GNU time (`/usr/bin/time -f "%e %M"`:
 * wall seconds, peak RSS). Every row is a ratio against a baseline of the same run:
 *
 * - the first `context --json` (it builds the index) against a full read (`context --json --full
 *   --no-index`), alternated, the best of each (target ≤ 1.3×);
 * - the second `context --json`, then `show` and `info`, through the index, against start-up
 *   (`branchlog --version`) + 0.5 s (target: at most that, and under 150 MB);
 * - `tree`, the best of three (target under 2 s and 300 MB); `fsck`, a copy to SQLite, and `repair` of a copy of the
 *   file with a corrupt line (target under 400 MB each).
 *
 * Run: `pnpm -F @branchlog/cli build && pnpm -F @branchlog/session-store build`, then
 * `node --import tsx bench/large.ts` in this package (`BRANCHLOG_BENCH_ENTRIES=N` for a smaller
 * file; `BRANCHLOG_BENCH_FILE=PATH` to reuse a generated file). Figures, not a gate: the machine is shared.
 */
import { ms, ratio, table } from "@branchlog/tooling/bench"
import { execFileSync, spawnSync } from "node:child_process"
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"

const bin = join(import.meta.dirname, "..", "dist", "bin.js")
if (!existsSync(bin)) throw new Error(`${bin} is missing: run the package's build first`)
const store = resolve(import.meta.dirname, "..", "..", "session-store")
const root = mkdtempSync(join(tmpdir(), "branchlog-bench-large-"))
const file = process.env.BRANCHLOG_BENCH_FILE ?? join(root, "2026-01-01T00-00-00-000Z_big.jsonl")
const index = `${file}.index`

if (!existsSync(file)) {
  execFileSync(process.execPath, ["--conditions=@branchlog/source", "--import", "tsx", "bench/index.ts"], {
    cwd: store,
    stdio: "inherit",
    env: { ...process.env, BRANCHLOG_BENCH_GENERATE: file }
  })
}
const size = statSync(file).size

/** One command as a fresh process: wall seconds and peak RSS in MB (GNU time), its exit code. */
const run = (args: ReadonlyArray<string>) => {
  const out = spawnSync("/usr/bin/time", ["-f", "%e %M", process.execPath, bin, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 1 << 28
  })
  const last = out.stderr.trimEnd().split("\n").at(-1) ?? ""
  const [seconds, kb] = last.split(" ").map(Number)
  if (out.status !== 0) console.error(`${args.join(" ")}: exit ${out.status}\n${out.stderr.slice(0, 2000)}`)
  return { ms: seconds! * 1000, mb: kb! / 1024, code: out.status }
}
const best = (runs: ReadonlyArray<{ ms: number; mb: number }>) => ({
  ms: Math.min(...runs.map((r) => r.ms)),
  mb: Math.max(...runs.map((r) => r.mb))
})
const mb = (n: number) => `${n.toFixed(0)} MB`

console.log(
  `session: ${(size / 1e6).toFixed(0)} MB (${file}); load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`
)
const rounds = Number(process.env.BRANCHLOG_BENCH_ROUNDS ?? 2)
const fulls: Array<ReturnType<typeof run>> = []
const firsts: Array<ReturnType<typeof run>> = []
for (let i = 0; i < rounds; i++) {
  rmSync(index, { force: true })
  fulls.push(run(["context", file, "--json", "--full", "--no-index"]))
  rmSync(index, { force: true })
  firsts.push(run(["context", file, "--json"]))
}
const full = best(fulls)
const first = best(firsts)
if (!existsSync(index)) console.error("the first context wrote no index")
const startup = best([0, 1, 2].map(() => run(["--version"])))
const bound = startup.ms + 500
const second = best([0, 1, 2].map(() => run(["context", file, "--json"])))
const show = best([0, 1].map(() => run(["show", file])))
const info = best([0, 1].map(() => run(["info", file])))
const tree = best([0, 1, 2].map(() => run(["tree", file])))
const fsck = run(["fsck", file])
const db = join(root, "copy.db")
const copy = run(["copy", file, `sqlite:${db}`])
// repair has work on a copy of the file with a corrupt line a third of the way in (the original is kept)
const damaged = join(root, "2026-01-01T00-00-00-000Z_damaged.jsonl")
copyFileSync(file, damaged)
const third = Math.floor(size / 3)
const fd = openSync(damaged, "r+")
writeSync(fd, Buffer.from("\n{not json"), 0, 10, third)
closeSync(fd)
const repair = run(["repair", damaged])
rmSync(damaged, { force: true })

table([
  ["case", "figure", "peak RSS", "baseline", "ratio (target)"],
  [
    "first context --json (builds the index) vs a full read",
    ms(first.ms),
    mb(first.mb),
    ms(full.ms),
    ratio(first.ms, full.ms, 1.3)
  ],
  ["second context --json vs start-up + 0.5 s", ms(second.ms), mb(second.mb), ms(bound), ratio(second.ms, bound, 1)],
  ["show (index) vs start-up + 0.5 s", ms(show.ms), mb(show.mb), ms(bound), ratio(show.ms, bound, 1)],
  ["info (index) vs start-up + 0.5 s", ms(info.ms), mb(info.mb), ms(bound), ratio(info.ms, bound, 1)],
  ["tree vs 2 s", ms(tree.ms), mb(tree.mb), ms(2000), ratio(tree.ms, 2000, 1)],
  ["fsck peak RSS vs 400 MB", ms(fsck.ms), mb(fsck.mb), mb(400), ratio(fsck.mb, 400, 1)],
  ["copy to SQLite peak RSS vs 400 MB", ms(copy.ms), mb(copy.mb), mb(400), ratio(copy.mb, 400, 1)],
  ["repair (a corrupt line) peak RSS vs 400 MB", ms(repair.ms), mb(repair.mb), mb(400), ratio(repair.mb, 400, 1)],
  ["(full read: context --json --full --no-index)", ms(full.ms), mb(full.mb), "", ""],
  ["(start-up: --version)", ms(startup.ms), mb(startup.mb), "", ""]
])
console.log(`memory targets: second context, show and info under 150 MB; tree under 300 MB`)
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
if (process.env.BRANCHLOG_BENCH_FILE === undefined) rmSync(root, { recursive: true, force: true })
