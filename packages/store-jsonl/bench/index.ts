/**
 * The sidecar index benchmark (issue 16), on a generated session of at least 600 MB in the system
 * temporary folder (1.45M entries: user and assistant messages, a branch every ~300 entries, a
 * compaction every 2,000 keeping ~150 entries, labels and names now and then). Prints:
 *
 * - the full open (read-only, no cache) vs the first resume, which builds the index in the same
 *   one pass (target ≤ 1.3×), each in a fresh process, alternated three times (the best of each);
 * - resume with the index vs the full open (target ≥ 100× faster), and the resume's peak memory
 *   (target < 100 MB), each measured in a fresh process (`process.resourceUsage().maxRSS`);
 * - resume after 1,000 foreign appends (raw lines, as pi writes them, no index update) vs a resume
 *   with none: the same session, its index covering those rows as a writable resume records them
 *   (target ≤ 2×), interleaved in several processes (`BRANCHLOG_BENCH_PAIRS`, default 5), each with
 *   the load, and with one resume per process (`BRANCHLOG_BENCH_FRESH` processes each, default 7:
 *   what a CLI command does); beside it, not a target, the resume after the appends vs the session
 *   before them (the context grows from 151 to 1,151 messages), and a floor (`JSON.parse` of the
 *   appended lines);
 * - a resumed writer's appends (each taking the lock; inside one `withWriteLock`), which keep the
 *   index current, beside a new session's writer (no index); then a resume reads nothing new.
 *
 * Run: `pnpm -F @branchlog/store-jsonl... build && node --conditions=@branchlog/source --import tsx
 * bench/index.ts` in this package (`BRANCHLOG_BENCH_ENTRIES=N` for a smaller file). Figures, not a
 * gate: the machine is shared.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { ms, ratio, table } from "@branchlog/tooling/bench"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const child = path.join(here, "index-child.mjs")
if (!fs.existsSync(path.join(here, "..", "dist", "SessionManager.js"))) {
  throw new Error("build the package first: pnpm -F @branchlog/store-jsonl... build")
}
const entries = Number(process.env.BRANCHLOG_BENCH_ENTRIES ?? 1_450_000)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-index-bench-"))
const file = path.join(root, "2026-01-01T00-00-00-000Z_big.jsonl")
// BRANCHLOG_BENCH_GENERATE=PATH: only write the session there (for measuring by hand)
const generateOnly = process.env.BRANCHLOG_BENCH_GENERATE
const runtime = ManagedRuntime.make(SessionStore.layerNode)
const now = () => performance.now()

const hex = (n: number) => n.toString(16).padStart(8, "0")
const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
const text = (i: number) => `${i} ${filler.repeat(3).slice(0, 250 + (i % 90))}`

/** Writes the session: returns the ids on the final path's last stretch (for foreign appends). */
const generate = () => {
  const fd = fs.openSync(file, "w")
  const out: Array<string> = []
  let bytes = 0
  const flush = () => {
    const chunk = out.join("\n") + "\n"
    bytes += Buffer.byteLength(chunk)
    fs.writeSync(fd, chunk)
    out.length = 0
  }
  out.push(
    JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work" })
  )
  const path: Array<string> = []
  let leaf: string | null = null
  for (let i = 0; i < entries; i++) {
    const id = hex(i + 1)
    const timestamp = "2026-01-01T00:00:00.000Z"
    let parentId = leaf
    if (i % 300 === 299 && path.length > 20) {
      // a branch: continue from an entry a few steps back (the abandoned ones stay in the file)
      path.length -= 10
      parentId = path[path.length - 1]!
    }
    let row: Record<string, unknown>
    if (i % 2000 === 1999 && path.length > 200) {
      row = {
        type: "compaction",
        id,
        parentId,
        timestamp,
        summary: `summary ${i}`,
        firstKeptEntryId: path[path.length - 150],
        tokensBefore: 1000
      }
    } else if (i % 50_000 === 49_999) {
      row = { type: "label", id, parentId, timestamp, targetId: path[path.length - 1] ?? id, label: `l${i}` }
    } else if (i % 70_000 === 69_999) row = { type: "session_info", id, parentId, timestamp, name: `session ${i}` }
    else if (i % 2 === 0) {
      row = { type: "message", id, parentId, timestamp, message: { role: "user", content: text(i), timestamp: i } }
    } else {
      row = {
        type: "message",
        id,
        parentId,
        timestamp,
        message: {
          role: "assistant",
          content: [{ type: "text", text: text(i) }],
          provider: "p",
          model: "m",
          usage: { input: 1, output: 1 },
          stopReason: "stop",
          timestamp: i
        }
      }
    }
    out.push(JSON.stringify(row))
    path.push(id)
    leaf = id
    if (out.length >= 4096) flush()
  }
  flush()
  fs.closeSync(fd)
  return { bytes, leaf: leaf! }
}

