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
import { ROW_WORDS, search, sortPairs, words } from "./sorted.js"

/** The most rows the replay reads by offset before it gives up (the file is then read whole). */
export const MAX_READS = 50_000

/** Rows read at once for their times (the children of branch points). */
const TIME_BATCH = 2048

/** An id, compared exactly: a row table hash, or a string. */
export type Key = number | string

/**
 * Reads rows (by row number) and parses them; `undefined` for a row that is not a whole line where
 * the table says. `keep: false`: the caller keeps nothing of them (the reader need not either).
 */
export type ReadRows = (
  rows: ReadonlyArray<number>,
  keep?: boolean
) => Map<number, Line.ParsedLine | undefined> | undefined

/** The replayed tree: logical parents, children in `getTree`'s order, labels, the leaf and its path. */
export interface OutlineTree {
  readonly rowCount: number
  /** Entry rows that are roots, in file order. */
  readonly roots: ReadonlyArray<number>
  /** The logical parent of an entry row (-1: a root). */
  readonly parent: (row: number) => number
  /** The children of an entry row, in `getTree`'s order. */
  readonly children: (row: number) => ReadonlyArray<number>
  /** How many children an entry row has. */
  readonly childCount: (row: number) => number
  /** The first child of an entry row in `getTree`'s order, or -1. */
  readonly firstChild: (row: number) => number
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
const UNSET = -2

/**
 * Replays the tree of an indexed session (a bounded summary: no duplicate ids, the header first)
 * from its row table `rows` and id set `ids` (sorted 52-bit hashes), reading what the table cannot
 * settle through `read`; `undefined` when it cannot be exact. Typed arrays throughout: one pass
 * over the rows per step, no object per row.
 */
export const replay = (
  summary: Format.Summary,
  rows: Uint8Array,
  ids: Float64Array,
  read: ReadRows
): OutlineTree | undefined => {
  const n = rows.length / Format.ROW_BYTES
  const w = words(rows)
  const ENTRY = Format.TAG.Entry
  const tagAt = (r: number) => w[r * ROW_WORDS + 5]! & 0xff
  // the top 32 bits of the id set's hashes (sorted, as the hashes are): those of more than one hash are ambiguous
  const ambiguous = new Set<number>()
  for (let i = 1, before = ids.length === 0 ? 0 : Format.top32(ids[0]!); i < ids.length; i++) {
    const top = Format.top32(ids[i]!)
    if (top === before) ambiguous.add(top)
    before = top
  }
  /** `true` when the id set holds a hash with these top 32 bits. */
  const heldTop = (h: number): boolean => {
    let lo = 0
    let hi = ids.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const v = Format.top32(ids[mid]!)
      if (v === h) return true
      if (v < h) lo = mid + 1
      else hi = mid - 1
    }
    return false
  }
  /** The key of an id string. */
  const keyOf = (s: string): Key => {
    const h52 = Format.hash52(s)
    const h = Format.top32(h52)
    if (ambiguous.has(h)) return s
    return Format.hasHash(ids, h52) ? h : `\u0000${s}`
  }
  // (ambiguous hashes are few: their low 16 bits in a bitmap spare most rows the set lookups)
  const maybe = new Uint8Array(65536)
  for (const h of ambiguous) maybe[h & 0xffff] = 1
  const isAmbiguous = (h: number) => maybe[h & 0xffff] === 1 && ambiguous.has(h)
  // the rows to read: those the table cannot settle; and the entry rows counted
  const toRead: Array<number> = []
  const isRead = new Uint8Array(n)
  let m = 0
  for (let r = 0; r < n; r++) {
    const meta = w[r * ROW_WORDS + 5]!
    const tag = meta & 0xff
    if (tag === ENTRY) {
      m++
      if (
        meta >>> 24 !== 1 || ((meta >>> 16) & 1) === 1 || isAmbiguous(w[r * ROW_WORDS + 3]!) ||
        isAmbiguous(w[r * ROW_WORDS + 4]!)
      ) toRead.push(r)
    } else if (tag === Format.TAG.LeafControl || tag === Format.TAG.Opaque) toRead.push(r)
    if (toRead.length > MAX_READS) return undefined
  }
  const header = summary.header === null ? undefined : read([summary.header.line - 1])?.get(summary.header.line - 1)
  if (header?._tag !== "Header" || header.header.version !== 3) return undefined
  const parsed = read(toRead)
  if (parsed === undefined) return undefined
  for (const r of toRead) {
    if (parsed.get(r) === undefined) return undefined
    isRead[r] = 1
  }
  const entryAt = (r: number): Entry.Entry | undefined => {
    const p = isRead[r] === 1 ? parsed.get(r) : undefined
    return p?._tag === "Entry" ? p.entry : undefined
  }
  // the entry row of each id (bounded summaries hold no duplicate ids): hashes sorted, strings in a map
  const readKey = new Map<number, Key>()
  const entryByString = new Map<string, number>()
  const hashKeys = new Uint32Array(m)
  const hashRows = new Int32Array(m)
  m = 0
  for (let r = 0; r < n; r++) {
    if (tagAt(r) !== ENTRY) continue
    let k: Key = w[r * ROW_WORDS + 3]!
    if (isRead[r] === 1) {
      const p = parsed.get(r)
      if (p?._tag !== "Entry" || Format.hash32(p.entry.id) !== k) return undefined
      k = keyOf(p.entry.id)
      readKey.set(r, k)
    }
    if (typeof k === "string") {
      if (entryByString.has(k)) return undefined
      entryByString.set(k, r)
    } else {
      hashKeys[m] = k
      hashRows[m++] = r
    }
  }
  // the children lists' arrays (filled later) serve the sort as its scratch: no fresh memory for it
  const first = new Int32Array(n)
  const next = new Int32Array(n)
  const byHash = sortPairs(hashKeys.subarray(0, m), hashRows.subarray(0, m), {
    keys: new Uint32Array(first.buffer, first.byteOffset, n),
    rows: next
  })
  // every entry's hash is held by the id set, once
  for (let i = 0, j = 0; i < m; i++) {
    const h = byHash.keys[i]!
    if (i > 0 && byHash.keys[i - 1] === h) return undefined
    while (j < ids.length && Format.top32(ids[j]!) < h) j++
    if (j === ids.length || Format.top32(ids[j]!) !== h) return undefined
  }
  const entryRow = (k: Key | null): number => {
    if (k === null) return NONE
    if (typeof k === "string") return entryByString.get(k) ?? NONE
    const i = search(byHash.keys, k)
    return i === NONE ? NONE : byHash.rows[i]!
  }
  const idKey = (r: number): Key => isRead[r] === 1 ? readKey.get(r)! : w[r * ROW_WORDS + 3]!
  // the reducer's replay: leaf, append parent, opaque parents (as of each row), logical parents
  // (UNSET until the final pass; the reducer's logical parents are set during the replay)
  const parent = new Int32Array(n).fill(UNSET)
  const opaque = new Map<Key, Key | null>()
  const invalid = new Set<Key>()
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
    if (tag === ENTRY) {
      let self: Key
      let written: Key | null | undefined
      let side = false
      if (isRead[r] === 0) {
        self = w[r * ROW_WORDS + 3]!
        written = w[r * ROW_WORDS + 4]!
      } else {
        const entry = entryAt(r)!
        self = readKey.get(r)!
        written = Object.hasOwn(entry, "parentId")
          ? strKey((entry as { readonly parentId?: string | null }).parentId)
          : undefined
        side = entry.appendMode === "side"
      }
      if (written === undefined || (!side && written === append && leaf !== append)) {
        parent[r] = leaf === null ? NONE : entryRow(leaf)
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
  const finalResolve = (k: Key): number => {
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
  // (most parents are the entry just before: compared by key, no lookup)
  let prevRow = NONE
  let prevKey: Key | null = null
  for (let r = 0; r < n; r++) {
    if (tagAt(r) !== ENTRY) continue
    const self = idKey(r)
    if (parent[r] === UNSET) {
      parent[r] = NONE
      let written: Key | null
      if (isRead[r] === 0) written = w[r * ROW_WORDS + 4]!
      else written = strKey((entryAt(r) as { readonly parentId?: string | null }).parentId)
      if (written !== null && written !== self) {
        const p = written === prevKey ? prevRow : finalResolve(written)
        // a written parent the id set does not hold: the index does not describe this file
        if (p === NONE && isRead[r] === 0 && !heldTop(written as number)) return undefined
        parent[r] = p === r ? NONE : p
      }
    }
    prevRow = r
    prevKey = self
  }
  // children lists in file order (linked from the last row up), then the roots
  first.fill(NONE)
  next.fill(NONE)
  const roots: Array<number> = []
  for (let r = n - 1; r >= 0; r--) {
    if (tagAt(r) !== ENTRY) continue
    const p = parent[r]!
    if (p === NONE) roots.push(r)
    else {
      next[r] = first[p]!
      first[p] = r
    }
  }
  roots.reverse()
  // branch points' children are ordered by time: their rows are read (their times kept), and their lists sorted once
  const multi: Array<number> = []
  const branchPoints: Array<number> = []
  for (let r = 0; r < n; r++) {
    if (first[r] === NONE || next[first[r]!] === NONE) continue
    branchPoints.push(r)
    for (let c = first[r]!; c !== NONE; c = next[c]!) if (isRead[c] === 0) multi.push(c)
  }
  if (multi.length > MAX_READS) return undefined
  // read in batches: only a batch's entries are alive at once (their times are all that is kept)
  const times = new Map<number, number>()
  for (let i = 0; i < multi.length; i += TIME_BATCH) {
    const got = read(multi.slice(i, i + TIME_BATCH), false)
    if (got === undefined) return undefined
    for (const [r, p] of got) {
      if (p?._tag !== "Entry" || keyOf(p.entry.id) !== w[r * ROW_WORDS + 3]) return undefined
      times.set(r, new Date(p.entry.timestamp).getTime())
    }
  }
  for (const b of branchPoints) {
    const list: Array<[number, number]> = []
    for (let c = first[b]!; c !== NONE; c = next[c]!) {
      list.push([c, isRead[c] === 1 ? new Date(entryAt(c)!.timestamp).getTime() : times.get(c)!])
    }
    list.sort((x, y) => x[1] - y[1])
    first[b] = list[0]![0]
    for (let i = 0; i < list.length; i++) next[list[i]![0]] = i + 1 < list.length ? list[i + 1]![0] : NONE
  }
  const labels = new Map<number, string>()
  for (const [target, label] of summary.labels) {
    const row = entryRow(keyOf(target))
    if (row !== NONE) labels.set(row, label)
  }
  const leafRow = summary.leafId === null ? NONE : entryRow(keyOf(summary.leafId))
  if (summary.leafId !== null && leafRow === NONE) return undefined
  const path = new Uint8Array(n)
  for (let r = leafRow; r !== NONE && path[r] === 0; r = parent[r]!) path[r] = 1
  return {
    rowCount: n,
    roots,
    parent: (row) => parent[row]!,
    children: (row) => {
      const out: Array<number> = []
      for (let c = first[row]!; c !== NONE; c = next[c]!) out.push(c)
      return out
    },
    childCount: (row) => {
      let c = 0
      for (let x = first[row]!; x !== NONE; x = next[x]!) c++
      return c
    },
    firstChild: (row) => first[row]!,
    label: (row) => labels.size === 0 ? undefined : labels.get(row),
    leaf: leafRow,
    onPath: (row) => path[row] === 1,
    rowOf: (id) => entryRow(keyOf(id))
  }
}
