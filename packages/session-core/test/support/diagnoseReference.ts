/**
 * (Test reference.) `Diagnostics.diagnose` as it was before the streaming diagnosis (0.1.0), kept
 * unchanged to compare the new forms with. What is wrong with a session, as a pure function of its state: the findings of `fsck`, each
 * with the line number and byte offset it applies to. Finding nothing is an empty list.
 *
 * Errors lose or hide data when a reference opens the file (a corrupt line is skipped, a missing
 * header empties the session, an entry whose parent is gone starts a new root); warnings are legal
 * but suspicious (a label on an unknown entry, a compaction that keeps nothing, a context edit of
 * an unknown entry, a byte-order mark).
 *
 * @since 0.1.0
 */
import type { Entry } from "../../src/Entry.js"
import { malformedReason } from "../../src/internal/classify.js"
import type { Row } from "../../src/Line.js"
import * as Line from "../../src/Line.js"
import * as SessionContext from "../../src/SessionContext.js"
import * as SessionState from "../../src/SessionState.js"
import * as Tree from "../../src/Tree.js"

/** Where a finding applies: 1-based line number and byte offset (absent for the whole file). */
export interface Where {
  readonly line?: number
  readonly offset?: number
}

/** One finding. */
export type Problem =
  | { readonly _tag: "CorruptLine"; readonly reason: string; readonly last: boolean } & Where
  | { readonly _tag: "MissingHeader" } & Where
  | { readonly _tag: "HeaderNotFirst" } & Where
  | { readonly _tag: "DuplicateHeader"; readonly id: string } & Where
  | { readonly _tag: "DuplicateId"; readonly id: string; readonly firstLine: number } & Where
  | { readonly _tag: "Orphan"; readonly id: string; readonly parentId: string } & Where
  | { readonly _tag: "Cycle"; readonly ids: ReadonlyArray<string>; readonly detached: number } & Where
  | { readonly _tag: "DanglingLabel"; readonly id: string; readonly targetId: string } & Where
  | { readonly _tag: "KeptEntryOffPath"; readonly id: string; readonly firstKeptEntryId: string } & Where
  | { readonly _tag: "InvalidLeafControl"; readonly id: string } & Where
  | { readonly _tag: "ByteOrderMark" } & Where
  | { readonly _tag: "MalformedEntry"; readonly type: string; readonly id?: string; readonly reason: string } & Where
  | { readonly _tag: "DanglingContextEdit"; readonly id: string; readonly targetId: string } & Where
  | { readonly _tag: "InvalidContextEdit"; readonly id: string } & Where

/** How bad a finding is. */
export type Severity = "error" | "warning"

/** The severity of a finding. */
export const severity = (problem: Problem): Severity => {
  switch (problem._tag) {
    case "CorruptLine":
    case "MissingHeader":
    case "HeaderNotFirst":
    case "DuplicateHeader":
    case "DuplicateId":
    case "Orphan":
    case "Cycle":
    case "MalformedEntry":
      return "error"
    default:
      return "warning"
  }
}

/** One line of text that says what a finding is. */
export const describe = (problem: Problem): string => {
  switch (problem._tag) {
    case "CorruptLine":
      return `${problem.last ? "torn or corrupt last line" : "corrupt line"}: ${problem.reason}`
    case "MissingHeader":
      return "no session header anywhere in the file"
    case "HeaderNotFirst":
      return "the session header is not the first row"
    case "DuplicateHeader":
      return `a second session header (id ${problem.id})`
    case "DuplicateId":
      return `entry id ${problem.id} is used again (first on line ${problem.firstLine}); the last one wins`
    case "Orphan":
      return `entry ${problem.id} names a parent that does not exist (${problem.parentId}); it is a root`
    case "Cycle":
      return `parent cycle through ${problem.ids.join(" → ")}` +
        (problem.detached > 0 ? ` (${problem.detached} more entries hang below it)` : "")
    case "DanglingLabel":
      return `label entry ${problem.id} labels an entry that does not exist (${problem.targetId})`
    case "KeptEntryOffPath":
      return `compaction ${problem.id} keeps from ${problem.firstKeptEntryId}, which is not on its path: it keeps nothing`
    case "InvalidLeafControl":
      return `leaf control ${problem.id} names an entry that does not exist before it; it is ignored`
    case "ByteOrderMark":
      return "the file starts with a UTF-8 byte-order mark (read as white space; `repair` removes it)"
    case "MalformedEntry":
      return `a ${problem.type} row${
        problem.id === undefined ? "" : ` (id ${problem.id})`
      } is not an entry: ${problem.reason}; it is kept, but is in neither the tree nor the context`
    case "DanglingContextEdit":
      return `context edit ${problem.id} edits an entry that does not exist (${problem.targetId}); it changes nothing`
    case "InvalidContextEdit":
      return `context edit ${problem.id} needs a string targetId and a replacement that is null or {content}; it changes nothing`
  }
}

const at = (row: Row): Where => ({ line: row.line, offset: row.offset })

