/**
 * The state of one session, as a fold over the rows of its file in order (event sourcing):
 * `fromRecords(lines)` is `lines.reduce(apply, empty())`.
 *
 * It holds the indexes of spec §4 in OpenClaw's form (the later, safer reference): entries by id,
 * the physical parents (as written) and the logical ones (opaque rows and leaf controls skipped),
 * labels with their timestamps, the visible leaf and the append parent, opaque rows with their
 * positions, invalid leaf controls. Nothing is fatal: duplicate ids, orphans, forward references
 * and cycles are recorded and answered by the queries, which are total.
 *
 * Where the references disagree this follows OpenClaw, which keeps more: rows of unknown type are
 * kept in place and are transparent in the tree; a `leaf` row moves the visible leaf; entries
 * written with `appendMode: "side"` never become the visible leaf; a file whose first row is not
 * the header still has its header (the first `session` row anywhere) and keeps every entry.
 *
 * Ownership: a state is a value owned by one writer. `apply` updates it in place and returns it,
 * so the fold is O(1) per row (a persistent structure would cost several times the `JSON.parse`
 * it follows); use {@link clone} to keep a copy. Nothing here reads a clock, a file or a random
 * source: ids and timestamps arrive in the rows.
 *
 * @since 0.1.0
 */
import type { Entry, LabelEntry, LeafControl, SessionHeader, SessionInfoEntry } from "./Entry.js"
import { isAssistantMessage } from "./Entry.js"
import { isNonBlank } from "./internal/classify.js"
import * as internal from "./internal/state.js"
import type { CorruptLine, HeaderLine, ParsedLine, Row } from "./Line.js"
import * as Line from "./Line.js"
import * as Migration from "./Migration.js"

/** A label and the timestamp of the label entry that set it. */
export type LabelInfo = internal.LabelInfo

/** The state of a session. Read it through the query modules; write it only through {@link apply}. */
export interface SessionState {
  /** The header: the first `session` row with a string id (normally line 1). */
  readonly header: SessionHeader | undefined
  /** The line the header was found on. */
  readonly headerLine: HeaderLine | undefined
  /** Canonical entries in file order (side entries and duplicates included). */
  readonly entries: ReadonlyArray<Entry>
  /** Canonical entries by id; for a duplicate id, the last row in file order. */
  readonly byId: ReadonlyMap<string, Entry>
  /** Ids seen on more than one canonical row. */
  readonly duplicateIds: ReadonlySet<string>
  /** Logical parents set by OpenClaw's re-parenting rule (spec §4), by entry id. */
  readonly logicalParents: ReadonlyMap<string, string | null>
  /** Parent links of parent-linked opaque rows and leaf controls, by their id. */
  readonly opaqueParents: ReadonlyMap<string, string | null>
  /** Ids of leaf controls that referenced unknown ids (kept, but without effect). */
  readonly invalidLeafControls: ReadonlySet<string>
  /** Resolved labels by target id (last label entry in file order wins). */
  readonly labels: ReadonlyMap<string, LabelInfo>
  /** The latest `session_info` entry in file order, on any branch. */
  readonly latestSessionInfo: SessionInfoEntry | undefined
  /** The visible leaf: where the conversation continues (`null`: before the first entry). */
  readonly leafId: string | null
  /** The physical parent of the next append (differs from `leafId` after side appends). */
  readonly appendParentId: string | null
  /** Rows that are not JSON objects, kept for reports and rewrites. */
  readonly corrupt: ReadonlyArray<CorruptLine>
  /** `session` rows after the header (a duplicated header), kept in place. */
  readonly extraHeaders: ReadonlyArray<HeaderLine>
  /** Bumped by every change; derived indexes compare it to know they are current. */
  readonly revision: number
}

const mutable = (state: SessionState): internal.MutableState => state as internal.MutableState

/** A state with no rows. */
export const empty = (): SessionState => internal.emptyState()

/** `true` when `id` names a canonical entry or an opaque row or leaf control. */
export const hasId = (state: SessionState, id: string): boolean => state.byId.has(id) || state.opaqueParents.has(id)

/**
 * The nearest canonical entry at or above `id`, following opaque rows and leaf controls.
 * `null` for an unknown id, a chain that ends, or a loop of opaque rows.
 */
export const resolveCanonical = (state: SessionState, id: string | null | undefined): string | null =>
  internal.resolveCanonical(mutable(state), id)

/** An id known to leaf controls: a canonical entry, or an opaque row that is not an invalid control. */
const isKnownToControl = (state: internal.MutableState, id: string | null): boolean =>
  id === null || state.positions.has(id) || (state.opaqueParents.has(id) && !state.invalidLeafControls.has(id))

/** An append parent: kept as it is when it names a known row, else its canonical ancestor. */
const resolveAppendParent = (state: internal.MutableState, id: string | null): string | null =>
  id === null || state.positions.has(id) || state.opaqueParents.has(id) ? id : internal.resolveCanonical(state, id)

