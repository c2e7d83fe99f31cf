/**
 * What is wrong with a session, as a pure function of its state: the findings of `fsck`, each
 * with the line number and byte offset it applies to. Finding nothing is an empty list.
 *
 * Errors lose or hide data when a reference opens the file (a corrupt line is skipped, a missing
 * header empties the session, an entry whose parent is gone starts a new root); warnings are legal
 * but suspicious (a label on an unknown entry, a compaction that keeps nothing, a context edit of
 * an unknown entry, a byte-order mark).
 *
 * @since 0.1.0
 */
import type { Entry, SessionHeader } from "./Entry.js"
import { malformedReason } from "./internal/classify.js"
import * as Compact from "./internal/compact.js"
import { diagnoseCompact, diagnoseRows, type Known } from "./internal/diagnoseRows.js"
import * as Reduced from "./internal/reduced.js"
import * as internal from "./internal/state.js"
import type { ParsedLine, Row } from "./Line.js"
import * as Line from "./Line.js"
import * as SessionContext from "./SessionContext.js"
import * as SessionState from "./SessionState.js"
import * as Tree from "./Tree.js"

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
export const diagnose = (state: SessionState.SessionState): Array<Problem> => diagnoseWith(state, undefined)

const diagnoseWith = (state: SessionState.SessionState, known: Known | undefined): Array<Problem> => {
  const s = state as unknown as internal.MutableState
  const where = (i: number): Where => ({ line: s.entryLines.get(i), offset: s.entryOffsets.get(i) })
  return diagnoseRows({
    header: s.header,
    headerLine: s.headerLine,
    others: s.others,
    count: s.entries.length,
    where,
    entryRow: (i) => ({
      _tag: "Entry",
      entry: s.entries[i]!,
      line: s.entryLines.get(i),
      offset: s.entryOffsets.get(i)
    }),
    invalidLeafControls: s.invalidLeafControls,
    entryProblems: (i, firstLines, problems) => entryProblems(state, s.entries[i]!, where(i), firstLines, problems),
    cycles: () => cycles(state)
  }, known)
}

const entryProblems = (
  state: SessionState.SessionState,
  entry: Entry,
  where: Where,
  firstLines: Map<string, number>,
  problems: Array<Problem>
): void => {
  if (state.duplicateIds.has(entry.id)) {
    const first = firstLines.get(entry.id)
    if (first === undefined) firstLines.set(entry.id, where.line ?? 0)
    else problems.push({ _tag: "DuplicateId", id: entry.id, firstLine: first, ...where })
  }
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
    if (!isAbove(state as unknown as internal.MutableState, entry.id, kept)) {
      problems.push({ _tag: "KeptEntryOffPath", id: entry.id, firstKeptEntryId: entry.firstKeptEntryId, ...where })
    }
  }
}

/**
 * `true` when an entry of id `kept` is on the branch of `id` above it (what
 * `Tree.getBranch(state, id).slice(0, -1)` holds), walked by positions, with no array of the path.
 */
const isAbove = (s: internal.MutableState, id: string, kept: string | null): boolean => {
  const start = internal.resolveCanonical(s, id)
  if (start === null) return false
  internal.settleParents(s)
  const limit = s.positions.size
  const from = s.positions.get(start)!
  let steps = 0
  for (let i = s.parents.get(from); i !== -1; i = s.parents.get(i)) {
    // back at the start, or longer than there are entries: a loop, every entry on it seen already
    if (i === from || ++steps > limit) return false
    if (s.entries[i]!.id === kept) return true
  }
  return false
}

/** `true` when every canonical entry's parents reach a root (no cycle), in typed arrays; `undefined` with duplicate ids. */
const everyEntryReachesRoot = (s: internal.MutableState): boolean | undefined => {
  if (s.duplicateIds.size > 0) return undefined
  internal.settleParents(s)
  const n = s.entries.length
  const mark = new Uint8Array(n) // 0: not yet, 1: reaches a root, 2: on the walk being made
  const walk: Array<number> = []
  for (let i = 0; i < n; i++) {
    let j = i
    while (j !== -1 && mark[j] === 0) {
      mark[j] = 2
      walk.push(j)
      j = s.parents.get(j)
    }
    if (j !== -1 && mark[j] === 2) return false
    for (const k of walk) mark[k] = 1
    walk.length = 0
  }
  return true
}

