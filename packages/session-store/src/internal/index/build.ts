/**
 * Building the sidecar index during the one streaming pass of a full load: a {@link Recorder}
 * sees every line (its offset, length and parse) and fills the row table and the id set; once
 * the fold is done, {@link summarize} takes the leaf, labels, name and the active path from the
 * folded state (the same queries a full open answers with), and checks that the bounded view it
 * describes answers exactly as the full state does, else marks the summary unbounded.
 */
import type { Line } from "@branchlog/session-core"
import { Entry, SessionContext, SessionState, Tree } from "@branchlog/session-core"
import type { CorruptReport } from "../../TranscriptStore.js"
import type { RowRef, Summary, Watermark } from "./format.js"
import {
  hash52,
  KIND_COMPACTION,
  KIND_MODEL,
  KIND_OTHER,
  KIND_THINKING,
  ROW_BYTES,
  TAG,
  top32,
  TYPE_CODES
} from "./format.js"
import { assemble, contextOf, sameAnswers } from "./view.js"

/** The kind of an entry for the bounded open. */
export const kindOf = (entry: Entry.Entry): number =>
  entry.type === "thinking_level_change"
    ? KIND_THINKING
    : entry.type === "model_change" || (entry.type === "message" && Entry.isAssistantMessage(entry))
    ? KIND_MODEL
    : entry.type === "compaction"
    ? KIND_COMPACTION
    : KIND_OTHER

/** A growable row table and id set. */
export class Tables {
  rows: Uint8Array
  view: DataView
  rowCount = 0
  ids: Float64Array
  idCount = 0
  compactions: Array<readonly [number, string | null]> = []
  /** The last id added (a row's parent is most often the row before it: added once). */
  private lastId: string | undefined = undefined
  private lastHash = 0
  constructor(rows = 1024, ids = 2048) {
    this.rows = new Uint8Array(rows * ROW_BYTES)
    this.view = new DataView(this.rows.buffer)
    this.ids = new Float64Array(ids)
  }
  /** Adds an id (or a written parent id) to the id set; returns its 52-bit hash. */
  id(id: string): number {
    if (id === this.lastId) return this.lastHash
    if (this.idCount === this.ids.length) {
      const next = new Float64Array(this.ids.length * 2)
      next.set(this.ids)
      this.ids = next
    }
    const h = hash52(id)
    this.ids[this.idCount++] = h
    this.lastId = id
    this.lastHash = h
    return h
  }
  /** Appends the record of one line. */
  row(offset: number, length: number, parsed: Line.ParsedLine): void {
    if ((this.rowCount + 1) * ROW_BYTES > this.rows.length) {
      const next = new Uint8Array(this.rows.length * 2)
      next.set(this.rows)
      this.rows = next
      this.view = new DataView(next.buffer)
    }
    const at = this.rowCount * ROW_BYTES
    const v = this.view
    let id: string | undefined
    let parent: string | null | undefined
    let type = 0
    let flags = 0
    switch (parsed._tag) {
      case "Entry": {
        const e = parsed.entry
        id = e.id
        parent = (e as { readonly parentId?: string | null }).parentId
        type = TYPE_CODES.get(e.type) ?? 255
        if (e.appendMode === "side") flags |= 1
        if (e.type === "compaction") this.compactions.push([this.rowCount, e.firstKeptEntryId ?? null])
        break
      }
      case "LeafControl":
        id = parsed.control.id
        parent = parsed.control.parentId
        break
      case "Opaque": {
        const value = parsed.value as { readonly id?: unknown; readonly parentId?: unknown }
        if (typeof value.id === "string") id = value.id
        if (typeof value.parentId === "string") parent = value.parentId
        break
      }
    }
    const parentHash = typeof parent === "string" ? top32(this.id(parent)) : 0
    const idHash = id === undefined ? 0 : top32(this.id(id))
    v.setFloat64(at, offset, true)
    v.setUint32(at + 8, length, true)
    v.setUint32(at + 12, idHash, true)
    v.setUint32(at + 16, parentHash, true)
    v.setUint8(at + 20, TAG[parsed._tag])
    v.setUint8(at + 21, type)
    v.setUint8(at + 22, flags)
    v.setUint8(at + 23, typeof parent === "string" ? 1 : 0)
    this.rowCount += 1
  }
  /** The offset of a line (1-based) from the table. */
  offsetOf(line: number): number {
    return this.view.getFloat64((line - 1) * ROW_BYTES, true)
  }
  /** The length of a line (1-based) from the table. */
  lengthOf(line: number): number {
    return this.view.getUint32((line - 1) * ROW_BYTES + 8, true)
  }
  /** The row table's bytes. */
  rowBytes(): Uint8Array {
    return this.rows.subarray(0, this.rowCount * ROW_BYTES)
  }
  /** The id set, sorted, without repeats. */
  idSet(): Float64Array {
    const sorted = this.ids.subarray(0, this.idCount).sort()
    let n = 0
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!
    return sorted.slice(0, n)
  }
}

