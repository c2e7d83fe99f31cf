/**
 * The bounded open for ROW backends (the SQL stores): the same summary the JSONL sidecar index
 * keeps (`index/format.ts`'s `Summary`: the leaf, labels, name, the active path from the last
 * compaction's kept entry and the settings rows before it), made by the same code from a full
 * fold (`summarize`, checked against the full state) and caught up by the same code with rows
 * appended since (`catchUp`), with rows addressed by sequence number (line = sequence, offset =
 * sequence - 1) instead of bytes, and a Bloom filter of every id and written parent id for
 * `mayHaveId`. A backend stores the encoded summary beside the session, reads the rows it names by
 * sequence, and gets the bounded state back; whatever cannot be trusted gives `undefined`.
 */
import type { Entry, Line } from "@branchlog/session-core"
import type { Loaded } from "../../TranscriptStore.js"
import { summarize, Tables } from "../index/build.js"
import type { LineSpan } from "../index/catchup.js"
import { catchUp } from "../index/catchup.js"
import type { RowRef, Summary } from "../index/format.js"
import { hash52, isSummary, probe } from "../index/format.js"
import type { View } from "../index/view.js"
import { assemble } from "../index/view.js"

/** The format version of an encoded summary (2: the filter of {@link probe}, {@link BITS_PER_ID} bits an id). */
export const VERSION = 2

/** A row backend's summary of one generation of a session, as of `summary.lineCount` rows. */
export interface Active {
  /** The session's key in its store (a summary of another session is never used). */
  readonly session: string
  readonly generation: number
  readonly summary: Summary
  /** A Bloom filter (this module's `probe`) of the hashes of every id and written parent id. */
  readonly filter: Uint32Array
  /** How many hashes were added to the filter (an upper bound of the ids it holds). */
  readonly idCount: number
}

// a row store has no bytes to watch: the summary's watermark is unused
const NO_WATERMARK = {
  size: 0,
  dev: "",
  ino: "",
  mtimeNs: "",
  tailHash: "",
  tailLength: 0,
  headHash: "",
  headLength: 0
}

/**
 * Bits of the id filter per id when it is built. A row store has no exact id set behind it (the
 * JSONL index checks a "maybe" there): a "maybe" for a new row's id makes the catch-up give up
 * (a full read), so the filter is denser than the index's: 32 bits and {@link PROBES} probes, about
 * 2 false "maybe"s in a million ids.
 */
const BITS_PER_ID = 32

/** Probes of the id filter per id. */
const PROBES = 10

/** The filter is rebuilt (a full read) once it holds more than one id per this many bits (about 1 in 10,000 then). */
const MIN_BITS_PER_ID = 20

/** The filter of a set of 52-bit hashes. */
const filterOf = (ids: Float64Array): Uint32Array => {
  const filter = new Uint32Array(Math.max(64, Math.ceil((ids.length * BITS_PER_ID) / 32)))
  for (let i = 0; i < ids.length; i++) probe(filter, ids[i]!, true, PROBES)
  return filter
}

/**
 * The summary of a full load of the rows stored now (not recovered nor migrated in memory): its
 * generation given. Unbounded (with a reason) where the bounded view would not answer exactly.
 */
export const build = (loaded: Loaded, session: string, generation: number): Active => {
  const rows = loaded.rows()
  const tables = new Tables(Math.max(16, rows.length), Math.max(32, rows.length * 2))
  for (const row of rows) tables.row(row.offset, 0, row)
  const ids = tables.idSet()
  const summary = summarize({
    state: loaded.state,
    tables,
    watermark: NO_WATERMARK,
    lineCount: rows.length,
    tailId: loaded.tailId,
    hasAssistant: loaded.hasAssistant,
    corrupt: loaded.report.corrupt
  })
  return { session, generation, summary, filter: filterOf(ids), idCount: ids.length }
}

/** `false` only for an id the summarized rows certainly neither hold nor name as a parent. */
export const mayHaveId = (active: Active) => (id: string): boolean => probe(active.filter, hash52(id), false, PROBES)

