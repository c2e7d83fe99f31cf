/**
 * The bounded open (`TranscriptStore.loadActive`) of the PostgreSQL store, by queries: the
 * session's row with its stored summary (`StoreRows.activeSummary`, columns `active*` of
 * `branchlog_sessions`, schema version 2), the rows appended after the row it covers (caught up
 * into it), then only the rows it names, one primary-key lookup each (`LATERAL … LIMIT 1`): the
 * header, the settings rows before the path, the active path from the last compaction's kept entry
 * (or the root) to the leaf, the latest `session_info`. Every statement after the first checks
 * that the generation is still the one the summary is of (a replace in between: a full load), so
 * the rows read are the rows of one generation up to one sequence number, whatever others write
 * meanwhile. Time and memory: the path and the rows appended since the last resume, not the
 * session. A missing, stale or damaged summary, rows it cannot fold, a torn last row: a full load,
 * which writes the summary again (unless read-only); it is never needed for correctness.
 */
import { Line } from "@branchlog/session-core"
import type * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type {
  ActiveOptions,
  ActiveResult,
  Cursor,
  Loaded,
  LoadOptions,
  StoreFailure
} from "@branchlog/session-store/TranscriptStore"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { textOfRow } from "./rows.js"
import type { Run } from "./sql.js"

/** What the store gives the bounded open. */
export interface Deps {
  /** Statements on the database of `url` (`undefined`: no schema there); `current`: of the latest schema. */
  readonly connect: (
    url: string,
    readOnly: boolean
  ) => Effect.Effect<{ readonly run: Run; readonly current: boolean } | undefined, StoreFailure>
  readonly load: (ref: SessionRef.PostgresRef, options: LoadOptions) => Effect.Effect<Loaded, StoreFailure>
  readonly cursorOf: (key: string, generation: number, seq: number) => Cursor
  /** The generation a cursor of this store holds. */
  readonly generationOf: (cursor: Cursor, key: string) => number | undefined
  /** A statement retried on transient failures, its failure as the store's. */
  readonly attempt: <A>(effect: Effect.Effect<A, SqlError>, key: string) => Effect.Effect<A, StoreFailure>
}

/** Whether this open may write the summary (default: unless read-only). */
const writes = (options: ActiveOptions): boolean => options.writeIndex ?? options.readOnly !== true

const bytesOf = (value: unknown): Uint8Array | undefined =>
  value instanceof Uint8Array ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : undefined

/** Writes a summary unless the stored one is of the same generation and covers more rows. */
const save = (run: Run, session: string, active: StoreRows.ActiveSummary) => {
  const { filter, json } = StoreRows.activeEncode(active)
  const seq = StoreRows.activeCovers(active)
  return run(
    `UPDATE branchlog_sessions SET active = $2, active_filter = $3, active_generation = $4, active_seq = $5
     WHERE session_id = $1 AND generation = $4 AND last_seq >= $5
       AND (active_seq IS NULL OR active_generation IS DISTINCT FROM $4 OR active_seq <= $5 OR active_seq > last_seq)`,
    [session, json, Buffer.from(filter.buffer, filter.byteOffset, filter.byteLength), active.generation, seq]
  )
}

