// Differential run: random session files (tooling/differential/generate.mjs) opened by the two
// reference implementations the fixtures were made with (pi 0.73.1, OpenClaw 2026.6.11, installed
// on demand into a cache folder) and by branchlog (the store's read-only open, as the CLI's
// `context` / `tree` / `info --json` do). The expectation follows the fixtures' rule: OpenClaw's
// answer, which is pi's wherever the two agree. Every difference is saved for a look.
//
//   pnpm differential [--count 200] [--seed 1] [--shapes v3,openclaw,v2,v1] [--ops 60]
//                     [--every-leaf] [--out DIR] [--save-fixtures DIR]
//
// `--every-leaf` also compares the context at every entry taken as the leaf with pi's (on the `v3`
// and `v2` shapes, where the references agree; OpenClaw would persist a leaf control per move).
//
// Needs the npm registry the first time (about 360 MB for OpenClaw) and `pnpm build` (it loads the
// packages' dist). Shapes on which the references loop forever (parent cycles) are not generated.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { isDeepStrictEqual, parseArgs } from "node:util"
import { idsAsStrings, json, structuralTree } from "../fixtures.mjs"
import { piSession, reshape, SHAPES } from "./generate.mjs"
import { loadOpenClaw, loadPi, OPENCLAW, PI } from "./references.mjs"

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    shapes: { type: "string", default: SHAPES.join(",") },
    ops: { type: "string", default: "60" },
    out: { type: "string" },
    "save-fixtures": { type: "string" },
    "every-leaf": { type: "boolean", default: false }
  }
})
const repoRoot = resolve(import.meta.dirname, "..", "..")
const { SessionManager, SessionStore } = await import(join(repoRoot, "packages/session-store/dist/index.js"))
const { JsonView } = await import(join(repoRoot, "packages/session-core/dist/index.js"))
const { Effect } = await import(join(repoRoot, "packages/session-store/node_modules/effect/dist/esm/index.js"))

const Pi = await loadPi()
const OpenClaw = await loadOpenClaw()
const work = mkdtempSync(join(tmpdir(), "branchlog-differential-"))
const out = args.out ?? join(work, "differences")

/** The three answers of a reference session manager, as the fixtures hold them. */
const referenceAnswers = (Manager, file) => {
  const copy = `${file}.${Manager === Pi ? "pi" : "openclaw"}.jsonl` // the references may rewrite what they open
  copyFileSync(file, copy)
  const sm = Manager.open(copy, join(work, "reference-sessions"))
  const roots = sm.getTree()
  const nodes = []
  const stack = [...roots].reverse().map((node) => [node, null])
  while (stack.length > 0) {
    const [node, parentId] = stack.pop()
    nodes.push({
      id: node.entry.id,
      parentId,
      type: node.entry.type,
      ...(node.label === undefined ? {} : { label: node.label }),
      children: node.children.map((child) => child.entry.id)
    })
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], node.entry.id])
  }
  const header = sm.getHeader()
  const name = sm.getSessionName()
  return json({
    context: sm.buildSessionContext(),
    tree: { leafId: sm.getLeafId(), roots: roots.map((node) => node.entry.id), nodes },
    info: {
      id: header.id,
      version: header.version,
      cwd: header.cwd,
      ...(header.parentSession ? { parentSession: header.parentSession } : {}),
      ...(name === undefined ? {} : { name }),
      entries: sm.getEntries().length,
      leafId: sm.getLeafId()
    }
  })
}

/** branchlog's answers: the store's read-only open; the file must be byte-identical afterwards. */
/** The contexts at every entry taken as the leaf that differ from pi's (ids). */
const leavesDiffering = (file, state) => {
  const copy = `${file}.pi-leaves.jsonl`
  copyFileSync(file, copy)
  const sm = Pi.open(copy, join(work, "reference-sessions"))
  const differing = []
  for (const entry of sm.getEntries()) {
    sm.branch(entry.id)
    if (!isDeepStrictEqual(json(sm.buildSessionContext()), json(JsonView.context(state, entry.id)))) {
      differing.push(entry.id)
    }
  }
  return { checked: sm.getEntries().length, differing }
}

const ourState = async (file) => {
  const before = readFileSync(file)
  const sm = await Effect.runPromise(
    Effect.provide(
      SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }),
      SessionStore.layerNode
    )
  )
  if (!before.equals(readFileSync(file))) throw new Error(`${file} changed on a read-only open`)
  return sm.getState()
}

const answersOf = (state) =>
  json({ context: JsonView.context(state), tree: JsonView.tree(state), info: JsonView.info(state) })

