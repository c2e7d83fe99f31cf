/**
 * What a ROW backend of `TranscriptStore` (rows of text in a table or a map: `MemoryStore`, the
 * SQL stores) does with its rows, and needs no file for (the JSONL store shares the folding,
 * recovery and search helpers): parsing stored texts at row positions
 * (line = sequence number, offset = index), a cursor that is a generation and a row count,
 * folding rows into a `Loaded`, what changed since a cursor, header recovery and migration of
 * rows written by another tool, and a listing's summary. No I/O: a backend keeps the rows, these
 * functions turn them into what the interface hands out.
 *
 * @since 0.1.0
 */
import type { SessionState } from "@branchlog/session-core"
import { Line } from "@branchlog/session-core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Active from "./internal/store/active.js"
import {
  fold as foldRows,
  isCurrent as isCurrentRows,
  recover as recoverRows,
  withBlanks as withBlanksRows
} from "./internal/store/rows.js"
import * as Search from "./internal/store/search.js"
import { infoReader } from "./SessionListing.js"
import type * as SessionRef from "./SessionRef.js"
import type {
  ActiveLoaded,
  Changes,
  Cursor,
  Loaded,
  LoadReport,
  Position,
  SessionSummary,
  StoredRow,
  StoreFailure
} from "./TranscriptStore.js"
import { emptyReport } from "./TranscriptStore.js"
import { BackendFailureError } from "./TranscriptStoreError.js"

/** A state folded from rows, with the id of the last row and whether any message is an assistant's. */
export type Folded = ReturnType<typeof foldRows>

/** Folds parsed rows into a fresh `SessionState`, with the trackers a `Loaded` reports. */
export const fold: (lines: Iterable<Line.ParsedLine>) => Folded = foldRows

/** `true` when rows start with a current-version header (a load needs no recovery or migration). */
export const isCurrent: (lines: ReadonlyArray<Line.ParsedLine>) => boolean = isCurrentRows

/** What {@link recover} gives: the rows in order, whether the header was recovered, the version migrated from. */
export interface Recovered {
  readonly lines: ReadonlyArray<Line.ParsedLine>
  readonly recovered: boolean
  readonly migratedFrom: number | undefined
}

/**
 * Header recovery (the first `session` row moved first, else a fresh header for `cwd`) and
 * migration of older versions (new entry ids from the `IdSource`), in memory: write the result
 * back (`Line.serialize` of each) on a writable load.
 */
export const recover = (
  lines: ReadonlyArray<Line.ParsedLine>,
  cwd: string
): Effect.Effect<Recovered> => recoverRows(lines, cwd)

/**
 * Every row of a state in order with the blank lines (which the state does not keep) put back
 * where they were (by line number): what a load's `rows()` gives.
 */
export const withBlanks: (
  state: SessionState.SessionState,
  blanks: ReadonlyArray<Line.BlankLine>
) => Array<Line.ParsedLine> = withBlanksRows

/**
 * A database store's `defaultLocation`: the location its options name (`configured`, in its
 * canonical form), else a `BackendFailureError` (operation `defaultLocation`) that asks for one.
 */
export const configuredLocation = (
  store: string,
  configured: string | undefined,
  resolve: (location: string) => string
): Effect.Effect<string, BackendFailureError> =>
  configured === undefined
    ? Effect.fail(
      new BackendFailureError({
        store,
        location: "(none)",
        operation: "defaultLocation",
        detail:
          `no location was named and the ${store} store has no default: name one, or give the store's \`defaultLocation\` option`
      })
    )
    : Effect.succeed(resolve(configured))

/** Stored texts parsed at row positions (row `i`: line `i + 1`, offset `i`), from index `from`. */
export const parse = (texts: ReadonlyArray<string>, from = 0): Array<Line.ParsedLine> => {
  const out: Array<Line.ParsedLine> = []
  for (let i = from; i < texts.length; i++) out.push(Line.parse(texts[i]!, i + 1, i))
  return out
}

/**
 * Rows stored after the first `seen` (`texts`: only those, in order, as a query for the tail
 * returns them) parsed at their positions (line `seen + i + 1`, offset `seen + i`).
 */
export const parseAfter = (texts: ReadonlyArray<string>, seen: number): Array<Line.ParsedLine> =>
  texts.map((text, i) => Line.parse(text, seen + i + 1, seen + i))

/** The position after `count` rows (line and offset both count rows). */
export const end = (count: number): Position => ({ line: count, offset: count })

/** The position after a row at `position` (the next sequence number, whatever the text). */
export const positionAfter = (position: Position, _text: string): Position => ({
  line: position.line + 1,
  offset: position.offset + 1
})

