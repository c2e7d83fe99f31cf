/**
 * The entries of a session kept as compact tables, for a diagnosis made row by row: each id is
 * interned once (its characters in a byte arena, found through an open-addressing hash table of
 * int32 slots), and an entry is a row of typed arrays (id index, written parent as an id index,
 * type as a byte, line, offset). Entries whose type's checks read more than id, parent and type
 * (labels, context edits, compactions, session names, an append mode) keep their reduced object
 * beside the table. About 50 bytes per entry, where an object per entry and a `Map` of ids cost
 * three times that.
 *
 * The table holds only a "plain" session: every entry written with a parent that came before it
 * (or `null`, `""`, its own id, or an id that never comes: an orphan), no duplicate id, no side
 * append, no leaf control and no parent-linked opaque row. There an entry's logical parent is its
 * written one, and no cycle can form. {@link CompactTable.push} answers `false` for the first row
 * that leaves that shape: the caller then rebuilds the full state with {@link CompactTable.replay}
 * and goes on with the reducer.
 */
import type { Entry, SessionHeader } from "../Entry.js"
import type { HeaderLine, ParsedLine } from "../Line.js"
import { isNonBlank } from "./classify.js"
import { NumberColumn } from "./column.js"
import { canonicalEntryTypes } from "./entryTypes.js"
import type { OtherRow } from "./state.js"

/** A parent that is `null`. */
const NULL_PARENT = -1
/** A parent that is `""`. */
const EMPTY_PARENT = -2
/** A parent that is the entry's own id. */
const SELF_PARENT = -3

/** The types whose entries keep their reduced object (what `reduced.ts` keeps more of). */
const special = new Set<string>(["label", "context_edit", "compaction", "session_info"])
const typeIndex = new Map<string, number>(canonicalEntryTypes.map((type, i) => [type, i]))

/** A growable typed array (int32s or bytes), doubled when full. */
class Growable<A extends Int32Array | Uint8Array> {
  length = 0
  constructor(public data: A, private readonly make: (size: number) => A) {}
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = this.make(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
    }
    this.data[this.length++] = value
  }
}

/** A growable array of int32. */
const int32s = () => new Growable(new Int32Array(1024), (size) => new Int32Array(size))

/** A growable array of bytes. */
const bytes = () => new Growable(new Uint8Array(1024), (size) => new Uint8Array(size))

const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** Strings interned as small integers, their characters in one arena. */
class IdTable {
  /** `starts[k]..starts[k + 1]`: the bytes of id `k` in `arena` (ASCII ids). */
  private readonly starts = int32s()
  private readonly arena = bytes()
  /** Ids with a character beyond ASCII, whole. */
  private readonly wide = new Map<number, string>()
  /** Open addressing: id index + 1, 0 for an empty slot. */
  private slots = new Int32Array(1 << 12)
  /** Position of the entry an id names, -1 while none. */
  readonly positions = int32s()

  get size(): number {
    return this.positions.length
  }

  /** The index of `id`, or -1. */
  find(id: string): number {
    const mask = this.slots.length - 1
    for (let slot = hash(id) & mask;; slot = (slot + 1) & mask) {
      const k = this.slots[slot]! - 1
      if (k === -1) return -1
      if (this.equals(k, id)) return k
    }
  }

  /** The index of `id`, interned if new. */
  intern(id: string): number {
    const found = this.find(id)
    if (found !== -1) return found
    const k = this.positions.length
    this.positions.push(-1)
    this.starts.push(this.arena.length)
    let ascii = true
    for (let i = 0; i < id.length; i++) if (id.charCodeAt(i) > 0x7f) ascii = false
    if (ascii) { for (let i = 0; i < id.length; i++) this.arena.push(id.charCodeAt(i)) }
    else this.wide.set(k, id)
    if ((k + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2)
    else this.place(k, hash(id))
    return k
  }

  /** The string of id `k`. */
  text(k: number): string {
    const wide = this.wide.get(k)
    if (wide !== undefined) return wide
    const start = this.starts.data[k]!
    const end = k + 1 < this.starts.length ? this.starts.data[k + 1]! : this.arena.length
    // in pieces: an id of any length (a damaged file's) stays within the arguments a call takes
    let out = ""
    for (let from = start; from < end; from += 4096) {
      out += String.fromCharCode(...this.arena.data.subarray(from, Math.min(end, from + 4096)))
    }
    return out
  }

  private equals(k: number, id: string): boolean {
    if (this.wide.size > 0 && this.wide.has(k)) return this.wide.get(k) === id
    const start = this.starts.data[k]!
    const end = k + 1 < this.starts.length ? this.starts.data[k + 1]! : this.arena.length
    if (end - start !== id.length) return false
    const bytes = this.arena.data
    for (let i = 0; i < id.length; i++) if (bytes[start + i] !== id.charCodeAt(i)) return false
    return true
  }

  private place(k: number, h: number): void {
    const mask = this.slots.length - 1
    let slot = h & mask
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask
    this.slots[slot] = k + 1
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size)
    for (let k = 0; k < this.positions.length; k++) this.place(k, hash(this.text(k)))
  }
}

/** Where a finding applies. */
export interface At {
  readonly line: number
  readonly offset: number
}

