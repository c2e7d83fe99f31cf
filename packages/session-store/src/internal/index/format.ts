/**
 * What a session's path index holds, whatever stores the session: the {@link Summary} of its
 * active path (leaf, path from the last compaction, settings before it, labels, name, corrupt
 * rows), the row table's record layout and entry-type codes, and the id set's hashes and filter.
 * The JSONL sidecar index (`<file>.index`, in `@branchlog/store-jsonl`) writes these to disk with
 * its own head and checksums; the row stores (`StoreRows`) keep them in memory. No I/O.
 */
import type { CorruptReport } from "../../TranscriptStore.js"

// the id set's hashes and filter are part of the summary: one namespace for its readers
export * from "./idset.js"

/** Bytes of one record of the row table. */
export const ROW_BYTES = 24

/**
 * The entry types by their code in the row table (code = position + 1; 255: another type). A
 * list of the format's own, not session-core's: an index written today must read the same when
 * session-core's list grows or moves, so a new type only ever goes at the end.
 */
export const ENTRY_TYPES: ReadonlyArray<string> = [
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "usage",
  "context_edit"
]

/** The code of each of {@link ENTRY_TYPES} in the row table. */
export const TYPE_CODES: ReadonlyMap<string, number> = new Map(ENTRY_TYPES.map((type, i) => [type, i + 1]))

/** A row the bounded open reads: its line number, byte offset and length (no newline), id and kind. */
export interface RowRef {
  readonly line: number
  readonly offset: number
  readonly length: number
  /** The row's id (`""` for the header). */
  readonly id: string
  /** {@link KIND_OTHER}, {@link KIND_THINKING}, {@link KIND_MODEL} or {@link KIND_COMPACTION}. */
  readonly kind: number
}

/** A row that changes nothing a bounded open tracks. */
export const KIND_OTHER = 0
/** A `thinking_level_change`: sets the context's thinking level. */
export const KIND_THINKING = 1
/** A `model_change` or an assistant message: sets the context's model. */
export const KIND_MODEL = 2
/** A `compaction`. */
export const KIND_COMPACTION = 3

/** The file the index describes, as of the end it covers (a `FileSnapshot.Snapshot` plus the head's hash). */
export interface Watermark {
  /** Bytes covered: every line before this offset is indexed. */
  readonly size: number
  readonly dev: string
  readonly ino: string
  readonly mtimeNs: string
  /** Hex sha256 of the bytes `[size - tailLength, size)`. */
  readonly tailHash: string
  readonly tailLength: number
  /** Hex sha256 of the bytes `[0, headLength)` (the header line lives there). */
  readonly headHash: string
  readonly headLength: number
}

/** What a bounded open needs, as of the watermark. */
export interface Summary {
  readonly watermark: Watermark
  /** Lines covered (blank lines included). */
  readonly lineCount: number
  /** `false`: this session is only answered by a full read (the reason says why). */
  readonly bounded: boolean
  readonly reason?: string
  readonly header: RowRef | null
  readonly leafId: string | null
  readonly appendParentId: string | null
  readonly tailId: string | null
  readonly hasAssistant: boolean
  /** The active path from the last compaction's kept entry (or from the root) to the leaf. */
  readonly segment: ReadonlyArray<RowRef>
  /** Index in `segment` of the last compaction on the path; -1: none (the segment starts at the root). */
  readonly compactionAt: number
  /** The last thinking-level and model rows of the path before the segment (they settle the context's settings). */
  readonly before: ReadonlyArray<RowRef>
  /** Every resolved label: `[target id, label, timestamp]`. */
  readonly labels: ReadonlyArray<readonly [string, string, string]>
  /** The latest `session_info` row (any branch). */
  readonly sessionInfo: RowRef | null
  readonly corrupt: ReadonlyArray<CorruptReport>
  /** Each compaction of the file: `[row number (0-based line), firstKeptEntryId]`. */
  readonly compactions: ReadonlyArray<readonly [number, string | null]>
}

/** `true` for a well-formed {@link RowRef}. */
export const isRowRef = (u: unknown): u is RowRef => {
  const r = u as RowRef
  return typeof r === "object" && r !== null && Number.isSafeInteger(r.line) && Number.isSafeInteger(r.offset) &&
    Number.isSafeInteger(r.length) && r.length >= 0 && r.offset >= 0 && typeof r.id === "string" &&
    Number.isInteger(r.kind)
}

/** `true` for a well-formed {@link Summary}. */
export const isSummary = (u: unknown): u is Summary => {
  const s = u as Summary
  if (typeof s !== "object" || s === null || typeof s.watermark !== "object" || s.watermark === null) return false
  const w = s.watermark
  return Number.isSafeInteger(w.size) && typeof w.dev === "string" && typeof w.ino === "string" &&
    typeof w.mtimeNs === "string" && typeof w.tailHash === "string" && Number.isSafeInteger(w.tailLength) &&
    typeof w.headHash === "string" && Number.isSafeInteger(w.headLength) && Number.isSafeInteger(s.lineCount) &&
    typeof s.bounded === "boolean" && (s.header === null || isRowRef(s.header)) &&
    (s.leafId === null || typeof s.leafId === "string") &&
    (s.appendParentId === null || typeof s.appendParentId === "string") &&
    (s.tailId === null || typeof s.tailId === "string") && typeof s.hasAssistant === "boolean" &&
    Array.isArray(s.segment) && s.segment.every(isRowRef) && Number.isInteger(s.compactionAt) &&
    s.compactionAt >= -1 && s.compactionAt < Math.max(1, s.segment.length) &&
    Array.isArray(s.before) && s.before.every(isRowRef) && Array.isArray(s.labels) &&
    s.labels.every((l) => Array.isArray(l) && l.length === 3 && l.every((x) => typeof x === "string")) &&
    (s.sessionInfo === null || isRowRef(s.sessionInfo)) && Array.isArray(s.corrupt) && Array.isArray(s.compactions)
}

/** Row table tags (the parsed line's kind). */
export const TAG = { Blank: 0, Header: 1, Entry: 2, LeafControl: 3, Opaque: 4, Corrupt: 5 } as const