/** For files whose ids are minted on migration: compare the tree by positions, ids by type. */
const comparable = (answers, minted) =>
  minted
    ? { context: idsAsStrings(answers.context), tree: structuralTree(answers.tree), info: idsAsStrings(answers.info) }
    : answers

const shapes = args.shapes.split(",").filter((shape) => SHAPES.includes(shape))
const count = Number(args.count)
const first = Number(args.seed)
const tally = new Map(shapes.map((shape) => [shape, { files: 0, same: 0, piDiffers: 0, skipped: 0, kinds: new Map() }]))
let differences = 0
let leavesChecked = 0

for (let seed = first; seed < first + count; seed++) {
  const shape = shapes[(seed - first) % shapes.length]
  const row = tally.get(shape)
  const dir = join(work, String(seed))
  const file = piSession(Pi, dir, seed, Number(args.ops) + seed % 40)
  const kinds = reshape(file, shape, seed)
  for (const kind of kinds) row.kinds.set(kind, (row.kinds.get(kind) ?? 0) + 1)
  row.files += 1
  let expected
  let pi
  try {
    expected = referenceAnswers(OpenClaw, file)
    pi = referenceAnswers(Pi, file)
  } catch (error) {
    // e.g. OpenClaw refuses a derived message with an invalid timestamp: no fixture can hold it
    row.skipped += 1
    console.error(`seed ${seed} (${shape}): a reference threw: ${error.message}`)
    continue
  }
  const state = await ourState(file)
  const got = answersOf(state)
  const minted = shape === "v1"
  const want = comparable(expected, minted)
  const ours = comparable(got, minted)
  if (!isDeepStrictEqual(comparable(pi, minted), want)) row.piDiffers += 1
  const differing = ["context", "tree", "info"].filter((key) => !isDeepStrictEqual(ours[key], want[key]))
  if (args["every-leaf"] && (shape === "v3" || shape === "v2")) {
    const leaves = leavesDiffering(file, state)
    leavesChecked += leaves.checked
    if (leaves.differing.length > 0) differing.push(`context at ${leaves.differing.length} other leaves`)
  }
  if (differing.length === 0) row.same += 1
  else {
    differences += 1
    mkdirSync(out, { recursive: true })
    copyFileSync(file, join(out, `seed-${seed}.jsonl`))
    writeFileSync(join(out, `seed-${seed}.json`), JSON.stringify({ shape, kinds, differing, want, got }, null, 1))
    console.error(`seed ${seed} (${shape}; ${kinds.join(", ") || "undamaged"}): ${differing.join(", ")} differ`)
  }
  if (args["save-fixtures"] !== undefined) {
    const target = resolve(args["save-fixtures"])
    mkdirSync(target, { recursive: true })
    const name = `differential-${shape}-${seed}`
    copyFileSync(file, join(target, `${name}.jsonl`))
    const agree = isDeepStrictEqual(comparable(pi, minted), want)
    writeFileSync(
      join(target, `${name}.expected.json`),
      JSON.stringify(
        {
          impl: agree ? "pi+openclaw" : "openclaw",
          references: { pi: PI, openclaw: OPENCLAW },
          case: `differential run, shape ${shape}, seed ${seed}: ${kinds.join(", ") || "undamaged"}`,
          ...(shape === "v1" || shape === "v2" ? { mayRewrite: true } : {}),
          ...(minted ? { idsGenerated: true } : {}),
          ...expected,
          ...(agree ? {} : { expected_pi: pi, expected_openclaw: expected, differences: "see expected_pi" })
        },
        null,
        1
      ) + "\n"
    )
  }
}

console.log(`differential run: ${PI} and ${OPENCLAW} against branchlog, seeds ${first}..${first + count - 1}\n`)
console.log("shape     files  same as openclaw  pi differs  skipped  changes applied")
for (const [shape, row] of tally) {
  const kinds = [...row.kinds].map(([kind, n]) => `${kind} ${n}`).join(", ")
  console.log(
    `${shape.padEnd(9)} ${String(row.files).padStart(5)}  ${String(row.same).padStart(16)}  ${
      String(row.piDiffers).padStart(10)
    }  ${String(row.skipped).padStart(7)}  ${kinds}`
  )
}
if (args["every-leaf"]) console.log(`\ncontexts compared with pi at ${leavesChecked} leaves`)
console.log(`\n${differences} file(s) where branchlog differs${differences > 0 ? ` (saved in ${out})` : ""}`)
if (args.out === undefined && differences === 0) rmSync(work, { recursive: true, force: true })
process.exitCode = differences > 0 ? 1 : 0
