// Differential run: random session files opened by the reference implementations and by branchlog
// (the store's read-only open, as the CLI's `context` / `tree` / `info --json` do).
//
// - Shapes `v3`, `openclaw`, `v2`, `v1` (generate.mjs): written through pi 0.73.1's SessionManager,
//   then damaged or extended. The expectation follows the fixtures' rule: OpenClaw 2026.6.11's
//   answer, which is pi 0.73.1's wherever the two agree. pi 1.6.0 opens every such file too, and
//   each file where it disagrees with OpenClaw or with pi 0.73.1 is counted and saved
//   (`pi16-seed-N.json`) for the report: those files hold none of pi 1.6's types, so the
//   disagreement is a fact about the references, not something branchlog picks a side in.
// - Shape `pi16` (generate16.mjs): written through pi 1.6.0's own SessionManager API (usage, context
//   edits, compactions with a system message / usage / nothing kept, system messages, null content),
//   plus rows its API refuses but files may hold (spec §15). The expectation is pi 1.6's answer.
//
//   pnpm differential [--count 200] [--seed 1] [--shapes v3,openclaw,v2,v1,pi16] [--ops 60]
//                     [--every-leaf] [--out DIR] [--save-fixtures DIR [--cover]]
//
// `--every-leaf` also compares the context at every entry taken as the leaf with pi's (pi 0.73.1 on
// `v3` and `v2`, where the references agree; pi 1.6 on `pi16`). `--save-fixtures DIR` writes every
// file with its expected answers; with `--cover`, only a small set that together covers every rule
// and change seen (greedy, smallest files first on ties).
//
// Needs the npm registry the first time (about 900 MB in all) and `pnpm build` (it loads the
// packages' dist). Shapes on which the references loop forever (parent cycles) are not generated.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { isDeepStrictEqual, parseArgs } from "node:util"
import { idsAsStrings, structuralTree } from "../fixtures.mjs"
import { contextsAtEveryLeaf, referenceAnswers } from "./answers.mjs"
import { piSession, reshape, SHAPES } from "./generate.mjs"
import { loadBranchlog } from "./ours.mjs"
import { loadOpenClaw, loadPi, OPENCLAW, PI, PI16, startPi16 } from "./references.mjs"
import { chooseCovering, printReport } from "./report.mjs"

const ALL_SHAPES = [...SHAPES, "pi16"]
const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    shapes: { type: "string", default: ALL_SHAPES.join(",") },
    ops: { type: "string", default: "60" },
    out: { type: "string" },
    "save-fixtures": { type: "string" },
    cover: { type: "boolean", default: false },
    "every-leaf": { type: "boolean", default: false }
  }
})
const branchlog = await loadBranchlog()
const Pi = await loadPi()
const OpenClaw = await loadOpenClaw()
const pi16 = startPi16()
const work = mkdtempSync(join(tmpdir(), "branchlog-differential-"))
const out = args.out ?? join(work, "differences")
const sessionDir = join(work, "reference-sessions")

/** For files whose ids are minted on migration: compare the tree by positions, ids by type. */
const comparable = (answers, minted) =>
  minted
    ? { context: idsAsStrings(answers.context), tree: structuralTree(answers.tree), info: idsAsStrings(answers.info) }
    : answers

const SECTIONS = ["context", "tree", "info"]
/** The sections in which two (comparable) answers differ. */
const sectionsDiffering = (a, b) => SECTIONS.filter((key) => !isDeepStrictEqual(a[key], b[key]))

/** The entries at which branchlog's context differs from a reference's, given its `[id, context]` pairs. */
const leavesDiffering = (pairs, state) =>
  pairs.filter(([id, context]) => !isDeepStrictEqual(context, branchlog.contextAt(state, id))).map(([id]) => id)

const shapes = args.shapes.split(",").filter((shape) => ALL_SHAPES.includes(shape))
const count = Number(args.count)
const first = Number(args.seed)
const tally = new Map(
  shapes.map((
    shape
  ) => [shape, { files: 0, same: 0, piDiffers: 0, pi16Differs: 0, skipped: 0, kinds: new Map(), sections: new Map() }])
)
/** pi 1.6 against the others on files without its types: one record per file where it disagrees. */
const pi16Disagreements = []
/** Per §15 rule (pi16 shape): files that exercise it, and those where branchlog differs from pi 1.6. */
const rules = new Map()
const candidates = []
let differences = 0
let leavesChecked = 0

const save = (dir, name, text) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, name), text)
}

