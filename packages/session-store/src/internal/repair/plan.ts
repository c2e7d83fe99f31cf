/**
 * The pure half of a repair: from a diagnosis, what happens to each row, by its line number.
 * Every row is kept as it is (byte for byte: a file backend copies its bytes, never decodes and
 * re-encodes them) except blank lines (dropped), corrupt lines and extra headers (moved out, to be
 * kept aside), and a header that is not the first row (moved to the top). Rows without a header
 * get a new one. A byte-order mark starting the first row is removed. The plan names only the
 * exceptions, so it costs O(problems), not O(rows).
 */
import type { Line as LineTypes } from "@branchlog/session-core"
import { Line } from "@branchlog/session-core"
import type { Applied, Disposition, HeaderFix, Plan, PlanOptions } from "../../Repair.js"
import type { Scanned } from "./diagnosis.js"
import { isRepairable } from "./diagnosis.js"

export type { Applied, Disposition, HeaderFix, Plan, PlanOptions }

/** The plan of a repair of the diagnosed rows (a whole or a streamed check: it reads blank lines, corrupt rows and headers). */
export const plan = (diagnosis: Scanned, options: PlanOptions): Plan => {
  const { state } = diagnosis
  const fixes = diagnosis.findings.filter(isRepairable)
  const moved = new Set<number>()
  const dropped = new Set<number>()
  let header: HeaderFix = { _tag: "InPlace" }
  for (const line of diagnosis.lines) {
    if (line._tag === "Blank") dropped.add(line.line)
    else if (line._tag === "Corrupt" || (line._tag === "Header" && line.header !== state.header)) moved.add(line.line)
    else if (line._tag === "Header" && line.line !== 1) {
      header = { _tag: "Moved", line: line.line, text: Line.serialize(line) }
    }
  }
  if (state.header === undefined) {
    const created = options.header()
    header = { _tag: "Created", header: created, text: Line.stringify(created) }
  }
  return { fixes, header, moved, dropped }
}

/** What the plan does with the row on line `line`. */
export const disposition = (plan: Plan, line: number): Disposition =>
  plan.moved.has(line)
    ? "move"
    : plan.dropped.has(line) || (plan.header._tag === "Moved" && plan.header.line === line)
    ? "drop"
    : "keep"

/** A row without the byte-order mark that may start its text (only the first row can have one). */
const withoutByteOrderMark = (line: LineTypes.ParsedLine): LineTypes.ParsedLine => {
  if (line.line !== 1 || Line.isOversized(line) || !Line.hasByteOrderMark(line)) return line
  const text = Line.withoutByteOrderMark(Line.serialize(line))
  return line._tag === "Corrupt" ? { ...line, raw: text } : Line.parse(text, line.line, line.offset)
}

/**
 * The plan applied to rows (a store of rows replaces its rows with `rows` and keeps `removed`
 * aside); for a file it gives the rows the streamed repair writes, in the same order. A created
 * header has line 0 (it was not read).
 */
export const apply = (lines: Iterable<LineTypes.ParsedLine>, plan: Plan): Applied => {
  const kept: Array<LineTypes.Row> = []
  const removed: Array<LineTypes.Row> = []
  let first: LineTypes.Row | undefined = plan.header._tag === "Created"
    ? { _tag: "Header", header: plan.header.header, line: 0, offset: 0 }
    : undefined
  for (const line of lines) {
    if (line._tag === "Blank") continue
    if (plan.header._tag === "Moved" && plan.header.line === line.line) first = line
    else if (plan.moved.has(line.line)) removed.push(withoutByteOrderMark(line) as LineTypes.Row)
    else if (!plan.dropped.has(line.line)) kept.push(withoutByteOrderMark(line) as LineTypes.Row)
  }
  return { rows: first === undefined ? kept : [first, ...kept], removed }
}
