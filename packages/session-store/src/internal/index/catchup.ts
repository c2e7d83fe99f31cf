/**
 * Catching a summary up with rows appended after its watermark (by this process, by another, by
 * pi, which writes no index), without the rest of the file: each new row is folded into the
 * summary by the reducer's rules (spec §4) where the summary alone decides them, and anything it
 * cannot decide exactly gives `undefined`, and the caller rebuilds the index from the file:
 * a side append, a parent-linked opaque row, a parent or leaf-control target off the active
 * path (or before its last compaction), an id the session may already hold (the id set answers
 * "maybe"), a compaction keeping an entry that may lie before the indexed path, a torn or
 * oversized line.
 */
import { Entry, Line } from "@branchlog/session-core"
import type { CorruptReport } from "../../TranscriptStore.js"
import { kindOf, Tables } from "./build.js"
import type { RowRef, Summary } from "./format.js"
import { KIND_MODEL, KIND_THINKING } from "./format.js"

/** A summary caught up, with the new rows' records and ids (for a rewrite of the index). */
/** Where a row was read: what a catch-up needs of a line beside its parsed row. */
export interface LineSpan {
  readonly line: number
  readonly offset: number
  readonly byteLength: number
  /** `false` for a last line without its `\n` (a torn tail: the catch-up gives up). */
  readonly terminated: boolean
  /** Set for a line over the line ceiling (the catch-up gives up). */
  readonly oversized?: unknown
}

export interface CaughtUp {
  readonly summary: Omit<Summary, "watermark">
  readonly tables: Tables
}

/** The settings rows before `start` in `rows`: the last thinking-level row and the last model row, in order. */
const settingsBefore = (rows: ReadonlyArray<RowRef>): Array<RowRef> => {
  let thinking: RowRef | undefined
  let model: RowRef | undefined
  for (let i = rows.length - 1; i >= 0 && (thinking === undefined || model === undefined); i--) {
    const r = rows[i]!
    if (r.kind === KIND_THINKING && thinking === undefined) thinking = r
    else if (r.kind === KIND_MODEL && model === undefined) model = r
  }
  return rows.filter((r) => r === thinking || r === model)
}

/**
 * Folds `lines` (parsed as `parsed`) into `summary`; `mayHaveId` answers whether the session as
 * indexed may hold an id (or name it as a parent): `false` must be certain.
 */
export const catchUp = (
  summary: Summary,
  lines: ReadonlyArray<LineSpan>,
  parsed: ReadonlyArray<Line.ParsedLine>,
  mayHaveId: (id: string) => boolean
): CaughtUp | undefined => {
  if (!summary.bounded) return undefined
  let leaf = summary.leafId
  let segment = [...summary.segment]
  let compactionAt = summary.compactionAt
  let before = [...summary.before]
  const labels = new Map(summary.labels.map(([t, l, ts]) => [t, [l, ts] as const]))
  let sessionInfo = summary.sessionInfo
  let tailId = summary.tailId
  let hasAssistant = summary.hasAssistant
  const corrupt: Array<CorruptReport> = [...summary.corrupt]
  const compactions = [...summary.compactions]
  let lineCount = summary.lineCount
  const tables = new Tables(Math.max(16, lines.length), Math.max(32, lines.length * 2))
  const batchIds = new Set<string>()
  // leaf controls of this batch: id -> the leaf it set
  const controls = new Map<string, string | null>()
  const fresh = (id: string) => !batchIds.has(id) && !controls.has(id) && !mayHaveId(id)
  const indexOf = (id: string): number => {
    for (let i = segment.length - 1; i >= 0; i--) if (segment[i]!.id === id) return i
    return -1
  }
  /** Cuts the path after the entry at `i` (-1: before the first); `false` when that leaves the indexed part. */
  const cutAfter = (i: number): boolean => {
    if (i === -1) {
      segment = []
      compactionAt = -1
      before = []
      return true
    }
    if (compactionAt !== -1 && i < compactionAt) return false
    if (i < segment.length - 1) segment.length = i + 1
    return true
  }
  /** Moves to the canonical entry `id` names (a control of this batch resolved), or fails. */
  const moveTo = (id: string | null): boolean => {
    if (id === null) return cutAfter(-1)
    const i = indexOf(id)
    return i !== -1 && cutAfter(i)
  }
  for (let n = 0; n < lines.length; n++) {
    const l = lines[n]!
    const p = parsed[n]!
    if (!l.terminated || l.oversized !== undefined) return undefined
    lineCount = l.line
    const id = Line.rowId(p)
    switch (p._tag) {
      case "Blank":
      case "Header":
        break
      case "Corrupt":
        corrupt.push({ line: l.line, offset: l.offset, reason: p.reason })
        break
      case "Opaque": {
        const value = p.value as { readonly id?: unknown; readonly parentId?: unknown }
        if (typeof value.id === "string" && value.id.trim() !== "" && Object.hasOwn(value, "parentId")) {
          return undefined
        }
        break
      }
      case "LeafControl": {
        const c = p.control
        if (!fresh(c.id)) return undefined
        if (c.appendParentId !== undefined && c.appendParentId !== c.targetId) return undefined
        const target = c.targetId !== null && controls.has(c.targetId) ? controls.get(c.targetId)! : c.targetId
        if (!moveTo(target)) return undefined
        leaf = target
        controls.set(c.id, target)
        break
      }
      case "Entry": {
        const e = p.entry
        if (e.appendMode === "side" || !fresh(e.id)) return undefined
        let parent: string | null
        if (!Object.hasOwn(e, "parentId")) parent = leaf
        else {
          const written = (e as { readonly parentId?: string | null }).parentId
          parent = written === null || written === undefined || written === "" || written === e.id
            ? null
            : controls.has(written)
            ? controls.get(written)!
            : written
        }
        if (!moveTo(parent)) return undefined
        batchIds.add(e.id)
        const ref: RowRef = { line: l.line, offset: l.offset, length: l.byteLength, id: e.id, kind: kindOf(e) }
        segment.push(ref)
        leaf = e.id
        if (e.type === "compaction") {
          if (!compacted(e)) return undefined
          compactions.push([l.line - 1, e.firstKeptEntryId ?? null])
        } else if (e.type === "label") {
          if (e.label) labels.set(e.targetId, [e.label, e.timestamp])
          else labels.delete(e.targetId)
        } else if (e.type === "session_info") sessionInfo = ref
        if (!hasAssistant && Entry.isAssistantMessage(e)) hasAssistant = true
        break
      }
    }
    if (id !== undefined) tailId = id
    tables.row(l.offset, l.byteLength, p)
  }
  /** Re-roots the segment at a compaction just pushed; `false` when its kept entry may lie before the segment. */
  function compacted(e: Entry.CompactionEntry): boolean {
    const c = segment.length - 1
    const kept = e.firstKeptEntryId
    let start = c
    if (typeof kept === "string" && kept !== e.id) {
      const k = indexOf(kept)
      if (k !== -1 && k < c) start = k
      else if (!fresh(kept)) return false
    }
    before = settingsBefore([...before, ...segment.slice(0, start)])
    segment = segment.slice(start)
    compactionAt = c - start
    return true
  }
  return {
    summary: {
      lineCount,
      bounded: true,
      header: summary.header,
      leafId: leaf,
      appendParentId: leaf,
      tailId,
      hasAssistant,
      segment,
      compactionAt,
      before,
      labels: [...labels].map(([t, [l, ts]]) => [t, l, ts] as const),
      sessionInfo,
      corrupt,
      compactions
    },
    tables
  }
}