/**
 * `active` caught up with the rows stored after it (`rows`: parsed at their positions, in order;
 * `torn`: the last one ends without a newline), or `undefined` when the summary alone cannot
 * decide them exactly (the caller reads the whole session and builds the summary again).
 */
export const catchUpRows = (
  active: Active,
  rows: ReadonlyArray<Line.ParsedLine>,
  torn: boolean
): Active | undefined => {
  if (rows.length === 0) return torn ? undefined : active
  const lines = rows.map((row, i): LineSpan => ({
    line: row.line,
    offset: row.offset,
    byteLength: 0,
    terminated: !(torn && i === rows.length - 1)
  }))
  const caught = catchUp(active.summary, lines, rows, mayHaveId(active))
  if (caught === undefined) return undefined
  const idCount = active.idCount + caught.tables.idCount
  if (idCount * MIN_BITS_PER_ID > active.filter.length * 32) return undefined
  const filter = active.filter.slice()
  for (let i = 0; i < caught.tables.idCount; i++) probe(filter, caught.tables.ids[i]!, true, PROBES)
  return {
    session: active.session,
    generation: active.generation,
    summary: { ...caught.summary, watermark: NO_WATERMARK },
    filter,
    idCount
  }
}

/** The rows (sequence numbers, 1-based) a bounded open reads: the header, the settings rows, the path, the name. */
export const rowsToRead = (summary: Summary): Array<number> => {
  const refs: Array<RowRef> = [...summary.before, ...summary.segment]
  if (summary.header !== null) refs.unshift(summary.header)
  if (summary.sessionInfo !== null) refs.push(summary.sessionInfo)
  return refs.map((r) => r.line)
}

/**
 * The bounded view of a bounded summary from its rows (`rowAt`: the parsed row of a sequence
 * number read), or `undefined` when a row is missing or not the one the summary names.
 */
export const view = (summary: Summary, rowAt: (line: number) => Line.ParsedLine | undefined): View | undefined => {
  if (!summary.bounded || summary.header === null) return undefined
  const header = rowAt(summary.header.line)
  if (header?._tag !== "Header") return undefined
  const entryOf = (r: RowRef): Line.EntryLine | undefined => {
    const p = rowAt(r.line)
    return p?._tag === "Entry" && p.entry.id === r.id ? p : undefined
  }
  const before = summary.before.map(entryOf)
  const segment = summary.segment.map(entryOf)
  const info = summary.sessionInfo === null ? undefined : entryOf(summary.sessionInfo)
  if (
    before.includes(undefined) || segment.includes(undefined) ||
    (summary.sessionInfo !== null && info?.entry.type !== "session_info")
  ) return undefined
  return assemble(summary, {
    header,
    before: before.map((l) => l!.entry),
    segment: segment.map((l) => l!),
    sessionInfo: info?.entry as Entry.SessionInfoEntry | undefined
  })
}

/** The stored form of a summary: JSON text and the filter's bytes. */
export const encode = (active: Active): { readonly json: string; readonly filter: Uint8Array } => ({
  json: JSON.stringify({
    version: VERSION,
    session: active.session,
    generation: active.generation,
    idCount: active.idCount,
    ...active.summary
  }),
  filter: new Uint8Array(active.filter.buffer, active.filter.byteOffset, active.filter.byteLength)
})

/** A stored summary of `session` decoded, or `undefined` when it is damaged, another's or of another version. */
export const decode = (json: string, filter: Uint8Array, session: string): Active | undefined => {
  try {
    const value = JSON.parse(json) as
      & { version?: unknown; session?: unknown; generation?: unknown; idCount?: unknown }
      & Summary
    const bits = filter.byteLength * 8
    if (
      value.version !== VERSION || value.session !== session || !Number.isSafeInteger(value.generation) ||
      !Number.isSafeInteger(value.idCount) ||
      filter.byteLength % 4 !== 0 || bits < 64
    ) return undefined
    const { generation, idCount, session: _session, version: _version, ...summary } = value
    if (!isSummary(summary)) return undefined
    const words = new Uint32Array(filter.byteLength / 4)
    new Uint8Array(words.buffer).set(filter)
    return { session, generation: generation as number, idCount: idCount as number, summary, filter: words }
  } catch {
    return undefined
  }
}
