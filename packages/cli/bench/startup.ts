/**
 * Start-up benchmark of the built executable (`dist/bin.js`; the `bench` script builds it first):
 * each command line runs as a fresh process, side by side with a bare `node -e 0` (runs
 * interleaved, medians of 10 after 2 warm-ups), and its peak RSS (median of 5 runs, read from
 * `process.resourceUsage().maxRSS` at exit through a preloaded module). Targets:
 *
 * - `branchlog --version` within 2.5× of bare node, peak RSS under 80 MB;
 * - `branchlog info FILE` of a small session (200 entries) within 3× of bare node, peak RSS under 80 MB;
 * - `branchlog append FILE`: its first entry on disk within 3× of bare node's start-up (issue 27). A
 *   fresh process with stdin a pipe that one message line is written to at once (the pipe stays
 *   open); the file is polled every millisecond until that line is in it, whole; the time is from the
 *   spawn to then, beside the spawn-to-exit time of `node -e 0`, runs interleaved (medians of 15).
 *   Each run appends to the same 200-entry session (its index current after the first), as an agent
 *   appends to its session; the same through `--full`, and into a `sqlite:` reference, as figures.
 *
 * The other lines are figures without a target (a read of a tree, `ls` of an almost empty folder
 * and of 10,000 sessions through a warm catalog index, the help, which loads every command, and one
 * scripted agent turn, the only line that loads the agent runtime).
 *
 * `BRANCHLOG_BENCH_COMPARE=/path/to/other/bin.js` measures another build of the executable (e.g. the
 * one-file bundle of an earlier commit) the same way, on the lines with a target and the `ls` of
 * 10,000 sessions, for a before/after.
 *
 * `BRANCHLOG_BENCH_ONLY=TEXT` runs only the lines whose name holds TEXT.
 *
 * Timings on shared machines are noisy: figures, not a gate.
 */
import { Synthetic } from "@branchlog/session-core/testing"
import { measurePair, measurePairTimed, ms, ratio, table } from "@branchlog/tooling/bench"
import { spawn, spawnSync } from "node:child_process"
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const bin = join(import.meta.dirname, "..", "dist", "bin.js")
if (!existsSync(bin)) throw new Error(`${bin} is missing: run the package's build first`)
const root = mkdtempSync(join(tmpdir(), "branchlog-bench-startup-"))
const small = join(root, "small.jsonl")
writeFileSync(small, Synthetic.toText(Synthetic.session({ entries: 200, seed: 7 })))
// 10,000 sessions of a header and two messages, modified an hour ago (the catalog index trusts them)
const many = join(root, "many")
mkdirSync(many)
const hourAgo = Date.now() / 1000 - 3600
for (let s = 0; s < 10_000; s++) {
  const id = `${String(s).padStart(8, "0")}-0000-4000-8000-000000000000`
  const at = Date.UTC(2026, 0, 1) + s * 60_000
  const file = join(many, `2026-01-01T00-00-00-000Z_${id}.jsonl`)
  writeFileSync(
    file,
    [
      { type: "session", version: 3, id, timestamp: new Date(at).toISOString(), cwd: "/w" },
      {
        type: "message",
        id: "a1",
        parentId: null,
        timestamp: new Date(at).toISOString(),
        message: { role: "user", content: `hello ${s}`, timestamp: at }
      },
      {
        type: "message",
        id: "a2",
        parentId: "a1",
        timestamp: new Date(at + 1000).toISOString(),
        message: {
          role: "assistant",
          content: [{ type: "text", text: "hi" }],
          provider: "p",
          model: "m",
          stopReason: "stop",
          timestamp: at + 1000
        }
      }
    ].map((line) => JSON.stringify(line)).join("\n") + "\n"
  )
  utimesSync(file, hourAgo, hourAgo)
}
const rssModule = join(root, "rss.mjs")
writeFileSync(
  rssModule,
  `import { writeFileSync } from "node:fs"\nprocess.on("exit", () => writeFileSync(process.env.BRANCHLOG_BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)))\n`
)
const env = { ...process.env, NO_COLOR: "1", BRANCHLOG_AGENT_DIR: join(root, "agent") }

/** Runs `node ARGS` to its end (output discarded); fails loudly if it fails. */
const node = (args: ReadonlyArray<string>) => {
  const result = spawnSync(process.execPath, args, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] })
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}: ${result.stderr}`)
}

/** Median peak RSS in MB of `node ARGS` over 5 runs. */
const peakRss = (args: ReadonlyArray<string>): number => {
  const out = join(root, "rss.txt")
  const values: Array<number> = []
  for (let i = 0; i < 5; i++) {
    const result = spawnSync(process.execPath, ["--import", rssModule, ...args], {
      cwd: root,
      env: { ...env, BRANCHLOG_BENCH_RSS_OUT: out },
      stdio: "ignore"
    })
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`)
    values.push(Number(readFileSync(out, "utf8")) / 1024)
  }
  return values.sort((a, b) => a - b)[2]!
}

const mb = (value: number) => `${value.toFixed(1)} MB`
const bare = ["-e", "0"]
const bareRss = peakRss(bare)

const cases: ReadonlyArray<
  { readonly name: string; readonly args: ReadonlyArray<string>; readonly target?: number; readonly compare?: true }