/**
 * One child run. Started through `sh -c` (which forks it): Linux keeps a process's peak RSS across
 * `exec`, so a child forked straight from this process (holding a full open's memory) would report
 * this process's RSS as its own peak.
 */
const inChild = (mode: "resume" | "build" | "full", runs: number, of = file) => {
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`
  const command = [process.execPath, child, of, mode, String(runs)].map(quote).join(" ")
  const output = execFileSync("/bin/sh", ["-c", `${command}; exit $?`], {
    cwd: path.join(here, ".."),
    encoding: "utf8",
    maxBuffer: 1 << 20
  })
  return JSON.parse(output.trim().split("\n").pop()!) as {
    ms: number
    rssBefore: number
    maxRss: number
    bounded: boolean
    messages: number
  }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Resumes of `a` and `b` interleaved in one fresh process (9 each): their medians. */
const pairIn = (a: string, b: string) =>
  JSON.parse(
    execFileSync(process.execPath, [child, a, "pair", "9", b], { cwd: path.join(here, ".."), encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!
  ) as { ms: number; otherMs: number; bounded: boolean; messages: number }

const main = async () => {
  const t0 = now()
  const { bytes, leaf } = generate()
  if (generateOnly !== undefined) {
    fs.renameSync(file, generateOnly)
    fs.rmSync(root, { recursive: true, force: true })
    return console.log(`generated ${(bytes / 1e6).toFixed(0)} MB at ${generateOnly}`)
  }
  console.log(`generated ${(bytes / 1e6).toFixed(0)} MB, ${entries} entries in ${ms(now() - t0)} (${file})`)
  const index = SessionFiles.indexName(file)
  // each in a fresh process (as a first `branchlog context` is), alternated three times, the best of
  // each: in one process, whichever ran second paid for collecting the ~1 GB the one before left
  const fulls: Array<ReturnType<typeof inChild>> = []
  const buildTimes: Array<number> = []
  for (let round = 0; round < 3; round++) {
    fulls.push(inChild("full", 1))
    fs.rmSync(index, { force: true })
    buildTimes.push(inChild("build", 1).ms)
  }
  const full = Math.min(...fulls.map((f) => f.ms))
  const build = Math.min(...buildTimes)
  const indexBytes = fs.statSync(index).size
  // memory: one resume in a fresh process (as a real resume is); time: the median of 7
  const memory = inChild("resume", 1)
  const resumed = inChild("resume", 7)
  const fullChild = fulls[fulls.length - 1]!
  // 1,000 foreign appends, as pi writes them (no lock, no index), to a copy with its own index,
  // then resumes of both interleaved in one process
  const other = path.join(root, "2026-01-01T00-00-00-000Z_big-appended.jsonl")
  fs.copyFileSync(file, other)
  await runtime.runPromise(SessionManager.resume(other, undefined, undefined, { readOnly: true, writeIndex: true }))
  const lines: Array<string> = []
  let parent = leaf
  for (let i = 0; i < 1000; i++) {
    const id = `f${String(i).padStart(7, "0")}`
    lines.push(JSON.stringify({
      type: "message",
      id,
      parentId: parent,
      timestamp: "2026-01-02T00:00:00.000Z",
      message: { role: "user", content: text(i), timestamp: i }
    }))
    parent = id
  }
  fs.appendFileSync(other, lines.join("\n") + "\n")
  // several processes (the machine is shared: the load is printed beside each)
  const pairs: Array<{ ms: number; otherMs: number; bounded: boolean; messages: number; load: string }> = []
  for (let i = 0; i < Number(process.env.BRANCHLOG_BENCH_PAIRS ?? 5); i++) {
    const load = os.loadavg()[0]!.toFixed(1)
    pairs.push({ ...pairIn(file, other), load })
  }
  const byRatio = [...pairs].sort((a, b) => a.otherMs / a.ms - b.otherMs / b.ms)
  const pair = byRatio[Math.floor(byRatio.length / 2)]!
  // a resume with none: the same appended session once a writable resume recorded the appends in
  // its index (as the agent's or `append`'s resume records a catch-up, and a writer its own
  // appends): the same 1,151-message context, nothing to catch up
  const indexed = path.join(root, "2026-01-01T00-00-00-000Z_big-indexed.jsonl")
  fs.copyFileSync(other, indexed)
  fs.copyFileSync(SessionFiles.indexName(other), SessionFiles.indexName(indexed))
  await runtime.runPromise(SessionManager.resume(indexed, undefined, undefined, { readOnly: true, writeIndex: true }))
  // one resume per process (what `branchlog context` does), alternating processes
  const freshBefore: Array<number> = []
  const freshIndexed: Array<number> = []
  const freshAfter: Array<number> = []
  for (let i = 0; i < Number(process.env.BRANCHLOG_BENCH_FRESH ?? 7); i++) {
    freshBefore.push(inChild("resume", 1).ms)
    freshIndexed.push(inChild("resume", 1, indexed).ms)
    freshAfter.push(inChild("resume", 1, other).ms)
  }
  const samePairs: Array<{ ms: number; otherMs: number; load: string }> = []
  for (let i = 0; i < Number(process.env.BRANCHLOG_BENCH_PAIRS ?? 5); i++) {
    const load = os.loadavg()[0]!.toFixed(1)
    samePairs.push({ ...pairIn(indexed, other), load })
  }
  const same = [...samePairs].sort((a, b) => a.otherMs / a.ms - b.otherMs / b.ms)[Math.floor(samePairs.length / 2)]!
  // the floor of the catch-up: JSON.parse of the 1,000 appended lines alone (warm, in this process)
  const parseFloor = median(Array.from({ length: 21 }, () => {
    const t = now()
    for (const line of lines) JSON.parse(line)
    return now() - t
  }))
  // a resumed writer keeps the index current: appends that each take the lock (one record each)
  // and appends inside one withWriteLock (one record when it ends), beside a writer of a new
  // session (no index); then whether the index covers the file
  const writer = await runtime.runPromise(SessionManager.resume(other, undefined, undefined, { eagerFlush: true }))
  const fresh = await runtime.runPromise(SessionManager.create("/work", path.join(root, "fresh"), { eagerFlush: true }))
  const appendTimes = async (sm: SessionManager.SessionManager, n: number, held: boolean) => {
    const t = now()
    const one = (i: number) => sm.appendMessage({ role: "user", content: text(i), timestamp: i } as never)
    if (held) {
      await runtime.runPromise(sm.withWriteLock(Effect.gen(function*() {
        for (let i = 0; i < n; i++) yield* one(i)
      })))
    } else for (let i = 0; i < n; i++) await runtime.runPromise(one(i))
    return (now() - t) / n
  }
  await appendTimes(fresh, 1, false)
  const eachResumed: Array<number> = []
  const eachFresh: Array<number> = []
  const heldResumed: Array<number> = []
  const heldFresh: Array<number> = []
  for (let round = 0; round < 3; round++) {
    eachResumed.push(await appendTimes(writer, 200, false))
    eachFresh.push(await appendTimes(fresh, 200, false))
    heldResumed.push(await appendTimes(writer, 1000, true))
    heldFresh.push(await appendTimes(fresh, 1000, true))
  }
  const us = (x: number) => `${(x * 1000).toFixed(0)} µs`
  const afterWriter = JSON.parse(
    execFileSync(process.execPath, [child, other, "resume", "3"], { cwd: path.join(here, ".."), encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!
  ) as { ms: number; bounded: boolean; uncovered: number }
  table([
    ["case", "figure", "baseline", "ratio (target)"],
    ["first resume (builds the index) vs full open", ms(build), ms(full), ratio(build, full, 1.3)],
    [
      "resume (fresh process, median of 7) vs full open",
      ms(resumed.ms),
      ms(full),
      `${(full / resumed.ms).toFixed(0)}× faster (≥ 100×)`
    ],
    [
      "resume peak RSS (one resume, fresh process)",
      `${memory.maxRss} MiB`,
      `full open ${fullChild.maxRss} MiB`,
      memory.maxRss < 100 ? "ok (< 100 MB)" : "MISSED (< 100 MB)"
    ],
    [
      `resume after 1,000 foreign appends vs none (the same session, indexed; interleaved, median ratio of ${samePairs.length} processes)`,
      ms(same.otherMs),
      ms(same.ms),
      ratio(same.otherMs, same.ms, 2)
    ],
    [
      `the same, one resume per process (what the CLI does; median of ${freshAfter.length} processes each)`,
      ms(median(freshAfter)),
      ms(median(freshIndexed)),
      ratio(median(freshAfter), median(freshIndexed), 2)
    ],
    [
      `not a target: after the appends vs the session before them (context 151 -> 1,151 messages; interleaved, ${pairs.length} processes)`,
      ms(pair.otherMs),
      ms(pair.ms),
      `${(pair.otherMs / pair.ms).toFixed(2)}×`
    ],
    [
      "the same, one resume per process",
      ms(median(freshAfter)),
      ms(median(freshBefore)),
      `${(median(freshAfter) / median(freshBefore)).toFixed(2)}×`
    ],
    [
      "floor: JSON.parse of the 1,000 appended lines alone (warm, in memory) vs resume of the session before them",
      ms(parseFloor),
      ms(pair.ms),
      `${(parseFloor / pair.ms).toFixed(2)}× of that resume`
    ],
    [
      "append each taking the lock, resumed writer (a record each) vs new session",
      us(median(eachResumed)),
      us(median(eachFresh)),
      `${(median(eachResumed) / median(eachFresh)).toFixed(2)}×`
    ],
    [
      "append inside withWriteLock (1,000, one record), resumed writer vs new session",
      us(median(heldResumed)),
      us(median(heldFresh)),
      `${(median(heldResumed) / median(heldFresh)).toFixed(2)}×`
    ],
    [
      "resume after the writer's 3,600 appends (fresh process, median of 3)",
      ms(afterWriter.ms),
      `bounded: ${afterWriter.bounded}`,
      `bytes past the index: ${afterWriter.uncovered}`
    ]
  ])
  console.log(
    `foreign-append pairs (with none: indexed / after 1,000 foreign, load): ${
      samePairs.map((p) => `${ms(p.ms)}/${ms(p.otherMs)} = ${(p.otherMs / p.ms).toFixed(2)}× at ${p.load}`).join("; ")
    }`
  )
  console.log(
    `one resume per process (before the appends / indexed / after 1,000 foreign): ${freshBefore.map(ms).join(", ")} / ${
      freshIndexed.map(ms).join(", ")
    } / ${freshAfter.map(ms).join(", ")}`
  )
  console.log(
    `context-growth pairs (before the appends / after, load): ${
      pairs.map((p) => `${ms(p.ms)}/${ms(p.otherMs)} = ${(p.otherMs / p.ms).toFixed(2)}× at ${p.load}`).join("; ")
    }`
  )
  console.log(
    `index ${(indexBytes / 1e6).toFixed(1)} MB; full opens ${fulls.map((f) => ms(f.ms)).join(", ")}, first resumes ${
      buildTimes.map(ms).join(", ")
    } (fresh processes, alternated); process RSS after imports ${memory.rssBefore} MiB; bounded: ${resumed.bounded}/${pair.bounded}; context messages ${resumed.messages}/${pair.messages} (full ${fullChild.messages})`
  )
  await runtime.dispose()
  if (process.env.BRANCHLOG_BENCH_KEEP === "1") console.log(`kept ${file}`)
  else fs.rmSync(root, { recursive: true, force: true })
}

void Effect.runPromise(Effect.promise(main)).catch((e) => {
  console.error(e)
  fs.rmSync(root, { recursive: true, force: true })
  process.exit(1)
})