/** What a row cursor holds: which store instance and session it is of, the generation and the rows seen. */
export interface RowCursor {
  /** The store instance that handed it out (a cursor of another instance is never trusted). */
  readonly store: symbol
  /** The session's key in that store. */
  readonly key: string
  /** Bumped by every replace of the session's rows. */
  readonly generation: number
  /** The number of rows seen. */
  readonly seq: number
}

/** A row cursor as the interface's opaque `Cursor`. */
export const toCursor = (cursor: RowCursor): Cursor => cursor as unknown as Cursor

/** The row cursor inside `cursor` when `store` handed it out for `key`, else `undefined`. */
export const fromCursor = (cursor: Cursor, store: symbol, key: string): RowCursor | undefined => {
  const row = cursor as unknown as Partial<RowCursor>
  return row.store === store && row.key === key && typeof row.generation === "number" &&
      typeof row.seq === "number"
    ? (row as RowCursor)
    : undefined
}

/** A session with nothing stored: a load's `exists: false`. */
export const missing: Loaded = {
  exists: false,
  state: foldRows([]).state,
  rows: () => [],
  cursor: undefined,
  end: end(0),
  tailId: null,
  hasAssistant: false,
  report: emptyReport
}

/**
 * A load of parsed rows (all of them, in order, as stored or as recovered) that `cursor` matches;
 * `report` adds to the corrupt rows found (migration, recovery, backups).
 */
export const loaded = (
  lines: ReadonlyArray<Line.ParsedLine>,
  cursor: Cursor,
  report: Partial<LoadReport> = {}
): Loaded => {
  const folded = foldRows(lines)
  const corrupt = lines.flatMap((l) =>
    l._tag === "Corrupt" ? [{ line: l.line, offset: l.offset, reason: l.reason }] : []
  )
  return {
    exists: true,
    state: folded.state,
    rows: () => [...lines],
    cursor,
    end: end(lines.length),
    tailId: folded.tailId,
    hasAssistant: folded.hasAssistant,
    report: { ...emptyReport, corrupt, ...report }
  }
}

/**
 * What changed in a session since `seen` (`undefined`: a cursor of another store or session):
 * `texts` and `generation` are what is stored now (`texts` `undefined`: no session); `next` is
 * the cursor of the current rows.
 */
export const changes = (
  stored: { readonly texts: ReadonlyArray<string>; readonly generation: number } | undefined,
  seen: RowCursor | undefined,
  next: () => Cursor
): Changes => {
  if (stored === undefined) return { _tag: "Missing" }
  if (seen === undefined || seen.generation !== stored.generation || seen.seq > stored.texts.length) {
    return { _tag: "Replaced" }
  }
  if (seen.seq === stored.texts.length) return { _tag: "Unchanged" }
  return { _tag: "Appended", rows: parse(stored.texts, seen.seq), cursor: next(), end: end(stored.texts.length) }
}

/**
 * The `Appended` change of rows stored after the first `seen` (`texts`: only those, in order),
 * for a backend that reads just the tail; `cursor` is the cursor of every row now stored.
 */
export const appended = (texts: ReadonlyArray<string>, seen: number, cursor: Cursor): Changes => ({
  _tag: "Appended",
  rows: parseAfter(texts, seen),
  cursor,
  end: end(seen + texts.length)
})

/** `true` when the first row that is neither blank nor corrupt is a session header. */
export const isSession = (texts: ReadonlyArray<string>): boolean => {
  for (let i = 0; i < texts.length; i++) {
    const line = Line.parse(texts[i]!, i + 1, i)
    if (line._tag === "Blank" || line._tag === "Corrupt") continue
    return line._tag === "Header"
  }
  return false
}

/**
 * The listing summary of a session's rows (`SessionCatalog`'s fields; `path` is `key`), `None`
 * when its first row is not a session header.
 */
export const summary = (
  ref: SessionRef.SessionRef,
  key: string,
  texts: ReadonlyArray<string>,
  modifiedMs: number
): Option.Option<SessionSummary> => {
  const reader = infoReader()
  for (let i = 0; i < texts.length; i++) {
    if (!reader.push(Line.parse(texts[i]!, i + 1, i))) break
  }
  return Option.map(reader.result(key, modifiedMs), (info) => ({ ...info, ref }))
}

/** The searchable text of an entry (what a store's text index holds): a message's text, with its role. */
export const searchText = Search.searchText

/** The words of a search query, lower-cased (what a scanning search matches). */
export const searchTerms = Search.terms

/** How a text matches every word of a query: a score and a snippet with the matches in `[` `]`, or `undefined`. */
export const searchMatch = Search.match

/**
 * A row backend's summary of a session for the bounded open (`TranscriptStore.loadActive`): the
 * JSONL sidecar index's summary with rows by sequence number, and a filter of the ids.
 */
export type ActiveSummary = Active.Active