/** What a summary is made from: a full fold and its tables. */
export interface Built {
  readonly state: SessionState.SessionState
  readonly tables: Tables
  readonly watermark: Watermark
  readonly lineCount: number
  readonly tailId: string | null
  readonly hasAssistant: boolean
  readonly corrupt: ReadonlyArray<CorruptReport>
}

const refOf = (tables: Tables, line: number, id: string, kind: number): RowRef => ({
  line,
  offset: tables.offsetOf(line),
  length: tables.lengthOf(line),
  id,
  kind
})

/** The summary of a full fold (unbounded, with a reason, where the bounded view would not answer exactly). */
export const summarize = (built: Built): Summary => {
  const { state, tables } = built
  const base = {
    watermark: built.watermark,
    lineCount: built.lineCount,
    leafId: state.leafId,
    appendParentId: state.appendParentId,
    tailId: built.tailId,
    hasAssistant: built.hasAssistant,
    corrupt: built.corrupt,
    compactions: tables.compactions
  }
  const unbounded = (reason: string): Summary => ({
    ...base,
    bounded: false,
    reason,
    header: null,
    segment: [],
    compactionAt: -1,
    before: [],
    labels: [],
    sessionInfo: null
  })
  const headerLine = state.headerLine
  if (headerLine === undefined || !SessionState.headerIsFirst(state)) return unbounded("no header first")
  if (state.duplicateIds.size > 0) return unbounded("duplicate ids")
  if (state.leafId !== state.appendParentId) return unbounded("side appends")
  const path = Tree.getBranch(state)
  let c = -1
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.type === "compaction") {
      c = i
      break
    }
  }
  let start = 0
  if (c !== -1) {
    start = c
    const kept = SessionContext.firstKeptEntryId(state, path[c] as Entry.CompactionEntry)
    for (let i = 0; i < c; i++) {
      if (path[i]!.id === kept) {
        start = i
        break
      }
    }
  }
  const ref = (entry: Entry.Entry): RowRef | undefined => {
    const position = SessionState.positionOf(state, entry.id)
    return position === undefined ? undefined : refOf(tables, position.line, entry.id, kindOf(entry))
  }
  const before: Array<RowRef> = []
  let thinking = false
  let model = false
  for (let i = start - 1; i >= 0 && !(thinking && model); i--) {
    const kind = kindOf(path[i]!)
    if ((kind === KIND_THINKING && !thinking) || (kind === KIND_MODEL && !model)) {
      if (kind === KIND_THINKING) thinking = true
      else model = true
      before.unshift(ref(path[i]!)!)
    }
  }
  const segment: Array<RowRef> = []
  for (let i = start; i < path.length; i++) segment.push(ref(path[i]!)!)
  const info = state.latestSessionInfo
  const summary: Summary = {
    ...base,
    bounded: true,
    header: refOf(tables, headerLine.line, "", KIND_OTHER),
    segment,
    compactionAt: c === -1 ? -1 : c - start,
    before,
    labels: [...state.labels].map(([target, l]) => [target, l.label, l.timestamp] as const),
    sessionInfo: info === undefined ? null : ref(info) ?? null
  }
  if (summary.sessionInfo === null && info !== undefined) return unbounded("session name not found")
  // the bounded view, checked against the full state it was taken from
  const view = assemble(summary, {
    header: headerLine,
    before: before.map((r) => entryAt(state, r)),
    segment: segment.map((r) => ({ entry: entryAt(state, r), line: r.line, offset: r.offset })),
    sessionInfo: info
  })
  // the full context from the path already walked (`buildSessionContext` would walk it again)
  const fullContext = state.leafId !== null && state.byId.has(state.leafId)
    ? SessionContext.fromPath(state, path)
    : SessionContext.buildSessionContext(state)
  if (!sameAnswers(state, fullContext, view.state, contextOf(view))) {
    return unbounded("the bounded view differs")
  }
  return summary
}

const entryAt = (state: SessionState.SessionState, r: RowRef): Entry.Entry => state.byId.get(r.id)!
