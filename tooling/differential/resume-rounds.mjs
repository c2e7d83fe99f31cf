// The bounded resume under foreign appends by pi 0.73.1 (issue 16): rounds of pi appends and
// branchlog appends on one session file, and after each, branchlog's `SessionManager.resume`
// (through the sidecar index, which pi never updates: it must catch up or rebuild) against
// branchlog's full read-only open. Run by resume.mjs (`pnpm differential:resume`, the packages'
// dist) and by session-store's test (its sources), which pass the modules in.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isDeepStrictEqual } from "node:util"
import { piSession, prng, reshape, usage, withClock, words } from "./generate.mjs"

/** The shapes resumed: generate.mjs's (pi's rows damaged, OpenClaw's rows, version 2). */
export const RESUME_SHAPES = ["v3", "openclaw", "v2"]

const plain = (value) => JSON.parse(JSON.stringify(value))

/** What the bounded open must give exactly as the full one: leaf, name, every label, header, context. */
const answersOf = (sm, leafId) => {
  const state = sm.getBoundedState() ?? sm.getState()
  return plain({
    leaf: leafId === undefined ? sm.getLeafId() : leafId,
    name: sm.getSessionName() ?? null,
    labels: [...state.labels].map(([target, l]) => [target, l.label, l.timestamp]).sort(),
    header: sm.getHeader(),
    context: leafId === undefined ? sm.buildSessionContext() : sm.buildSessionContext(leafId)
  })
}

/** What the index beside `file` says before a resume: `undefined` (none or unreadable), else its size and boundedness. */
const indexState = (m, file) => {
  const index = m.SessionFiles.indexName(file)
  if (!existsSync(index)) return undefined
  const bytes = readFileSync(index)
  const head = bytes.subarray(0, m.Format.HEAD_BYTES)
  const length = m.Format.summaryLength(head)
  if (length === undefined) return undefined
  const decoded = m.Format.decodeHead(head, bytes.subarray(m.Format.HEAD_BYTES, m.Format.HEAD_BYTES + length))
  return decoded === undefined
    ? undefined
    : { size: decoded.summary.watermark.size, bounded: decoded.summary.bounded, reason: decoded.summary.reason }
}

/**
 * Appends by pi 0.73.1's own SessionManager (opened on the file, as pi resumes): up to `ops` random
 * operations; in half the rounds only on pi's current branch (targets among its last rows).
 */
const piAppends = (Pi, file, r, most, clock) => {
  const ops = 1 + r.int(most)
  const text = (n) => Array.from({ length: n }, () => r.pick(words)).join(" ")
  const sm = Pi.open(file)
  const ids = sm.getEntries().map((e) => e.id)
  const assistant = () => ({
    role: "assistant",
    content: [{ type: "text", text: text(3) }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: r.pick(["m1", "m2"]),
    usage,
    stopReason: "stop",
    timestamp: clock.now
  })
  // half the rounds stay on pi's current branch (what a catch-up folds), the others go anywhere
  const linear = r.next() < 0.5
  withClock(clock, () => {
    for (let i = 0; i < ops; i++) {
      clock.now += r.int(3) * 1000
      const op = linear ? r.next() * 0.9 : r.next()
      const branch = sm.getBranch().map((e) => e.id)
      const pool = linear ? branch.slice(-8) : ids
      const target = pool.length > 0 ? r.pick(pool) : null
      if (op < 0.3) sm.appendMessage({ role: "user", content: text(4), timestamp: clock.now })
      else if (op < 0.5) sm.appendMessage(assistant())
      else if (op < 0.55) sm.appendThinkingLevelChange(r.pick(["off", "low", "high"]))
      else if (op < 0.6) sm.appendModelChange("openai", r.pick(["m1", "m3"]))
      else if (op < 0.67 && target !== null) {
        const kept = r.next() < 0.7 && branch.length > 0 ? r.pick(branch.slice(-6)) : target
        sm.appendCompaction(`pi summary ${text(2)}`, kept, 500 + i)
      } else if (op < 0.73 && target !== null) {
        sm.appendLabelChange(target, r.next() < 0.75 ? `pi ${r.int(4)}` : undefined)
      } else if (op < 0.77) sm.appendSessionInfo(`pi name ${text(1)}`)
      else if (op < 0.8) sm.appendCustomMessageEntry("note", text(2), r.next() < 0.5)
      else if (op < 0.9 && target !== null) sm.branch(target)
      else if (op < 0.95 && target !== null) sm.branchWithSummary(target, `pi branch ${text(2)}`)
      else if (op < 0.97) sm.resetLeaf()
      else sm.appendCustomEntry("extension-state", { step: i })
      const leaf = sm.getLeafId()
      if (leaf !== null && !ids.includes(leaf)) ids.push(leaf)
    }
  })
}

const user = (text) => ({ role: "user", content: text, timestamp: 1 })
const assistantOf = (text, model) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "x",
  provider: "p",
  model,
  usage,
  stopReason: "stop",
  timestamp: 2
})