/**
 * The summary of a full load of session `key`'s rows stored now, of its generation `generation`
 * (never of rows recovered or migrated in memory).
 */
export const activeSummary: (loaded: Loaded, key: string, generation: number) => ActiveSummary = Active.build

/** `true` when a summary describes a session that a bounded open can answer (else: a full load). */
export const activeBounded = (active: ActiveSummary): boolean => active.summary.bounded

/** The number of rows a summary covers. */
export const activeCovers = (active: ActiveSummary): number => active.summary.lineCount

/** A summary caught up with the rows stored after it (parsed at their positions), or `undefined`: build it again. */
export const activeCatchUp: (
  active: ActiveSummary,
  rows: ReadonlyArray<Line.ParsedLine>,
  torn: boolean
) => ActiveSummary | undefined = Active.catchUpRows

/** The sequence numbers (1-based) of the rows a bounded open reads. */
export const activeRows = (active: ActiveSummary): Array<number> => Active.rowsToRead(active.summary)

/** A summary as stored: JSON text and the id filter's bytes. */
export const activeEncode: (active: ActiveSummary) => { readonly json: string; readonly filter: Uint8Array } =
  Active.encode

/** A stored summary of session `key`, or `undefined` when damaged, another session's or of another format version. */
export const activeDecode: (json: string, filter: Uint8Array, key: string) => ActiveSummary | undefined = Active.decode

/**
 * The bounded open of a summary from the rows it names (`rowAt`: the parsed row at a sequence
 * number, as read), or `undefined` when a row is missing or not the one named (build it again).
 */
export const activeLoaded = (
  active: ActiveSummary,
  rowAt: (seq: number) => Line.ParsedLine | undefined,
  options: {
    readonly cursor: Cursor
    readonly bytesRead: number
    readonly loadRest: Effect.Effect<Loaded, StoreFailure>
  }
): ActiveLoaded | undefined => {
  const s = active.summary
  const view = Active.view(s, rowAt)
  if (view === undefined) return undefined
  return {
    _tag: "Active",
    state: view.state,
    before: view.before,
    cursor: options.cursor,
    end: end(s.lineCount),
    tailId: s.tailId,
    hasAssistant: s.hasAssistant,
    report: { ...emptyReport, corrupt: s.corrupt, bytesRead: options.bytesRead },
    mayHaveId: Active.mayHaveId(active),
    loadRest: options.loadRest
  }
}

/** Rows a row store reads at once for {@link streamPages}. */
export const STREAM_PAGE = 1_000

/** One page of a session's stored rows (see {@link streamPages}). */
export interface RowsPage {
  readonly generation: number
  /** The texts of the rows after the one asked for, at most a page of them. */
  readonly texts: ReadonlyArray<string>
  /** The sequence number of the session's last row. */
  readonly last: number
  /** The last row was written without its end (a torn tail). */
  readonly torn: boolean
}

/** The page of an in-memory session's rows after row `after`, at most `limit` (`undefined`: no session; see {@link streamPages}). */
export const pageOf = (
  session: { readonly generation: number; readonly rows: ReadonlyArray<string> } | undefined,
  after: number,
  limit: number
): RowsPage | undefined =>
  session === undefined ? undefined : {
    generation: session.generation,
    texts: session.rows.slice(after, after + limit),
    last: session.rows.length,
    torn: false
  }

/**
 * A session's rows streamed a page at a time by sequence number (`TranscriptStore.streamRows` of
 * a row store): `read(after, limit)` gives the page of rows after row `after` (rows are numbered
 * from 1), `undefined` when there is no session (an empty stream). A session replaced between two
 * pages fails the stream with `replaced()`: its rows are never mixed from two generations.
 */
export const streamPages = <E>(
  read: (after: number, limit: number) => Effect.Effect<RowsPage | undefined, E>,
  replaced: () => E,
  pageSize: number = STREAM_PAGE
): Stream.Stream<StoredRow, E> =>
  Stream.paginateChunkEffect(
    { after: 0, generation: undefined as number | undefined },
    ({ after, generation }) =>
      Effect.flatMap(read(after, pageSize), (page) => {
        if (page === undefined) return Effect.succeed([Chunk.empty<StoredRow>(), Option.none()] as const)
        if (generation !== undefined && page.generation !== generation) return Effect.fail(replaced())
        const rows = page.texts.map((text, i): StoredRow => ({
          text,
          terminated: !(page.torn && after + i + 1 === page.last)
        }))
        const next = after + page.texts.length
        return Effect.succeed(
          [
            Chunk.unsafeFromArray(rows),
            page.texts.length < pageSize || next >= page.last
              ? Option.none()
              : Option.some({ after: next, generation: page.generation })
          ] as const
        )
      })
  )
