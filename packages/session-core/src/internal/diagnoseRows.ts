/**
 * The walk of a diagnosis over the rows of a session, in file order, shared by the whole state's
 * diagnosis and the compact tables' (see `Diagnostics.accumulator`): the header, byte-order mark,
 * corrupt, extra header, leaf control and malformed rows, each entry's findings, then the cycles.
 */
import type { Problem, Where } from "../Diagnostics.js"
import type { SessionHeader } from "../Entry.js"
import type { HeaderLine, Row } from "../Line.js"
import * as Line from "../Line.js"
import { isEffectiveEdit } from "../SessionContext.js"
import { malformedReason } from "./classify.js"
import type * as Compact from "./compact.js"
import type { OtherRow } from "./state.js"

const at = (row: Row): Where => ({ line: row.line, offset: row.offset })

/**
 * What a caller that folded reduced rows (see `Diagnostics.accumulator`) knows of the rows it reduced:
 * whether the first row starts with a byte-order mark, and the findings of opaque rows.
 */
export interface Known {
  readonly byteOrderMark: boolean
  readonly malformed: ReadonlyArray<Problem>
}

/** The rows a diagnosis walks: a whole state's, or a compact table's (see `Diagnostics.accumulator`). */
export interface Rows {
  readonly header: SessionHeader | undefined
  readonly headerLine: HeaderLine | undefined
  /** The rows that are not entries, each with the number of entries before it. */
  readonly others: ReadonlyArray<OtherRow>
  readonly count: number
  /** Line and offset of the entry at `i`. */
  readonly where: (i: number) => Where
  /** The whole row of the entry at `i` (read for the byte-order mark when nothing is `Known`). */
  readonly entryRow?: (i: number) => Row
  readonly invalidLeafControls: ReadonlySet<string>
  /** Pushes the findings of the entry at `i`. */
  readonly entryProblems: (i: number, firstLines: Map<string, number>, problems: Array<Problem>) => void
  readonly cycles: () => Array<Problem>
}

/** Every finding of `rows`, in file order. */
export const diagnoseRows = (rows: Rows, known: Known | undefined): Array<Problem> => {
  const { count, others } = rows
  const problems: Array<Problem> = []
  if (rows.header === undefined) problems.push({ _tag: "MissingHeader" })
  else if (!headerIsFirst(rows)) problems.push({ _tag: "HeaderNotFirst", ...at(rows.headerLine!) })

  // the last row, compared with corrupt rows only (an entry's row is never one of them)
  const lastOther = others[others.length - 1]
  const lastRow: Row | undefined = lastOther !== undefined && lastOther.before === count ? lastOther.row : undefined
  const firstOther = others[0]
  if (firstOther !== undefined && firstOther.before === 0) {
    const first = firstOther.row
    if (first.offset === 0 && (known === undefined ? Line.hasByteOrderMark(first) : known.byteOrderMark)) {
      problems.push({ _tag: "ByteOrderMark", ...at(first) })
    }
  } else if (count > 0) {
    const first = rows.where(0)
    if (
      first.offset === 0 && (known === undefined
        ? rows.entryRow !== undefined && Line.hasByteOrderMark(rows.entryRow(0))
        : known.byteOrderMark)
    ) {
      problems.push({ _tag: "ByteOrderMark", ...first })
    }
  }
  // only ids used twice need the line of their first row
  const firstLines = new Map<string, number>()
  const otherRow = (row: Exclude<Row, { readonly _tag: "Entry" }>): void => {
    switch (row._tag) {
      case "Opaque": {
        if (known !== undefined) break
        const reason = malformedReason(row.value)
        if (reason !== undefined) {
          const id = typeof row.value.id === "string" && row.value.id.trim() !== "" ? row.value.id : undefined
          problems.push({
            _tag: "MalformedEntry",
            type: row.value.type as string,
            ...(id === undefined ? {} : { id }),
            reason,
            ...at(row)
          })
        }
        break
      }
      case "Corrupt":
        problems.push({ _tag: "CorruptLine", reason: row.reason, last: row === lastRow, ...at(row) })
        break
      case "Header":
        if (row !== rows.headerLine) problems.push({ _tag: "DuplicateHeader", id: row.header.id, ...at(row) })
        break
      case "LeafControl":
        if (rows.invalidLeafControls.has(row.control.id)) {
          problems.push({ _tag: "InvalidLeafControl", id: row.control.id, ...at(row) })
        }
        break
    }
  }
  // the rows in file order, without an array of them: the entries between the other rows
  let next = 0
  const entriesUpTo = (before: number) => {
    for (; next < before; next++) rows.entryProblems(next, firstLines, problems)
  }
  for (const { before, row } of others) {
    entriesUpTo(before)
    otherRow(row)
  }
  entriesUpTo(count)
  if (known !== undefined) problems.push(...known.malformed)
  problems.push(...rows.cycles())
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
}

/** `SessionState.headerIsFirst` of the rows. */
const headerIsFirst = (rows: Rows): boolean => {
  for (const { before, row } of rows.others) {
    if (before > 0) return false
    if (row._tag !== "Corrupt") return row === rows.headerLine
  }
  return false
}

/** The findings of the entry at `i` of a compact table: `entryProblems` where no id repeats and no row is opaque-linked. */
const compactEntryProblems = (table: Compact.CompactTable, i: number, problems: Array<Problem>): void => {
  const orphanOf = table.orphanParent(i)
  if (orphanOf !== undefined) problems.push({ _tag: "Orphan", id: table.id(i), parentId: orphanOf, ...table.at(i) })
  const entry = table.special(i)
  if (entry === undefined) return
  if (entry.type === "label" && !table.has(entry.targetId)) {
    problems.push({ _tag: "DanglingLabel", id: entry.id, targetId: entry.targetId, ...table.at(i) })
  }
  if (entry.type === "context_edit") {
    if (!isEffectiveEdit(entry)) {
      problems.push({ _tag: "InvalidContextEdit", id: entry.id, ...table.at(i) })
    } else if (!table.has(entry.targetId)) {
      problems.push({ _tag: "DanglingContextEdit", id: entry.id, targetId: entry.targetId, ...table.at(i) })
    }
  }
  if (
    entry.type === "compaction" && entry.firstKeptEntryId !== null && entry.firstKeptEntryId !== entry.id &&
    !table.isAbove(i, entry.firstKeptEntryId)
  ) {
    problems.push({ _tag: "KeptEntryOffPath", id: entry.id, firstKeptEntryId: entry.firstKeptEntryId, ...table.at(i) })
  }
}

const noLeafControls: ReadonlySet<string> = new Set()

/** The findings of a compact table's rows. */
export const diagnoseCompact = (table: Compact.CompactTable, known: Known): Array<Problem> =>
  diagnoseRows({
    header: table.header,
    headerLine: table.headerLine,
    others: table.others,
    count: table.count,
    where: (i) => table.at(i),
    invalidLeafControls: noLeafControls,
    entryProblems: (i, _firstLines, problems) => compactEntryProblems(table, i, problems),
    // every parent comes before its child: no cycle
    cycles: () => []
  }, known)
