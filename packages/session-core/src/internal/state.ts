/**
 * The mutable representation behind `SessionState`, and the parent resolution that both the
 * reducer and the queries use. Entries are numbered by their position in `entries`; parents are
 * kept as positions (`parents.get(i)`, -1 for a root), so walking a branch costs no hashing.
 */
import type { Entry, SessionHeader, SessionInfoEntry } from "../Entry.js"
import type { CorruptLine, HeaderLine, Row } from "../Line.js"
import { NumberColumn } from "./column.js"
import { LayeredMap } from "./layeredMap.js"

/** A label and the timestamp of the label entry that set it. */
export interface LabelInfo {
  readonly label: string
  readonly timestamp: string
}

/** A row that is not a canonical entry, and where it sits among the entries. */
export interface OtherRow {
  readonly row: Exclude<Row, { readonly _tag: "Entry" }>
  /** How many entries come before it in the file. */
  readonly before: number
}

/** The fields of a state. */
export interface MutableState {
  header: SessionHeader | undefined
  headerLine: HeaderLine | undefined
  readonly entries: Array<Entry>
  /** Line number and byte offset of each entry, by position (kept apart: no object per row). */
  readonly entryLines: NumberColumn
  readonly entryOffsets: NumberColumn
  /** Every row that is not an entry, with the number of entries before it (its place in the file). */
  readonly others: Array<OtherRow>
  /** Position in `entries` of the entry each id names (the last row for a duplicate id). */
  readonly positions: LayeredMap<string, number>
  readonly byId: ReadonlyMap<string, Entry>
  readonly duplicateIds: Set<string>
  readonly logicalParents: Map<string, string | null>
  readonly opaqueParents: Map<string, string | null>
  readonly invalidLeafControls: Set<string>
  readonly labels: LayeredMap<string, LabelInfo>
  latestSessionInfo: SessionInfoEntry | undefined
  leafId: string | null
  appendParentId: string | null
  readonly corrupt: Array<CorruptLine>
  readonly extraHeaders: Array<HeaderLine>
  revision: number
  /** Logical parent position of each entry (-1: a root). Stale while `reshaped` is set. */
  readonly parents: NumberColumn
  /** Ids that were named as parents before anything had them. */
  readonly forwardRefs: Set<string>
  /** A forward reference was resolved or a duplicate id replaced an entry: `parents` must be rebuilt. */
  reshaped: boolean
  /** Bumped each time `parents` is rebuilt, so indexes built on it know to rebuild too. */
  shape: number
}

/** A read-only `Map` view of the entries by id, over `positions`. */
export class EntriesById implements ReadonlyMap<string, Entry> {
  constructor(private readonly state: MutableState) {}
  get size(): number {
    return this.state.positions.size
  }
  get(id: string): Entry | undefined {
    const position = this.state.positions.get(id)
    return position === undefined ? undefined : this.state.entries[position]
  }
  has(id: string): boolean {
    return this.state.positions.has(id)
  }
  forEach(callback: (value: Entry, key: string, map: ReadonlyMap<string, Entry>) => void): void {
    for (const [id, entry] of this.entries()) callback(entry, id, this)
  }
  *entries(): MapIterator<[string, Entry]> {
    for (const [id, position] of this.state.positions) yield [id, this.state.entries[position]!]
  }
  keys(): MapIterator<string> {
    return this.state.positions.keys()
  }
  *values(): MapIterator<Entry> {
    for (const position of this.state.positions.values()) yield this.state.entries[position]!
  }
  [Symbol.iterator](): MapIterator<[string, Entry]> {
    return this.entries()
  }
}

/** A state with no rows. */
export const emptyState = (): MutableState => {
  const state = {
    header: undefined,
    headerLine: undefined,
    entries: [],
    entryLines: new NumberColumn(),
    entryOffsets: new NumberColumn(),
    others: [],
    positions: new LayeredMap(),
    duplicateIds: new Set(),
    logicalParents: new Map(),
    opaqueParents: new Map(),
    invalidLeafControls: new Set(),
    labels: new LayeredMap(),
    latestSessionInfo: undefined,
    leafId: null,
    appendParentId: null,
    corrupt: [],
    extraHeaders: [],
    revision: 0,
    parents: new NumberColumn(),
    forwardRefs: new Set(),
    reshaped: false,
    shape: 0
  } as Omit<MutableState, "byId"> as MutableState
  ;(state as { byId: ReadonlyMap<string, Entry> }).byId = new EntriesById(state)
  return state
}