/**
 * Runs the rounds. `m`: `{ SessionManager, IdSource, SessionFiles, Format, layer, Effect }` (branchlog's
 * modules and the Node store layer); `Pi`: pi 0.73.1's SessionManager. Options: `count`, `seed`,
 * `ops` (per round and writer), `rounds`, `shapes`, `work` (a folder), `out` (for mismatching files).
 * Returns the tally; mismatches are saved in `out` and listed in `tally.mismatches`.
 */
export const runResumeRounds = async (m, Pi, options) => {
  const { Effect } = m
  const run = (effect) => Effect.runPromise(Effect.provide(effect, m.layer))
  const fullOpen = (file) =>
    run(
      Effect.provide(
        m.SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }),
        m.IdSource.deterministic(7)
      )
    )
  const tally = {
    files: 0,
    skipped: 0,
    rounds: 0,
    comparisons: 0,
    mismatches: [],
    resumes: { current: 0, caughtUp: 0, built: 0, rebuilt: 0, rebuiltUnbounded: 0 },
    reasons: new Map(),
    piRows: 0,
    notFound: 0,
    branchlogOps: 0
  }
  /** A resume, classified by what the index said before it and whether the answer was bounded. */
  const resume = async (file, readOnly) => {
    const before = indexState(m, file)
    const size = statSync(file).size
    // (no deterministic id source here: managers that write mint ids, which must not repeat across opens)
    const sm = await run(m.SessionManager.resume(file, undefined, undefined, readOnly ? { readOnly: true } : {}))
    const r = tally.resumes
    if (sm.isBounded()) {
      if (before !== undefined && before.size < size) r.caughtUp++
      else r.current++
    } else if (before === undefined) r.built++
    else {
      r.rebuilt++
      if (!before.bounded) r.rebuiltUnbounded++
    }
    const after = indexState(m, file)
    if (after !== undefined && !after.bounded) {
      tally.reasons.set(after.reason, (tally.reasons.get(after.reason) ?? 0) + 1)
    }
    return sm
  }
  const compare = async (file, seed, what, got, leafId) => {
    tally.comparisons++
    const want = answersOf(await fullOpen(file), leafId)
    if (isDeepStrictEqual(got, want)) return
    const name = `resume-seed-${seed}-${tally.mismatches.length}`
    mkdirSync(options.out, { recursive: true })
    copyFileSync(file, join(options.out, `${name}.jsonl`))
    if (existsSync(m.SessionFiles.indexName(file))) {
      copyFileSync(m.SessionFiles.indexName(file), join(options.out, `${name}.jsonl.index`))
    }
    writeFileSync(join(options.out, `${name}.json`), JSON.stringify({ seed, what, want, got }, null, 1))
    tally.mismatches.push({ seed, what, file: join(options.out, `${name}.jsonl`) })
  }
  /** Up to `ops` random branchlog operations on `sm` (which may have been opened before pi's appends). */
  const branchlogOps = async (sm, file, r, ops, step) => {
    const pick = (xs) => xs[Math.floor(r.next() * xs.length)]
    // half the rounds stay on the path the manager holds (the index stays bounded), the others go anywhere
    const linear = r.next() < 0.5
    const count = 1 + r.int(ops)
    for (let i = 0; i < count; i++) {
      tally.branchlogOps++
      const all = (await fullOpen(file)).getEntries().map((e) => e.id)
      const path = (sm.getBoundedState() ?? sm.getState()).entries.map((e) => e.id)
      const ids = linear || (r.next() < 0.7 && path.length > 0) ? path.slice(linear ? -8 : 0) : all
      const x = linear ? r.next() * 0.87 : r.next()
      const tag = `${step}.${i}`
      let op
      if (x < 0.3 || ids.length === 0) op = sm.appendMessage(user(`bl ${tag}`))
      else if (x < 0.45) op = sm.appendMessage(assistantOf(`bl ${tag}`, pick(["m1", "m2"])))
      else if (x < 0.5) op = sm.appendThinkingLevelChange(pick(["low", "high"]))
      else if (x < 0.55) op = sm.appendModelChange("p", pick(["a", "b"]))
      else if (x < 0.62) op = sm.appendCompaction(`bl summary ${tag}`, r.next() < 0.15 ? null : pick(ids), 100)
      else if (x < 0.7) op = sm.appendLabelChange(pick(ids), r.next() < 0.8 ? `bl ${tag}` : undefined)
      else if (x < 0.75) op = sm.appendSessionInfo(`bl name ${tag}`)
      else if (x < 0.87) op = sm.branch(pick(ids))
      else if (x < 0.93) op = sm.branchWithSummary(pick(ids), `bl branch ${tag}`)
      else if (x < 0.96) op = sm.resetLeaf()
      else op = sm.appendCustomMessageEntry("note", `bl ${tag}`, true)
      // a manager opened before pi's rows does not know them until it folds them (at its next write)
      await run(Effect.catchTag(op, "EntryNotFoundError", () => Effect.sync(() => tally.notFound++)))
    }
  }
  for (let seed = options.seed; seed < options.seed + options.count; seed++) {
    const shape = options.shapes[(seed - options.seed) % options.shapes.length]
    const dir = join(options.work, `resume-${seed}`)
    const r = prng(seed * 31 + 7)
    const clock = { now: 1_778_000_000_000 }
    tally.files++
    let file
    try {
      file = piSession(Pi, dir, seed, 20 + (seed % 30))
      reshape(file, shape, seed)
      // branchlog opens it first: a writable resume builds the index
      let sm = await resume(file, false)
      await compare(file, seed, "first resume", answersOf(sm))
      for (let round = 1; round <= options.rounds; round++) {
        tally.rounds++
        const before = statSync(file).size
        piAppends(Pi, file, r, options.ops, clock)
        tally.piRows += readFileSync(file, "utf8").slice(before).split("\n").length - 1
        // after pi's appends: a read-only resume (caught up in memory) and a writable one (it rewrites the index)
        await compare(file, seed, `round ${round}: read-only resume after pi`, answersOf(await resume(file, true)))
        const resumed = await resume(file, false)
        await compare(file, seed, `round ${round}: resume after pi`, answersOf(resumed))
        // branchlog appends, by the new resumed manager or (half the time) by the one opened before pi wrote
        if (r.next() < 0.5) sm = resumed
        await branchlogOps(sm, file, r, options.ops, `${round}`)
        await run(sm.refresh())
        await compare(file, seed, `round ${round}: the writing manager`, answersOf(sm, sm.getLeafId()), sm.getLeafId())
        await compare(file, seed, `round ${round}: resume after branchlog`, answersOf(await resume(file, true)))
      }
    } catch (error) {
      tally.skipped++
      tally.mismatches.push({ seed, what: `threw: ${error?.stack ?? error}`, file })
    }
  }
  return tally
}

