/**
 * session-core benchmark: fold throughput against a bare `JSON.parse` of every line (both keep
 * what they parse, as any loader must; splitting the file is the store's part and is measured
 * there),
 * `buildSessionContext` on a 100k-deep branch against the references' quadratic path building
 * (and with 10k pi 1.6 context edits on it),
 * and `getTree`. Run with `pnpm bench` in this package. Prints figures and ratios; it does not
 * pass or fail (timings on shared machines are noisy), but it says whether each target is met.
 */
import { measure, measurePair, ms, rate, ratio, table } from "@branchlog/tooling/bench"
import { Line, SessionContext, SessionState, Tree } from "../src/index.js"
import { Synthetic } from "../src/testing.js"

/** The lines of a file with their byte offsets, as the store's reader hands them over. */
const splitLines = (text: string) => {
  const lines = text.split("\n")
  lines.pop()
  const offsets: Array<number> = []
  let offset = 0
  for (const line of lines) {
    offsets.push(offset)
    offset += Buffer.byteLength(line) + 1
  }
  return { lines, offsets }
}

const bareParse = (lines: ReadonlyArray<string>): Array<unknown> => lines.map((line) => JSON.parse(line))

const fold = ({ lines, offsets }: ReturnType<typeof splitLines>) => {
  const state = SessionState.empty()
  for (let i = 0; i < lines.length; i++) SessionState.apply(state, Line.parse(lines[i]!, i + 1, offsets[i]!))
  return state
}

/** The references' path building: `unshift` per step (O(depth²)), as pi does it. */
const referencePath = (state: SessionState.SessionState, leafId: string) => {
  const path: Array<unknown> = []
  let current = state.byId.get(leafId)
  while (current !== undefined) {
    path.unshift(current)
    current = current.parentId === null ? undefined : state.byId.get(current.parentId)
  }
  return path
}

const rows: Array<Array<string>> = [["case", "entries", "MB", "ours", "baseline", "ours / baseline", "throughput"]]

for (const entries of [10_000, 100_000]) {
  const text = Synthetic.toText(Synthetic.session({ entries, seed: 7 }))
  const megabytes = Buffer.byteLength(text) / 1e6
  const runs = entries > 50_000 ? 9 : 21
  const split = splitLines(text)
  const [ours, bare] = measurePair(() => fold(split), () => bareParse(split.lines), { runs })
  rows.push([
    "fold (parse + reduce)",
    String(entries),
    megabytes.toFixed(1),
    ms(ours),
    `${ms(bare)} bare JSON.parse`,
    ratio(ours, bare, 1.5),
    `${rate(entries, ours, " entries")}, ${(megabytes / (ours / 1000)).toFixed(0)} MB/s`
  ])
  const whole = measure(() => SessionState.fromRecords(Line.parseText(text)), { runs })
  rows.push([
    "fold from one string (Line.parseText)",
    String(entries),
    megabytes.toFixed(1),
    ms(whole),
    "",
    ratio(whole, bare),
    ""
  ])
  const state = fold(split)
  const tree = measure(() => Tree.getTree(state), { runs })
  rows.push([
    "getTree (branchy)",
    String(entries),
    megabytes.toFixed(1),
    ms(tree),
    "",
    "",
    rate(entries, tree, " nodes")
  ])
}

{
  const depth = 100_000
  const text = Synthetic.toText(Synthetic.session({ entries: depth, seed: 11, branchRate: 0 }))
  const state = fold(splitLines(text))
  const leaf = state.leafId!
  const context = measure(() => SessionContext.buildSessionContext(state, leaf), { runs: 9 })
  const reference = measure(() => referencePath(state, leaf), { runs: 3, warmup: 1 })
  rows.push([
    "buildSessionContext, 100k-deep branch",
    String(depth),
    (Buffer.byteLength(text) / 1e6).toFixed(1),
    ms(context),
    `${ms(reference)} pi-style unshift path alone`,
    ratio(context, reference),
    `target < 50 ms: ${context < 50 ? "met" : "MISSED"}`
  ])
  const tree = measure(() => Tree.getTree(state), { runs: 5 })
  rows.push(["getTree (one chain)", String(depth), "", ms(tree), "", "", rate(depth, tree, " nodes")])

  // pi 1.6's context edits: 10k more entries on the same branch, each a context_edit of an earlier entry
  const edited = SessionState.clone(state)
  const ids = state.entries.map((entry) => entry.id)
  let parentId = leaf
  for (let i = 0; i < 10_000; i++) {
    const id = `ed${i.toString(16).padStart(6, "0")}`
    const row = {
      type: "context_edit",
      id,
      parentId,
      timestamp: "2026-06-01T00:00:00.000Z",
      targetId: ids[(i * 7919) % ids.length],
      replacement: i % 2 === 0 ? null : { content: `edit ${i}` }
    }
    SessionState.apply(edited, Line.parse(JSON.stringify(row), depth + 2 + i, 1))
    parentId = id
  }
  const withEdits = measure(() => SessionContext.buildSessionContext(edited, parentId), { runs: 9 })
  rows.push([
    "buildSessionContext, + 10k context edits",
    String(depth + 10_000),
    "",
    ms(withEdits),
    `${ms(context)} without the edits`,
    ratio(withEdits, context),
    `target < 50 ms: ${withEdits < 50 ? "met" : "MISSED"}`
  ])
}

console.log(`session-core benchmark (node ${process.version}, median of several runs)\n`)
table(rows)