/**
 * A deep enough copy: later changes to either side do not reach the other. The two big indexes
 * (entries by id, labels) and the number columns (lines, offsets, parents) are forked
 * copy-on-write; the entries and the small arrays are copied.
 */
export const cloneState = (s: MutableState): MutableState => {
  const copy = {
    ...s,
    entries: [...s.entries],
    entryLines: s.entryLines.fork(),
    entryOffsets: s.entryOffsets.fork(),
    others: [...s.others],
    positions: s.positions.fork(),
    duplicateIds: new Set(s.duplicateIds),
    logicalParents: new Map(s.logicalParents),
    opaqueParents: new Map(s.opaqueParents),
    invalidLeafControls: new Set(s.invalidLeafControls),
    labels: s.labels.fork(),
    corrupt: [...s.corrupt],
    extraHeaders: [...s.extraHeaders],
    parents: s.parents.fork(),
    forwardRefs: new Set(s.forwardRefs)
  }
  ;(copy as { byId: ReadonlyMap<string, Entry> }).byId = new EntriesById(copy)
  return copy
}

/**
 * The nearest canonical entry at or above `id`, following opaque rows and leaf controls.
 * `null` for an unknown id, a chain that ends, or a loop of opaque rows. With `note`, an unknown
 * id met on the way is remembered as a forward reference.
 */
export const resolveCanonical = (state: MutableState, id: string | null | undefined, note = false): string | null => {
  let current = id
  if (current === null || current === undefined || current === "") return null
  if (state.positions.has(current)) return current
  let seen: Set<string> | undefined
  while (!state.positions.has(current)) {
    const next = state.opaqueParents.get(current)
    if (next === undefined) {
      if (note) state.forwardRefs.add(current)
      return null
    }
    if (next === null || next === "") return null
    ;(seen ??= new Set()).add(current)
    if (seen.has(next)) return null
    current = next
  }
  return current
}

/** The logical parent id of the entry at `position` (see `Tree.parentOf`). */
export const parentIdAt = (state: MutableState, position: number, note = false): string | null =>
  parentIdOf(state, state.entries[position]!, note)

/** The logical parent id of an entry (see `Tree.parentOf`). */
export const parentIdOf = (state: MutableState, entry: Entry, note = false): string | null => {
  if (state.logicalParents.size > 0 && state.logicalParents.has(entry.id)) return state.logicalParents.get(entry.id)!
  const parentId = (entry as { readonly parentId?: string | null }).parentId
  if (parentId === entry.id) return null
  const resolved = resolveCanonical(state, parentId, note)
  return resolved === entry.id ? null : resolved
}

/** The logical parent position of the entry at `position` (-1: a root). */
export const parentPositionAt = (state: MutableState, position: number, note = false): number => {
  if (state.logicalParents.size === 0) {
    // the common case: a written parent that names an entry
    const parentId = (state.entries[position] as { readonly parentId?: string | null }).parentId
    if (typeof parentId === "string") {
      const found = state.positions.get(parentId)
      if (found !== undefined) return found === position || parentId === state.entries[position]!.id ? -1 : found
    }
  }
  const parentId = parentIdAt(state, position, note)
  return parentId === null ? -1 : state.positions.get(parentId)!
}

/** Recomputes every parent position after a reshape. O(entries). */
export const settleParents = (state: MutableState): void => {
  if (!state.reshaped) return
  const { entries, parents } = state
  for (let i = 0; i < entries.length; i++) parents.set(i, parentPositionAt(state, i, true))
  state.reshaped = false
  state.shape += 1
}

/** `true` when the entry at `position` is the one its id names (not an earlier duplicate). */
export const isCurrent = (state: MutableState, position: number): boolean =>
  state.duplicateIds.size === 0 || state.positions.get(state.entries[position]!.id) === position
