/**
 * The tree of a session from its sidecar index (`SessionOutline`): the row table's id hashes,
 * parent hashes, tags and types, with the few rows the table cannot settle read by offset. The
 * parents are those of a full fold (`Tree.parentOf`): the reducer's leaf and append parent are
 * replayed over the table in file order, and every row it cannot decide from its record is read
 * (a leaf control, an opaque row, a root or an entry without a written parent, a side append, an
 * entry whose parent may be the append parent of a diverged leaf, and every row whose id or
 * parent hash is ambiguous).
 *
 * Ids are compared by key: a row table hash (32 bits) where the id set holds one 52-bit hash with
 * those top bits (every id and written parent id with that hash is then the same string, unless
 * two ids collide on all 52 bits), else the id's string, read from the row. A string that is no
 * id or written parent of the session (a leaf control's target) gets a key of its own unless its
 * 52-bit hash is in the set. Anything this cannot replay exactly (an id on two opaque rows or
 * controls, an opaque id that is an entry's too, more rows to read than {@link MAX_READS}, a row
 * that is not where the table says) gives `undefined`, and the caller reads the file whole.
 */
import type { Entry, Line } from "@branchlog/session-core"
import * as Format from "./format.js"

/** The most rows the replay reads by offset before it gives up (the file is then read whole). */
export const MAX_READS = 50_000

/** An id, compared exactly: a row table hash, or a string. */
export type Key = number | string

/** Reads rows (by row number) and parses them; `undefined` for a row that is not a whole line where the table says. */
export type ReadRows = (rows: ReadonlyArray<number>) => Map<number, Line.ParsedLine | undefined> | undefined

/** The replayed tree: logical parents, children in `getTree`'s order, labels, the leaf and its path. */
export interface OutlineTree {
  readonly rowCount: number
  /** Entry rows that are roots, in file order. */
  readonly roots: ReadonlyArray<number>
  /** The logical parent of an entry row (-1: a root). */
  readonly parent: (row: number) => number
  /** The children of an entry row, in `getTree`'s order. */
  readonly children: (row: number) => ReadonlyArray<number>
  /** The label of an entry row. */
  readonly label: (row: number) => string | undefined
  /** The leaf's row, or -1. */
  readonly leaf: number
  /** `true` for a row on the path from the root to the leaf. */
  readonly onPath: (row: number) => boolean
  /** The row of an entry id, or -1. */
  readonly rowOf: (id: string) => number
}

const NONE = -1