/** Entries whose parents never reach a root: the cycles, each reported once, with what hangs below. */
const cycles = (state: SessionState.SessionState): Array<Problem> => {
  const s = state as unknown as internal.MutableState
  if (everyEntryReachesRoot(s) === true) return []
  const reached = new Set<string>()
  Tree.walk(Tree.getTree(state), (node) => reached.add(node.entry.id))
  if (reached.size === state.byId.size) return []
  const lineOf = new Map<string, Where>()
  for (let i = 0; i < s.entries.length; i++) {
    const entry = s.entries[i]!
    if (!reached.has(entry.id) && state.byId.get(entry.id) === entry) {
      lineOf.set(entry.id, { line: s.entryLines.get(i), offset: s.entryOffsets.get(i) })
    }
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

/** A diagnosis made row by row, that keeps no row's content (see {@link accumulator}). */
export interface Accumulator {
  /** Folds the next line (lines come in file order, blank lines included). */
  readonly push: (line: ParsedLine) => void
  /** Every finding of the lines pushed: what {@link diagnose} gives on the state of the same lines. */
  readonly finish: () => Array<Problem>
  /** The header of the lines pushed (the first `session` row), `undefined` while none. */
  readonly header: () => SessionHeader | undefined
}

/**
 * A diagnosis that folds lines one at a time and keeps only what its findings need of each. A
 * plain session (each entry under one written before it, no duplicate id, no side append, leaf
 * control or parent-linked opaque row) is kept in typed arrays, about 50 bytes per entry: its ids
 * interned, its parents as indexes, its types as bytes. From the first row of any other shape on,
 * the reducer takes over with entries cut down to id, parent and type (about three times that).
 * Memory never grows with the size of the rows, so a session larger than memory is checked in
 * one pass over its lines.
 */
export const accumulator = (): Accumulator => {
  let table: Compact.CompactTable | undefined = new Compact.CompactTable()
  let state: SessionState.SessionState | undefined
  const malformed: Array<Problem> = []
  let byteOrderMark = false
  let first = true
  const canonical = (id: string): string | undefined => {
    const s = state as unknown as internal.MutableState
    const position = s.positions.get(id)
    return position === undefined ? undefined : s.entries[position]!.id
  }
  const none = (): undefined => undefined
  return {
    header: () => table?.header ?? state?.header,
    push: (line) => {
      if (line._tag === "Blank") return
      if (first) {
        first = false
        byteOrderMark = line.offset === 0 && Line.hasByteOrderMark(line)
      }
      if (line._tag === "Opaque") {
        const reason = malformedReason(line.value)
        if (reason !== undefined) {
          const id = typeof line.value.id === "string" && line.value.id.trim() !== "" ? line.value.id : undefined
          malformed.push({
            _tag: "MalformedEntry",
            type: line.value.type as string,
            ...(id === undefined ? {} : { id }),
            reason,
            ...at(line)
          })
        }
      }
      if (table !== undefined) {
        const reduced = Reduced.line(line, none)
        if (table.push(reduced)) return
        // a row of another shape: the reducer takes over from the rows so far
        const replayed = SessionState.empty()
        table.replay((row) => SessionState.apply(replayed, row))
        table = undefined
        state = replayed
        SessionState.apply(state, Reduced.line(line, canonical))
        return
      }
      SessionState.apply(state!, Reduced.line(line, canonical))
    },
    finish: () =>
      table !== undefined
        ? diagnoseCompact(table, { byteOrderMark, malformed })
        : diagnoseWith(state!, { byteOrderMark, malformed })
  }
}
