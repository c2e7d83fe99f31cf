// What the references tolerate around a line: one small session written by pi 0.73.1, then the
// same bytes with a byte-order mark, CRLF line endings, whitespace around lines and the like, each
// opened by pi 0.73.1, OpenClaw 2026.6.11, pi 1.6.0 and branchlog. Prints a table: for each
// variant and reader, whether the answers are those of the plain file, or what changed.
//
//   node tooling/differential/tolerance.mjs [--markdown]
//
// Needs `pnpm build` and the references (installed on first use, as for `pnpm differential`).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isDeepStrictEqual, parseArgs } from "node:util"
import { referenceAnswers } from "./answers.mjs"
import { piSession } from "./generate.mjs"
import { loadBranchlog } from "./ours.mjs"
import { loadOpenClaw, loadPi, startPi16 } from "./references.mjs"

const { values: args } = parseArgs({ options: { markdown: { type: "boolean", default: false } } })
const branchlog = await loadBranchlog()
const Pi = await loadPi()
const OpenClaw = await loadOpenClaw()
const pi16 = startPi16()
const work = mkdtempSync(join(tmpdir(), "branchlog-tolerance-"))
const sessionDir = join(work, "reference-sessions")

const base = readFileSync(piSession(Pi, join(work, "base"), 3, 4), "utf8")
const lines = base.split("\n").filter((line) => line !== "")
const each = (f) => lines.map(f).join("\n") + "\n"
const BOM = "\uFEFF"

/** The variants: a name and the file's text. */
const variants = [
  ["plain (LF)", base],
  ["BOM before the header", BOM + base],
  ["BOM before an entry line (line 3)", each((line, i) => (i === 2 ? BOM + line : line))],
  ["BOM on every line", each((line) => BOM + line)],
  ["CRLF on every line", each((line) => `${line}\r`)],
  ["CRLF on the header only", each((line, i) => (i === 0 ? `${line}\r` : line))],
  ["CR only (no LF)", lines.join("\r") + "\r"],
  ["BOM + CRLF", BOM + each((line) => `${line}\r`)],
  ["spaces / tabs before every line", each((line) => ` \t ${line}`)],
  ["spaces / tabs after every line", each((line) => `${line} \t `)],
  ["spaces before the header only", each((line, i) => (i === 0 ? `  ${line}` : line))],
  ["blank and whitespace-only lines between", lines.join("\n\n \t\n") + "\n"],
  ["blank lines before the header", "\n\n" + base],
  ["no-break space (U+00A0) before every line", each((line) => `\u00a0${line}`)],
  ["form feed / vertical tab after every line", each((line) => `${line}\f\v`)]
]

const summary = (answers, plain) => {
  if (isDeepStrictEqual(answers, plain)) return "same as plain"
  const parts = []
  if (answers.info.id !== plain.info.id) parts.push("header lost (new id)")
  if (answers.info.entries !== plain.info.entries) parts.push(`${answers.info.entries}/${plain.info.entries} entries`)
  if (answers.context.messages.length !== plain.context.messages.length) {
    parts.push(`${answers.context.messages.length}/${plain.context.messages.length} messages`)
  }
  if (answers.tree.leafId !== plain.tree.leafId) parts.push("other leaf")
  return parts.length > 0 ? parts.join(", ") : "differs (other fields)"
}

const readers = {
  "pi 0.73.1": async (file) => referenceAnswers(Pi, file, "pi", sessionDir),
  "OpenClaw 2026.6.11": async (file) => referenceAnswers(OpenClaw, file, "openclaw", sessionDir),
  "pi 1.6.0": async (file) => (await pi16.request("answers", { file, sessionDir })).answers,
  branchlog: async (file) => branchlog.answers(await branchlog.state(file))
}

const rows = []
let plain
for (const [i, [name, text]] of variants.entries()) {
  const dir = join(work, `v${i}`)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, "session.jsonl")
  writeFileSync(file, text)
  const cells = []
  for (const [reader, read] of Object.entries(readers)) {
    try {
      const answers = await read(file)
      if (i === 0) plain = { ...plain, [reader]: answers }
      cells.push(summary(answers, plain[reader]))
    } catch (error) {
      cells.push(`throws: ${error.message.replace(/\/\S+/g, "FILE")}`)
    }
  }
  rows.push([name, ...cells])
}
await pi16.close()
rmSync(work, { recursive: true, force: true })

const header = ["variant", ...Object.keys(readers)]
if (args.markdown) {
  console.log(`| ${header.join(" | ")} |\n|${header.map(() => " --- ").join("|")}|`)
  for (const row of rows) console.log(`| ${row.join(" | ")} |`)
} else {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)))
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join("  "))
}