/** A row with this id has arrived: if it was named as a parent earlier, parents must be rebuilt. */
const arrived = (state: internal.MutableState, id: string): void => {
  if (state.forwardRefs.size > 0 && state.forwardRefs.delete(id)) state.reshaped = true
}

const applyLeafControl = (state: internal.MutableState, control: LeafControl): void => {
  arrived(state, control.id)
  const appendParent = control.appendParentId
  if (
    !isKnownToControl(state, control.targetId) || (appendParent !== undefined && !isKnownToControl(state, appendParent))
  ) {
    state.invalidLeafControls.add(control.id)
    state.opaqueParents.set(control.id, resolveAppendParent(state, control.parentId))
    return
  }
  const leaf = control.targetId === null || state.positions.has(control.targetId)
    ? control.targetId
    : internal.resolveCanonical(state, control.targetId)
  state.opaqueParents.set(control.id, leaf)
  state.leafId = leaf
  state.appendParentId = appendParent === undefined ? leaf : resolveAppendParent(state, appendParent)
}

const applyEntry = (state: internal.MutableState, entry: Entry, line: number, offset: number): void => {
  const isSide = entry.appendMode === "side"
  if (
    !Object.hasOwn(entry, "parentId") ||
    (!isSide && entry.parentId === state.appendParentId && state.leafId !== state.appendParentId)
  ) state.logicalParents.set(entry.id, state.leafId)
  arrived(state, entry.id)
  const position = state.entries.length
  const previousAppendParent = state.appendParentId
  state.entries.push(entry)
  state.entryLines.push(line)
  state.entryOffsets.push(offset)
  if (!state.positions.add(entry.id, position)) {
    // a duplicate id: the new row is the entry now, and earlier children must follow it
    state.duplicateIds.add(entry.id)
    state.reshaped = true
  }
  state.parents.push(
    state.reshaped
      ? -1
      : position > 0 && entry.parentId === previousAppendParent &&
          previousAppendParent === state.entries[position - 1]!.id &&
          state.logicalParents.size === 0 && previousAppendParent !== entry.id
      ? position - 1 // the common case: written under the entry just before it
      : internal.parentPositionAt(state, position, true)
  )
  state.appendParentId = entry.id
  if (!isSide) state.leafId = entry.id
  if (entry.type === "label") applyLabel(state, entry)
  else if (entry.type === "session_info") state.latestSessionInfo = entry
}

const applyLabel = (state: internal.MutableState, entry: LabelEntry): void => {
  if (entry.label) state.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp })
  else state.labels.delete(entry.targetId)
}

/**
 * What a store reports beside a state it folds rows into: the id of the last row that carries one
 * (`Line.rowId`: what a leaf control written next names as its `parentId`) and whether any
 * assistant message was seen (on any branch).
 */
export interface Tail {
  tailId: string | null
  hasAssistant: boolean
}

/** A fresh {@link Tail}: no row, no assistant message. */
export const emptyTail = (): Tail => ({ tailId: null, hasAssistant: false })

/** {@link apply}, with `tail` brought up to `line` (in place): the one fold of every store and the manager. */
export const applyTail = (state: SessionState, tail: Tail, line: ParsedLine): SessionState => {
  apply(state, line)
  const id = Line.rowId(line)
  if (id !== undefined) tail.tailId = id
  if (line._tag === "Entry" && !tail.hasAssistant && isAssistantMessage(line.entry)) tail.hasAssistant = true
  return state
}

/**
 * Folds one parsed line into the state (in place) and returns it. Blank lines change nothing.
 * Rows must come in file order.
 */
export const apply = (state: SessionState, line: ParsedLine): SessionState => {
  const s = mutable(state)
  if (line._tag === "Blank") return s
  s.revision += 1
  if (line._tag !== "Entry") s.others.push({ row: line, before: s.entries.length })
  switch (line._tag) {
    case "Header":
      if (s.header === undefined) {
        s.header = line.header
        s.headerLine = line
      } else s.extraHeaders.push(line)
      break
    case "Entry":
      applyEntry(s, line.entry, line.line, line.offset)
      break
    case "LeafControl":
      applyLeafControl(s, line.control)
      break
    case "Opaque": {
      const value = line.value
      if (
        isNonBlank(value.id) && Object.hasOwn(value, "parentId") &&
        (value.parentId === null || typeof value.parentId === "string")
      ) {
        arrived(s, value.id)
        s.opaqueParents.set(value.id, value.parentId)
        s.appendParentId = value.id
      }
      break
    }
    case "Corrupt":
      s.corrupt.push(line)
      break
  }
  return s
}

/** What {@link fromActivePath} sets beside the path: the leaf, the append parent, labels and the name. */
export interface ActivePathAt {
  readonly leafId: string | null
  readonly appendParentId: string | null
  /** Every resolved label of the whole session, by target id. */
  readonly labels: Iterable<readonly [string, LabelInfo]>
  /** The latest `session_info` entry of the whole session (any branch). */
  readonly latestSessionInfo: SessionInfoEntry | undefined
}