/** The report's lines. */
export const reportLines = (tally, options) => {
  const r = tally.resumes
  const lines = [
    `resume differential (pi 0.73.1 appends, then branchlog's bounded resume against its full open)`,
    `seeds ${options.seed}..${options.seed + options.count - 1}, shapes ${
      options.shapes.join(",")
    }, ${options.rounds} rounds, ${options.ops} ops per writer and round`,
    `files ${tally.files}, rounds ${tally.rounds}, rows appended by pi ${tally.piRows}, branchlog operations ${tally.branchlogOps}` +
    ` (${tally.notFound} refused: an entry the manager had not seen yet)`,
    `comparisons ${tally.comparisons}, mismatches ${tally.mismatches.length}`,
    `resumes: ${r.current} bounded from a current index, ${r.caughtUp} bounded after a catch-up, ` +
    `${r.built} full (index built), ${r.rebuilt} full (index rebuilt; ${r.rebuiltUnbounded} of them where it said unbounded)`
  ]
  if (tally.reasons.size > 0) {
    lines.push(
      `unbounded indexes after a resume, by reason: ${[...tally.reasons].map(([k, v]) => `${k} ${v}`).join(", ")}`
    )
  }
  for (const x of tally.mismatches) lines.push(`  seed ${x.seed}: ${x.what} (${x.file})`)
  return lines
}