for (let seed = first; seed < first + count; seed++) {
  const shape = shapes[(seed - first) % shapes.length]
  const row = tally.get(shape)
  const dir = join(work, String(seed))
  const ops = Number(args.ops) + seed % 40
  let file
  let kinds
  let want
  let expectedFile
  let labels
  let pairs
  const minted = shape === "v1"
  row.files += 1
  if (shape === "pi16") {
    ;({ file, kinds } = await pi16.request("write", { dir, seed, ops }))
    let answers
    try {
      answers = await pi16.request("answers", { file, sessionDir })
    } catch (error) {
      row.skipped += 1
      console.error(`seed ${seed} (pi16): pi 1.6 threw: ${error.message}`)
      continue
    }
    want = answers.answers
    labels = answers.rules // what the file exercises, not how it was made
    for (const rule of answers.rules) rules.set(rule, rules.get(rule) ?? { files: 0, differ: 0, context: 0 })
    for (const rule of answers.rules) rules.get(rule).files += 1
    expectedFile = {
      impl: "pi16",
      references: { pi16: PI16 },
      case: `differential run, shape pi16, seed ${seed}: written through pi 1.6's SessionManager API${
        kinds.length > 0 ? `, then ${kinds.join(", ")}` : ""
      }`,
      rules: answers.rules,
      ...want
    }
    if (args["every-leaf"]) pairs = await pi16.request("leaves", { file, sessionDir })
  } else {
    file = piSession(Pi, dir, seed, ops)
    kinds = reshape(file, shape, seed)
    let pi
    try {
      want = referenceAnswers(OpenClaw, file, "openclaw", sessionDir)
      pi = referenceAnswers(Pi, file, "pi", sessionDir)
    } catch (error) {
      // e.g. OpenClaw refuses a derived message with an invalid timestamp: no fixture can hold it
      row.skipped += 1
      console.error(`seed ${seed} (${shape}): a reference threw: ${error.message}`)
      continue
    }
    const agree = isDeepStrictEqual(comparable(pi, minted), comparable(want, minted))
    if (!agree) row.piDiffers += 1
    let answers16
    let threw
    try {
      answers16 = (await pi16.request("answers", { file, sessionDir })).answers
    } catch (error) {
      threw = error.message
    }
    const vsOpenClaw = threw ? ["throws"] : sectionsDiffering(comparable(answers16, minted), comparable(want, minted))
    const vsPi = threw ? ["throws"] : sectionsDiffering(comparable(answers16, minted), comparable(pi, minted))
    if (vsOpenClaw.length > 0 || vsPi.length > 0) {
      row.pi16Differs += 1
      pi16Disagreements.push({ seed, shape, kinds, vsOpenClaw, vsPi, threw })
      save(
        out,
        `pi16-seed-${seed}.json`,
        JSON.stringify({ shape, kinds, vsOpenClaw, vsPi, threw, pi16: answers16, openclaw: want, pi }, null, 1)
      )
      copyFileSync(file, join(out, `pi16-seed-${seed}.jsonl`))
    }
    labels = [shape, ...kinds]
    expectedFile = {
      impl: agree ? "pi+openclaw" : "openclaw",
      references: { pi: PI, openclaw: OPENCLAW, pi16: PI16 },
      case: `differential run, shape ${shape}, seed ${seed}: ${kinds.join(", ") || "undamaged"}`,
      ...(shape === "v1" || shape === "v2" ? { mayRewrite: true } : {}),
      ...(minted ? { idsGenerated: true } : {}),
      ...want,
      ...(agree ? {} : { expected_pi: pi, expected_openclaw: want, differences: "see expected_pi" }),
      ...(vsOpenClaw.length > 0
        ? {
          expected_pi16: answers16 ?? null,
          differences_pi16: threw ? `pi 1.6 throws: ${threw}` : `pi 1.6 differs from openclaw: ${vsOpenClaw.join(", ")}`
        }
        : {})
    }
    if (args["every-leaf"] && (shape === "v3" || shape === "v2")) {
      pairs = contextsAtEveryLeaf(Pi, file, "pi", sessionDir)
    }
  }
  for (const kind of kinds) row.kinds.set(kind, (row.kinds.get(kind) ?? 0) + 1)
  const state = await branchlog.state(file)
  const got = branchlog.answers(state)
  const differing = sectionsDiffering(comparable(got, minted), comparable(want, minted))
  if (pairs !== undefined) {
    leavesChecked += pairs.length
    const at = leavesDiffering(pairs, state)
    if (at.length > 0) differing.push(`context at ${at.length} other leaves`)
  }
  if (differing.length === 0) row.same += 1
  else {
    differences += 1
    for (const section of differing) {
      const key = section.startsWith("context at") ? "context at other leaves" : section
      row.sections.set(key, (row.sections.get(key) ?? 0) + 1)
    }
    if (shape === "pi16") {
      for (const rule of expectedFile.rules) {
        rules.get(rule).differ += 1
        if (differing.includes("context")) rules.get(rule).context += 1
      }
    }
    save(out, `seed-${seed}.json`, JSON.stringify({ shape, kinds, differing, want, got }, null, 1))
    copyFileSync(file, join(out, `seed-${seed}.jsonl`))
    console.error(`seed ${seed} (${shape}; ${kinds.join(", ") || "undamaged"}): ${differing.join(", ")} differ`)
  }
  if (args["save-fixtures"] !== undefined) {
    candidates.push({ name: `differential-${shape}-${seed}`, file, bytes: statSync(file).size, labels, expectedFile })
  }
}
await pi16.close()

if (args["save-fixtures"] !== undefined) {
  const target = resolve(args["save-fixtures"])
  mkdirSync(target, { recursive: true })
  const chosen = args.cover ? chooseCovering(candidates) : candidates
  for (const { name, file, expectedFile } of chosen) {
    copyFileSync(file, join(target, `${name}.jsonl`))
    writeFileSync(join(target, `${name}.expected.json`), JSON.stringify(expectedFile, null, 1) + "\n")
  }
  console.log(`saved ${chosen.length} file(s) with their expected answers in ${target}`)
  if (args.cover) { for (const { name, labels } of chosen) console.log(`  ${name}: ${labels.join(", ")}`) }
}

printReport({ first, count, tally, rules, pi16Disagreements, leavesChecked, everyLeaf: args["every-leaf"] })
console.log(`\n${differences} file(s) where branchlog differs${differences > 0 ? ` (saved in ${out})` : ""}`)
if (pi16Disagreements.length > 0) {
  console.log(`pi 1.6's disagreements with the others are saved in ${out} (pi16-seed-N.json)`)
}
if (args.out === undefined && differences === 0 && pi16Disagreements.length === 0) {
  rmSync(work, { recursive: true, force: true })
}
process.exitCode = differences > 0 ? 1 : 0