/** The entries of a plain session in typed arrays, and its other rows (see the module's note). */
export class CompactTable {
  private readonly ids = new IdTable()
  private readonly entryIds = int32s()
  private readonly parents = int32s()
  /** Index in `canonicalEntryTypes`, 255 for an entry kept in `specials`. */
  private readonly types = bytes()
  private readonly lines = new NumberColumn()
  private readonly offsets = new NumberColumn()
  private readonly specials = new Map<number, Entry>()
  /** Every row that is not an entry, reduced, with the number of entries before it. */
  readonly others: Array<OtherRow> = []
  header: SessionHeader | undefined = undefined
  headerLine: HeaderLine | undefined = undefined

  /** How many entries. */
  get count(): number {
    return this.entryIds.length
  }

  /**
   * Adds the next line, reduced (see `reduced.ts`: an entry with only its fields that checks
   * read). `false`, adding nothing, when the line leaves a plain session.
   */
  push(line: ParsedLine): boolean {
    switch (line._tag) {
      case "Blank":
        return true
      case "LeafControl":
        return false
      case "Opaque": {
        const value = line.value
        if (
          isNonBlank(value.id) && Object.hasOwn(value, "parentId") &&
          (value.parentId === null || typeof value.parentId === "string")
        ) return false
        break
      }
      case "Header":
        if (this.header === undefined) {
          this.header = line.header
          this.headerLine = line
        }
        break
      case "Entry":
        return this.pushEntry(line.entry, line.line, line.offset)
    }
    this.others.push({ row: line, before: this.count })
    return true
  }

  private pushEntry(entry: Entry, line: number, offset: number): boolean {
    const from = entry as unknown as Readonly<Record<string, unknown>>
    if (!Object.hasOwn(from, "parentId") || from.appendMode === "side") return false
    const parentId = from.parentId
    if (parentId !== null && typeof parentId !== "string") return false
    const id = entry.id
    const parent = parentId === null
      ? NULL_PARENT
      : parentId === ""
      ? EMPTY_PARENT
      : parentId === id
      ? SELF_PARENT
      : this.ids.intern(parentId)
    // an id seen before: a duplicate, or a parent named before its entry (a forward reference)
    if (this.ids.find(id) !== -1) return false
    const k = this.ids.intern(id)
    const position = this.count
    this.ids.positions.data[k] = position
    this.entryIds.push(k)
    this.parents.push(parent)
    const type = typeIndex.get(entry.type)
    if (type === undefined || special.has(entry.type) || Object.hasOwn(from, "appendMode")) {
      this.types.push(255)
      this.specials.set(position, entry)
    } else this.types.push(type)
    this.lines.push(line)
    this.offsets.push(offset)
    return true
  }

  /** Line and offset of the entry at `i`. */
  at(i: number): At {
    return { line: this.lines.get(i), offset: this.offsets.get(i) }
  }

  /** `true` when an entry has this id. */
  has(id: unknown): boolean {
    if (typeof id !== "string") return false
    const k = this.ids.find(id)
    return k !== -1 && this.ids.positions.data[k] !== -1
  }

  /** The id of the entry at `i`. */
  id(i: number): string {
    return this.ids.text(this.entryIds.data[i]!)
  }

  /** The written parent of the entry at `i` when it names an entry that never came, else `undefined`. */
  orphanParent(i: number): string | undefined {
    const p = this.parents.data[i]!
    return p >= 0 && this.ids.positions.data[p] === -1 ? this.ids.text(p) : undefined
  }

  /** The reduced entry at `i` when its type's checks read more than id and parent. */
  special(i: number): Entry | undefined {
    return this.types.data[i] === 255 ? this.specials.get(i) : undefined
  }

  /** `true` when the entry of id `kept` is an ancestor of the entry at `i` (parents come first here). */
  isAbove(i: number, kept: unknown): boolean {
    if (typeof kept !== "string") return false
    const k = this.ids.find(kept)
    const target = k === -1 ? -1 : this.ids.positions.data[k]!
    if (target === -1) return false
    for (let j = this.parentPosition(i); j >= target; j = this.parentPosition(j)) if (j === target) return true
    return false
  }

  private parentPosition(i: number): number {
    const p = this.parents.data[i]!
    return p < 0 ? -1 : this.ids.positions.data[p]!
  }

  /** Every row in file order, entries rebuilt as their reduced objects (sharing one string per id). */
  replay(apply: (line: ParsedLine) => void): void {
    const strings = new Array<string | undefined>(this.ids.size)
    const text = (k: number): string => (strings[k] ??= this.ids.text(k))
    let next = 0
    const entriesUpTo = (count: number) => {
      for (; next < count; next++) {
        const special = this.special(next)
        const k = this.entryIds.data[next]!
        const p = this.parents.data[next]!
        const entry = special ?? ({
          type: canonicalEntryTypes[this.types.data[next]!],
          id: text(k),
          parentId: p === NULL_PARENT ? null : p === EMPTY_PARENT ? "" : p === SELF_PARENT ? text(k) : text(p)
        } as unknown as Entry)
        apply({ _tag: "Entry", entry, line: this.lines.get(next), offset: this.offsets.get(next) })
      }
    }
    for (const { before, row } of this.others) {
      entriesUpTo(before)
      apply(row)
    }
    entriesUpTo(this.count)
  }
}