/** Every finding, in file order. O(rows). */
export const diagnose = (state: SessionState.SessionState): Array<Problem> => {
  const problems: Array<Problem> = []
  const rows = SessionState.rows(state)
  if (state.header === undefined) problems.push({ _tag: "MissingHeader" })
  else if (!SessionState.headerIsFirst(state)) problems.push({ _tag: "HeaderNotFirst", ...at(state.headerLine!) })

  const firstLines = new Map<string, number>()
  const lastRow = rows[rows.length - 1]
  const first = rows[0]
  if (first !== undefined && first.offset === 0 && Line.hasByteOrderMark(first)) {
    problems.push({ _tag: "ByteOrderMark", ...at(first) })
  }
  for (const row of rows) {
    switch (row._tag) {
      case "Opaque": {
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
        if (row !== state.headerLine) problems.push({ _tag: "DuplicateHeader", id: row.header.id, ...at(row) })
        break
      case "LeafControl":
        if (state.invalidLeafControls.has(row.control.id)) {
          problems.push({ _tag: "InvalidLeafControl", id: row.control.id, ...at(row) })
        }
        break
      case "Entry":
        entryProblems(state, row.entry, at(row), firstLines, problems)
        break
    }
  }
  problems.push(...cycles(state, rows))
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
}

const entryProblems = (
  state: SessionState.SessionState,
  entry: Entry,
  where: Where,
  firstLines: Map<string, number>,
  problems: Array<Problem>
): void => {
  const first = firstLines.get(entry.id)
  if (first === undefined) firstLines.set(entry.id, where.line ?? 0)
  else problems.push({ _tag: "DuplicateId", id: entry.id, firstLine: first, ...where })
  const parentId = (entry as { readonly parentId?: unknown }).parentId
  if (
    typeof parentId === "string" && parentId !== "" && parentId !== entry.id && !state.logicalParents.has(entry.id) &&
    SessionState.resolveCanonical(state, parentId) === null
  ) problems.push({ _tag: "Orphan", id: entry.id, parentId, ...where })
  if (entry.type === "label" && !SessionState.hasId(state, entry.targetId)) {
    problems.push({ _tag: "DanglingLabel", id: entry.id, targetId: entry.targetId, ...where })
  }
  if (entry.type === "context_edit") {
    if (!SessionContext.isEffectiveEdit(entry)) problems.push({ _tag: "InvalidContextEdit", id: entry.id, ...where })
    else if (!state.byId.has(entry.targetId)) {
      problems.push({ _tag: "DanglingContextEdit", id: entry.id, targetId: entry.targetId, ...where })
    }
  }
  // `null` (or, as pi 1.6 stores it, the compaction's own id) keeps nothing on purpose
  if (
    entry.type === "compaction" && state.byId.get(entry.id) === entry && entry.firstKeptEntryId !== null &&
    entry.firstKeptEntryId !== entry.id
  ) {
    const kept = SessionContext.firstKeptEntryId(state, entry)
    const before = Tree.getBranch(state, entry.id).slice(0, -1)
    if (!before.some((e) => e.id === kept)) {
      problems.push({ _tag: "KeptEntryOffPath", id: entry.id, firstKeptEntryId: entry.firstKeptEntryId, ...where })
    }
  }
}

/** Entries whose parents never reach a root: the cycles, each reported once, with what hangs below. */
const cycles = (state: SessionState.SessionState, rows: ReadonlyArray<Row>): Array<Problem> => {
  const reached = new Set<string>()
  Tree.walk(Tree.getTree(state), (node) => reached.add(node.entry.id))
  if (reached.size === state.byId.size) return []
  const lineOf = new Map<string, Where>()
  for (const row of rows) {
    if (row._tag === "Entry" && state.byId.get(row.entry.id) === row.entry) lineOf.set(row.entry.id, at(row))
  }
  const cycleOf = new Map<string, string>() // entry id -> the first id of its cycle
  const byFirst = new Map<string, { ids: Array<string>; detached: number }>() // in the order they are found
  for (const id of state.byId.keys()) {
    if (reached.has(id) || cycleOf.has(id)) continue
    const walk: Array<string> = []
    const index = new Map<string, number>()
    let current: string | null = id
    while (current !== null && !index.has(current) && !cycleOf.has(current)) {
      index.set(current, walk.length)
      walk.push(current)
      current = Tree.parentOf(state, state.byId.get(current)!)
    }
    let key: string
    if (current !== null && index.has(current)) {
      const ids = walk.slice(index.get(current)!)
      key = ids[0]!
      const cycle = { ids, detached: 0 }
      byFirst.set(key, cycle)
      for (const member of ids) cycleOf.set(member, key)
      for (const below of walk.slice(0, index.get(current)!)) {
        cycleOf.set(below, key)
        cycle.detached++
      }
    } else {
      key = cycleOf.get(current!)!
      for (const below of walk) {
        cycleOf.set(below, key)
        byFirst.get(key)!.detached++
      }
    }
  }
  return [...byFirst.values()].map((cycle) => {
    const ordered = [...cycle.ids].sort((a, b) => (lineOf.get(a)?.line ?? 0) - (lineOf.get(b)?.line ?? 0))
    return { _tag: "Cycle" as const, ids: ordered, detached: cycle.detached, ...lineOf.get(ordered[0]!) }
  })
}