> = [
  { name: "--version", args: ["--version"], target: 2.5 },
  { name: "info FILE (200 entries)", args: ["info", small], target: 3 },
  { name: "info FILE --json", args: ["info", small, "--json"] },
  { name: "tree FILE", args: ["tree", small] },
  { name: "ls --dir DIR", args: ["ls", "--dir", root] },
  // the first (warm-up) run writes the catalog index; the measured ones are warm
  { name: "ls --dir DIR (10,000 sessions, warm index)", args: ["ls", "--dir", many], compare: true },
  { name: "--help (loads every command)", args: ["--help"] },
  { name: "run PROMPT (scripted agent turn)", args: ["run", "hello", "--session", join(root, "run.jsonl")] }
]

const rows: Array<Array<string>> = [["command", "branchlog", "node -e 0", "ratio", "peak RSS (target < 80 MB)"]]
/** `BRANCHLOG_BENCH_ONLY=TEXT`: only the lines whose name holds TEXT (e.g. `append`). */
const only = process.env.BRANCHLOG_BENCH_ONLY ?? ""
for (const { args, name, target } of cases) {
  if (!name.includes(only)) continue
  const [ours, baseline] = measurePair(() => node([bin, ...args]), () => node(bare), { runs: 10, warmup: 2 })
  const rss = peakRss([bin, ...args])
  rows.push([
    name,
    ms(ours),
    ms(baseline),
    ratio(ours, baseline, target),
    target === undefined ? mb(rss) : `${mb(rss)} (${rss < 80 ? "met" : "MISSED"})`
  ])
}
/** Whether `file` (from byte `from` on) holds `marker` on a whole line (newline-terminated). */
const hasLine = (file: string, from: number, marker: string): boolean => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return false
  }
  try {
    const size = fstatSync(fd).size
    if (size <= from) return false
    const buffer = Buffer.alloc(size - from)
    readSync(fd, buffer, 0, buffer.length, from)
    const text = buffer.toString("utf8")
    const at = text.indexOf(marker)
    return at !== -1 && text.indexOf("\n", at) !== -1
  } finally {
    closeSync(fd)
  }
}

let appends = 0
/**
 * Milliseconds from spawning `branchlog append TARGET` (stdin a pipe given one message line at once,
 * left open) until that line is whole in `file` (polled every millisecond); then stdin is closed and
 * the process awaited, untimed.
 */
const firstEntry = (executable: string, target: string, file: string, extra: ReadonlyArray<string> = []) =>
  new Promise<number>((done, fail) => {
    const marker = `first entry ${appends++} ${Math.random().toString(36).slice(2)}`
    const from = existsSync(file) ? readFileSync(file).length : 0
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [executable, "append", target, ...extra], {
      cwd: root,
      env,
      stdio: ["pipe", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdin.write(JSON.stringify({ role: "user", content: marker, timestamp: Date.now() }) + "\n")
    let elapsed: number | undefined
    const poll = () => {
      if (hasLine(file, from, marker)) {
        elapsed = Number(process.hrtime.bigint() - start) / 1e6
        child.stdin.end()
      } else if (child.exitCode === null) setTimeout(poll, 1)
    }
    poll()
    child.on("close", (code) => {
      if (code !== 0 || elapsed === undefined) {
        fail(new Error(`append exited ${code} before its entry was seen: ${stderr}`))
      } else done(elapsed)
    })
  })

/** Milliseconds from spawning `node -e 0` to its exit. */
const bareStart = () =>
  new Promise<number>((done) => {
    const start = process.hrtime.bigint()
    spawn(process.execPath, bare, { stdio: "ignore" }).on("close", () =>
      done(Number(process.hrtime.bigint() - start) / 1e6))
  })

const appendFile = join(root, "append.jsonl")
copyFileSync(small, appendFile)
const appendFull = join(root, "append-full.jsonl")
copyFileSync(small, appendFull)
const appendCases: ReadonlyArray<
  { readonly name: string; readonly run: (executable: string) => Promise<number>; readonly target?: number }
> = [
  {
    name: "append: first entry on disk (200 entries)",
    run: (executable) => firstEntry(executable, appendFile, appendFile),
    target: 3
  },
  {
    name: "append --full: first entry on disk",
    run: (executable) => firstEntry(executable, appendFull, appendFull, ["--full"])
  }
]
for (const { name, run, target } of appendCases) {
  if (!name.includes(only)) continue
  const [ours, baseline] = await measurePairTimed(() => run(bin), bareStart, { runs: 15, warmup: 2 })
  rows.push([name, ms(ours), ms(baseline), ratio(ours, baseline, target), ""])
}

const compare = process.env.BRANCHLOG_BENCH_COMPARE && resolve(process.env.BRANCHLOG_BENCH_COMPARE)
if (compare !== undefined && compare !== "") {
  for (const { args, compare: also, name, target } of cases) {
    if ((target === undefined && also !== true) || !name.includes(only)) continue
    const [theirs, baseline] = measurePair(() => node([compare, ...args]), () => node(bare), { runs: 10, warmup: 2 })
    rows.push([
      `${name} (the COMPARE build)`,
      ms(theirs),
      ms(baseline),
      ratio(theirs, baseline),
      mb(peakRss([compare, ...args]))
    ])
  }
  for (const { name, run, target } of appendCases) {
    if (target === undefined || !name.includes(only)) continue
    const [theirs, baseline] = await measurePairTimed(() => run(compare), bareStart, { runs: 15, warmup: 2 })
    rows.push([`${name} (the COMPARE build)`, ms(theirs), ms(baseline), ratio(theirs, baseline), ""])
  }
}
console.log(
  `branchlog start-up (${process.version}, medians of 10 interleaved runs; bare node peak RSS ${mb(bareRss)})`
)
table(rows)
rmSync(root, { recursive: true, force: true })