/**
 * A partial state holding only one path of a session (root first: its rows in path order, each
 * the logical child of the one before it, the first a root), with the leaf, the append parent,
 * the labels and the name of the whole session. What a bounded open (a store's sidecar index)
 * hands over: every query of the path, of the leaf, of labels and of the name answers as on the
 * whole state; queries of the rest of the tree do not (a caller loads the whole session for them).
 */
export const fromActivePath = (
  header: HeaderLine | undefined,
  path: ReadonlyArray<{ readonly entry: Entry; readonly line: number; readonly offset: number }>,
  at: ActivePathAt
): SessionState => {
  const s = internal.emptyState()
  if (header !== undefined) apply(s, header)
  let previous: string | null = null
  for (const { entry, line, offset } of path) {
    const written = Object.hasOwn(entry, "parentId")
      ? (entry as { readonly parentId?: string | null }).parentId
      : undefined
    if (written !== previous || previous === entry.id) s.logicalParents.set(entry.id, previous)
    const position = s.entries.length
    s.entries.push(entry)
    s.entryLines.push(line)
    s.entryOffsets.push(offset)
    if (!s.positions.add(entry.id, position)) s.duplicateIds.add(entry.id)
    s.parents.push(position - 1)
    previous = entry.id
  }
  for (const [target, info] of at.labels) s.labels.set(target, info)
  s.latestSessionInfo = at.latestSessionInfo
  s.leafId = at.leafId
  s.appendParentId = at.appendParentId
  s.revision += 1
  return s
}

/** Folds every line, in order, into a new state. */
export const fromRecords = (lines: Iterable<ParsedLine>): SessionState => {
  const state = empty()
  for (const line of lines) apply(state, line)
  return state
}

/**
 * Parses a whole file's text, migrates it in memory (ids from `mintId`) and folds it. `migrated`
 * says whether the text is of an older version (a store would rewrite the file).
 */
export const fromText = (
  text: string,
  mintId: Migration.MintId
): { readonly state: SessionState; readonly migrated: boolean } => {
  const migration = Migration.migrate(Line.parseText(text), mintId)
  return { state: fromRecords(migration.lines), migrated: migration.changed }
}

/**
 * Moves the visible leaf (and the append parent) without a row, as `branch(id)` and
 * `resetLeaf()` do in a session that is not persisted. A persisted session writes a leaf control
 * and applies it instead, so the position survives a reopen. `id` may name an opaque row; it
 * resolves to its canonical ancestor. Returns `false` (and changes nothing) for an unknown id.
 */
export const navigate = (state: SessionState, id: string | null): boolean => {
  const s = mutable(state)
  if (id !== null && !hasId(s, id)) return false
  const leaf = internal.resolveCanonical(s, id)
  s.revision += 1
  s.leafId = leaf
  s.appendParentId = leaf
  return true
}

/**
 * `true` when the header is the first parseable row of the file, as the references require of a
 * valid file (corrupt lines before it are skipped, as they skip them).
 */
export const headerIsFirst = (state: SessionState): boolean => {
  for (const { row, before } of mutable(state).others) {
    if (before > 0) return false
    if (row._tag !== "Corrupt") return row === state.headerLine
  }
  return false
}

/** Every row of the file but blank lines, in file order (the header included). O(rows). */
export const rows = (state: SessionState): Array<Row> => {
  const s = mutable(state)
  const out: Array<Row> = []
  let next = 0
  const entriesUpTo = (count: number) => {
    for (; next < count; next++) {
      out.push({
        _tag: "Entry",
        entry: s.entries[next]!,
        line: s.entryLines.get(next),
        offset: s.entryOffsets.get(next)
      })
    }
  }
  for (const { row, before } of s.others) {
    entriesUpTo(before)
    out.push(row)
  }
  entriesUpTo(s.entries.length)
  return out
}

/** The line number and byte offset an entry was read from (the last row for a duplicate id). */
export const positionOf = (
  state: SessionState,
  id: string
): { readonly line: number; readonly offset: number } | undefined => {
  const s = mutable(state)
  const position = s.positions.get(id)
  return position === undefined ? undefined : { line: s.entryLines.get(position), offset: s.entryOffsets.get(position) }
}

/** The format version the header declares (absent ⇒ 1); `undefined` without a header. */
export const version = (state: SessionState): number | undefined =>
  state.header === undefined ? undefined : typeof state.header.version === "number" ? state.header.version : 1

/**
 * A copy that later `apply` calls on either side do not affect. The id and label indexes are
 * shared copy-on-write (O(1), with an occasional O(rows) merge of their layers); the arrays of
 * entries, parents and positions are copied, which costs a few milliseconds per 100k entries.
 */
export const clone = (state: SessionState): SessionState => internal.cloneState(mutable(state))