/** The bounded open of a session of this store, or a full load. */
export const loadActive = (
  deps: Deps,
  served: SessionRef.PostgresRef,
  key: string,
  options: ActiveOptions
): Effect.Effect<ActiveResult, StoreFailure> =>
  Effect.gen(function*() {
    const loadOptions: LoadOptions = { ...options, cache: false }
    const full = Effect.map(deps.load(served, loadOptions), (loaded): ActiveResult => ({ _tag: "Full", loaded }))
    const db = yield* deps.connect(served.url, options.readOnly === true)
    if (db === undefined) return { _tag: "Full", loaded: StoreRows.missing }
    // an older schema, read-only: no summary to read
    if (!db.current) return yield* full
    const { run } = db
    const attempt = <A>(effect: Effect.Effect<A, SqlError>) => deps.attempt(effect, key)
    const mayWrite = writes(options)
    const build = Effect.gen(function*() {
      const loaded = yield* deps.load(served, loadOptions)
      const r = loaded.report
      const asStored = r.rewritten || (r.migratedFrom === undefined && !r.recoveredCorruptHeader)
      if (mayWrite && loaded.exists && loaded.cursor !== undefined && r.tornTail === undefined && asStored) {
        const generation = deps.generationOf(loaded.cursor, key)
        if (generation !== undefined) {
          const active = StoreRows.activeSummary(loaded, key, generation)
          yield* attempt(save(run, served.id, active)).pipe(Effect.ignore)
        }
      }
      return { _tag: "Full", loaded } as ActiveResult
    })
    const heads = yield* attempt(run(
      `SELECT generation, last_seq, torn_tail, active, active_filter, active_generation, active_seq
       FROM branchlog_sessions WHERE session_id = $1`,
      [served.id]
    ))
    const head = heads[0]
    if (head === undefined || head.last_seq === 0) return { _tag: "Full", loaded: StoreRows.missing }
    if (head.torn_tail === true) return yield* full
    const generation = head.generation as number
    const lastSeq = head.last_seq as number
    const filter = bytesOf(head.active_filter)
    const stored = typeof head.active === "string" && filter !== undefined && head.active_generation === generation &&
        typeof head.active_seq === "number" && head.active_seq <= lastSeq
      ? StoreRows.activeDecode(head.active, filter, key)
      : undefined
    if (
      stored === undefined || stored.generation !== generation || StoreRows.activeCovers(stored) !== head.active_seq
    ) return yield* build
    const covered = StoreRows.activeCovers(stored)
    if (!StoreRows.activeBounded(stored)) return covered === lastSeq ? yield* full : yield* build
    let bytesRead = 0
    // the rows after the summary, up to the row the head saw, of its generation
    const tail = covered === lastSeq ? [] : yield* attempt(run(
      `SELECT r.seq, r.text, r.raw FROM branchlog_rows r JOIN branchlog_sessions s ON s.session_id = r.session_id
       WHERE r.session_id = $1 AND r.seq > $2 AND r.seq <= $3 AND s.generation = $4 ORDER BY r.seq`,
      [served.id, covered, lastSeq, generation]
    ))
    if (tail.length !== lastSeq - covered) return yield* build
    const texts = tail.map(textOfRow)
    for (const text of texts) bytesRead += text.length
    const active = StoreRows.activeCatchUp(stored, StoreRows.parseAfter(texts, covered), false)
    if (active === undefined || !StoreRows.activeBounded(active)) return yield* build
    const wanted = [...new Set(StoreRows.activeRows(active))]
    const found = yield* attempt(run(
      // one primary-key lookup per row named (LATERAL with LIMIT, which the planner cannot flatten:
      // never a scan of the session's rows, which it may pick with the statistics of a table just
      // filled)
      `SELECT r.seq, r.text, r.raw FROM unnest($2::int[]) AS wanted (seq)
       CROSS JOIN LATERAL (
         SELECT seq, text, raw FROM branchlog_rows WHERE session_id = $1 AND seq = wanted.seq LIMIT 1
       ) r
       WHERE EXISTS (SELECT 1 FROM branchlog_sessions s WHERE s.session_id = $1 AND s.generation = $3)`,
      [served.id, wanted, generation]
    ))
    if (found.length !== wanted.length) return yield* build
    const rows = new Map<number, Line.ParsedLine>()
    for (const row of found) {
      const text = textOfRow(row)
      bytesRead += text.length
      rows.set(row.seq, Line.parse(text, row.seq, row.seq - 1))
    }
    const bounded = StoreRows.activeLoaded(active, (seq) => rows.get(seq), {
      cursor: deps.cursorOf(key, generation, lastSeq),
      bytesRead,
      // the rest, when the manager asks for it (`loadFull`, or a write that needs it): an ordinary load
      loadRest: deps.load(served, { cwd: options.cwd, readOnly: true, cache: false })
    })
    if (bounded === undefined) return yield* build
    if (texts.length > 0 && mayWrite) yield* attempt(save(run, served.id, active)).pipe(Effect.ignore)
    return bounded
  })