/** A map from 32-bit keys to rows (open addressing). */
class RowsByHash {
  private readonly keys: Uint32Array
  private readonly rows: Int32Array
  private readonly mask: number
  constructor(count: number) {
    let size = 16
    while (size < count * 2) size *= 2
    this.keys = new Uint32Array(size)
    this.rows = new Int32Array(size).fill(NONE)
    this.mask = size - 1
  }
  set(h: number, row: number): void {
    let i = (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask
    while (this.rows[i] !== NONE && this.keys[i] !== h) i = (i + 1) & this.mask
    this.keys[i] = h
    this.rows[i] = row
  }
  get(h: number): number {
    let i = (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask
    while (this.rows[i] !== NONE) {
      if (this.keys[i] === h) return this.rows[i]!
      i = (i + 1) & this.mask
    }
    return NONE
  }
}

/**
 * Replays the tree of an indexed session (a bounded summary: no duplicate ids, the header first)
 * from its row table `rows` and id set `ids` (sorted 52-bit hashes), reading what the table cannot
 * settle through `read`; `undefined` when it cannot be exact.
 */
export const replay = (
  summary: Format.Summary,
  rows: Uint8Array,
  ids: Float64Array,
  read: ReadRows
): OutlineTree | undefined => {
  const n = rows.length / Format.ROW_BYTES
  const view = new DataView(rows.buffer, rows.byteOffset, rows.byteLength)
  const tagAt = (r: number) => view.getUint8(r * Format.ROW_BYTES + 20)
  const idHashAt = (r: number) => view.getUint32(r * Format.ROW_BYTES + 12, true)
  const parentHashAt = (r: number) => view.getUint32(r * Format.ROW_BYTES + 16, true)
  const sideAt = (r: number) => (view.getUint8(r * Format.ROW_BYTES + 22) & 1) === 1
  const hasParentAt = (r: number) => view.getUint8(r * Format.ROW_BYTES + 23) === 1
  // top-32 values the id set holds more than one 52-bit hash of, and every top-32 value it holds
  const ambiguous = new Set<number>()
  const held = new RowsByHash(ids.length)
  for (let i = 0; i < ids.length; i++) {
    const top = Format.top32(ids[i]!)
    if (i > 0 && Format.top32(ids[i - 1]!) === top) ambiguous.add(top)
    held.set(top, 0)
  }
  const isHeld = (h: number) => held.get(h) !== NONE
  /** The key of an id string. */
  const keyOf = (s: string): Key => {
    const h52 = Format.hash52(s)
    const h = Format.top32(h52)
    if (ambiguous.has(h)) return s
    return Format.hasHash(ids, h52) ? h : `\u0000${s}`
  }
  // the rows to read: those the table cannot settle
  const toRead: Array<number> = []
  for (let r = 0; r < n; r++) {
    const tag = tagAt(r)
    if (tag === Format.TAG.Entry) {
      if (!hasParentAt(r) || sideAt(r)) toRead.push(r)
      else if (ambiguous.has(idHashAt(r)) || ambiguous.has(parentHashAt(r))) toRead.push(r)
      else if (!isHeld(idHashAt(r)) || !isHeld(parentHashAt(r))) return undefined
    } else if (tag === Format.TAG.LeafControl || tag === Format.TAG.Opaque) toRead.push(r)
    if (toRead.length > MAX_READS) return undefined
  }
  const header = summary.header === null ? undefined : read([summary.header.line - 1])?.get(summary.header.line - 1)
  if (header?._tag !== "Header" || header.header.version !== 3) return undefined
  const parsed = read(toRead)
  if (parsed === undefined) return undefined
  for (const r of toRead) if (parsed.get(r) === undefined) return undefined
  const entryAt = (r: number): Entry.Entry | undefined => {
    const p = parsed.get(r)
    return p?._tag === "Entry" ? p.entry : undefined
  }
  // keys of each row's id and written parent (`null`: none written, or null)
  const idKey = (r: number): Key | undefined => {
    const p = parsed.get(r)
    if (p === undefined) return idHashAt(r)
    switch (p._tag) {
      case "Entry":
        return keyOf(p.entry.id)
      case "LeafControl":
        return keyOf(p.control.id)
      case "Opaque":
        return typeof p.value.id === "string" ? keyOf(p.value.id) : undefined
      default:
        return undefined
    }
  }
  // the entry row of each id (bounded summaries hold no duplicate ids)
  const entryByHash = new RowsByHash(n)
  const entryByString = new Map<string, number>()
  for (let r = 0; r < n; r++) {
    if (tagAt(r) !== Format.TAG.Entry) continue
    if (parsed.has(r)) {
      const p = parsed.get(r)
      if (p?._tag !== "Entry") return undefined
    }
    const k = idKey(r)!
    if (typeof k === "number") {
      if (entryByHash.get(k) !== NONE) return undefined
      entryByHash.set(k, r)
    } else {
      if (entryByString.has(k)) return undefined
      entryByString.set(k, r)
    }
  }
  const entryRow = (k: Key | null): number =>
    k === null ? NONE : typeof k === "number" ? entryByHash.get(k) : entryByString.get(k) ?? NONE
  // the reducer's replay: leaf, append parent, opaque parents (as of each row), logical parents
  const opaque = new Map<Key, Key | null>()
  const invalid = new Set<Key>()
  const logical = new Map<number, number>()
  let leaf: Key | null = null
  let append: Key | null = null
  const known = (k: Key, at: number): boolean => {
    const e = entryRow(k)
    return e !== NONE && e < at
  }
  const resolveAt = (k: Key | null, at: number): Key | null => {
    if (k === null || known(k, at)) return k
    let current = k
    const seen = new Set<Key>()
    while (!known(current, at)) {
      if (!opaque.has(current)) return null
      const next = opaque.get(current)!
      if (next === null) return null
      seen.add(current)
      if (seen.has(next)) return null
      current = next
    }
    return current
  }
  const strKey = (s: string | null | undefined): Key | null =>
    s === null || s === undefined || s === "" ? null : keyOf(s)
  for (let r = 0; r < n; r++) {
    const tag = tagAt(r)
    if (tag === Format.TAG.Entry) {
      const entry = entryAt(r)
      if (entry !== undefined && Format.hash32(entry.id) !== idHashAt(r)) return undefined
      const self = idKey(r)!
      let written: Key | null | undefined
      if (entry === undefined) written = parentHashAt(r)
      else if (!Object.hasOwn(entry, "parentId")) written = undefined
      else written = strKey((entry as { readonly parentId?: string | null }).parentId)
      const side = entry?.appendMode === "side"
      if (written === undefined || (!side && written === append && leaf !== append)) {
        logical.set(r, leaf === null ? NONE : entryRow(leaf))
      }
      append = self
      if (!side) leaf = self
    } else if (tag === Format.TAG.LeafControl) {
      const p = parsed.get(r)
      if (p?._tag !== "LeafControl") return undefined
      const c = p.control
      const self = keyOf(c.id)
      if (opaque.has(self) || entryRow(self) !== NONE) return undefined
      const target = strKey(c.targetId)
      const appendTo = c.appendParentId === undefined ? undefined : strKey(c.appendParentId)
      const knownToControl = (k: Key | null) => k === null || known(k, r) || (opaque.has(k) && !invalid.has(k))
      const appendParentOf = (k: Key | null) => k === null || known(k, r) || opaque.has(k) ? k : resolveAt(k, r)
      if (!knownToControl(target) || (appendTo !== undefined && !knownToControl(appendTo))) {
        invalid.add(self)
        opaque.set(self, appendParentOf(strKey(c.parentId)))
        continue
      }
      const to = target === null || known(target, r) ? target : resolveAt(target, r)
      opaque.set(self, to)
      leaf = to
      append = appendTo === undefined ? to : appendParentOf(appendTo)
    } else if (tag === Format.TAG.Opaque) {
      const p = parsed.get(r)
      if (p?._tag !== "Opaque") return undefined
      const v = p.value
      if (
        typeof v.id === "string" && v.id.trim() !== "" && Object.hasOwn(v, "parentId") &&
        (v.parentId === null || typeof v.parentId === "string")
      ) {
        const self = keyOf(v.id)
        if (opaque.has(self) || entryRow(self) !== NONE) return undefined
        opaque.set(self, strKey(v.parentId as string | null))
        append = self
      }
    }
  }
  // the logical parent of each entry row (-1: a root), as `Tree.parentOf` with the final state
  const parent = new Int32Array(n).fill(NONE)
  const finalResolve = (k: Key | null): number => {
    if (k === null) return NONE
    const direct = entryRow(k)
    if (direct !== NONE || opaque.size === 0) return direct
    let current: Key = k
    const seen = new Set<Key>()
    for (;;) {
      const e = entryRow(current)
      if (e !== NONE) return e
      if (!opaque.has(current)) return NONE
      const next = opaque.get(current)!
      if (next === null) return NONE
      seen.add(current)
      if (seen.has(next)) return NONE
      current = next
    }
  }
  for (let r = 0; r < n; r++) {
    if (tagAt(r) !== Format.TAG.Entry) continue
    const l = logical.get(r)
    if (l !== undefined) {
      parent[r] = l
      continue
    }
    const entry = entryAt(r)
    let written: Key | null
    if (entry === undefined) written = parentHashAt(r)
    else written = strKey((entry as { readonly parentId?: string | null }).parentId)
    const self = idKey(r)!
    if (written === null || written === self) continue
    const p = finalResolve(written)
    parent[r] = p === r ? NONE : p
  }
  // children lists in file order, then the roots
  const first = new Int32Array(n).fill(NONE)
  const last = new Int32Array(n).fill(NONE)
  const next = new Int32Array(n).fill(NONE)
  const roots: Array<number> = []
  for (let r = 0; r < n; r++) {
    if (tagAt(r) !== Format.TAG.Entry) continue
    const p = parent[r]!
    if (p === NONE) roots.push(r)
    else {
      if (last[p] === NONE) first[p] = r
      else next[last[p]!] = r
      last[p] = r
    }
  }
  // branch points' children are ordered by time: their rows are read
  const multi: Array<number> = []
  for (let r = 0; r < n; r++) {
    const f = first[r]!
    if (f !== NONE && next[f] !== NONE) { for (let c = f; c !== NONE; c = next[c]!) if (!parsed.has(c)) multi.push(c) }
  }
  if (multi.length > MAX_READS) return undefined
  const times = multi.length === 0 ? new Map() : read(multi)
  if (times === undefined) return undefined
  for (const [r, p] of times) {
    if (p?._tag !== "Entry" || keyOf(p.entry.id) !== idHashAt(r)) return undefined
    parsed.set(r, p)
  }
  const children = (row: number): ReadonlyArray<number> => {
    const f = first[row]!
    if (f === NONE) return []
    if (next[f] === NONE) return [f]
    const list: Array<[number, number]> = []
    for (let c = f; c !== NONE; c = next[c]!) list.push([c, new Date(entryAt(c)!.timestamp).getTime()])
    list.sort((a, b) => a[1] - b[1])
    return list.map(([c]) => c)
  }
  const labels = new Map<Key, string>()
  for (const [target, label] of summary.labels) labels.set(keyOf(target), label)
  const leafRow = summary.leafId === null ? NONE : entryRow(keyOf(summary.leafId))
  if (summary.leafId !== null && leafRow === NONE) return undefined
  const path = new Set<number>()
  for (let r = leafRow; r !== NONE && !path.has(r); r = parent[r]!) path.add(r)
  return {
    rowCount: n,
    roots,
    parent: (row) => parent[row]!,
    children,
    label: (row) => labels.size === 0 ? undefined : labels.get(idKey(row)!),
    leaf: leafRow,
    onPath: (row) => path.has(row),
    rowOf: (id) => entryRow(keyOf(id))
  }
}
