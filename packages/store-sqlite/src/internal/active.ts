/**
 * The bounded open (`TranscriptStore.loadActive`) of the SQLite store, by queries: in ONE read
 * transaction, the session's row with its stored summary (`StoreRows.activeSummary`, columns
 * `active*` of `sessions`, schema version 3), the rows appended after the row it covers (caught up
 * into it), then only the rows it names, each by its key (`sid << 32 | seq`): the header, the
 * settings rows before the path, the active path from the last compaction's kept entry (or the
 * root) to the leaf, the latest `session_info`. Time and memory: the path and the rows appended
 * since the last resume, not the session. A missing, stale (another generation) or damaged
 * summary, rows the summary cannot fold, a torn last row: a full load, which writes the summary
 * again (unless read-only); the summary is never needed for correctness.
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
import type { BackendFailureError } from "@branchlog/session-store/TranscriptStoreError"
import * as Effect from "effect/Effect"
import type { StoredActive } from "./activeStatements.js"
import type { Db, SessionRow } from "./database.js"

/** What the store gives the bounded open. */
export interface Deps {
  /** The connection to read with (`undefined`: no database). */
  readonly connect: (path: string, readOnly: boolean) => Effect.Effect<Db | undefined, StoreFailure>
  readonly load: (ref: SessionRef.SqliteRef, options: LoadOptions) => Effect.Effect<Loaded, StoreFailure>
  readonly cursorOf: (key: string, generation: number, seq: number) => Cursor
  /** The generation a cursor of this store holds. */
  readonly generationOf: (cursor: Cursor, key: string) => number | undefined
  readonly run: <A>(db: Db, operation: string, f: () => A) => Effect.Effect<A, BackendFailureError>
}

/** Whether this open may write the summary (default: unless read-only). */
const writes = (options: ActiveOptions): boolean => options.writeIndex ?? options.readOnly !== true

type Read =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Full" }
  | { readonly _tag: "Build" }
  | {
    readonly _tag: "Read"
    readonly session: SessionRow
    readonly active: StoreRows.ActiveSummary
    readonly advanced: boolean
    readonly rows: ReadonlyMap<number, Line.ParsedLine>
    readonly bytesRead: number
  }

const decodeStored = (key: string, session: SessionRow, stored: StoredActive | undefined) => {
  if (
    stored === undefined || stored.active === null || stored.active_filter === null ||
    stored.active_generation !== session.generation || stored.active_seq === null || stored.active_seq > session.seq
  ) return undefined
  const active = StoreRows.activeDecode(stored.active, stored.active_filter, key)
  return active !== undefined && active.generation === session.generation &&
      StoreRows.activeCovers(active) === stored.active_seq
    ? active
    : undefined
}

/** The read of a bounded open, in one read transaction (one snapshot of the session). */
const read = (db: Db, id: string, key: string): Read =>
  db.handle.transaction((): Read => {
    const session = db.session(id)
    if (session === undefined || session.seq === 0) return { _tag: "Missing" }
    if (session.torn === 1) return { _tag: "Full" }
    const stored = decodeStored(key, session, db.active!.read.get(session.sid) as StoredActive | undefined)
    if (stored === undefined) return { _tag: "Build" }
    const covered = StoreRows.activeCovers(stored)
    if (!StoreRows.activeBounded(stored)) return covered === session.seq ? { _tag: "Full" } : { _tag: "Build" }
    const tail = db.rowsAfter(session.sid, covered)
    let bytesRead = 0
    for (const text of tail) bytesRead += text.length
    const active = StoreRows.activeCatchUp(stored, StoreRows.parseAfter(tail, covered), false)
    if (active === undefined || !StoreRows.activeBounded(active)) return { _tag: "Build" }
    const rows = new Map<number, Line.ParsedLine>()
    for (const seq of StoreRows.activeRows(active)) {
      if (rows.has(seq)) continue
      const text = db.rowText(session.sid, seq)
      if (text === undefined) return { _tag: "Build" }
      bytesRead += text.length
      rows.set(seq, Line.parse(text, seq, seq - 1))
    }
    return { _tag: "Read", session, active, advanced: tail.length > 0, rows, bytesRead }
  })()

const save = (db: Db, sid: number, active: StoreRows.ActiveSummary) => {
  const { filter, json } = StoreRows.activeEncode(active)
  const seq = StoreRows.activeCovers(active)
  const g = active.generation
  db.active!.save.run(json, filter, g, seq, sid, g, seq, g, seq)
}

/** The bounded open of a session of this store, or a full load. */
export const loadActive = (
  deps: Deps,
  served: SessionRef.SqliteRef,
  key: string,
  options: ActiveOptions
): Effect.Effect<ActiveResult, StoreFailure> =>
  Effect.gen(function*() {
    const loadOptions: LoadOptions = { ...options, cache: false }
    const full = Effect.map(deps.load(served, loadOptions), (loaded): ActiveResult => ({ _tag: "Full", loaded }))
    const db = yield* deps.connect(served.path, options.readOnly === true)
    if (db === undefined) return { _tag: "Full", loaded: StoreRows.missing }
    // an older schema, read-only: no summary to read
    if (db.active === undefined) return yield* full
    const mayWrite = writes(options) && !db.readOnly
    const build = Effect.gen(function*() {
      const loaded = yield* deps.load(served, loadOptions)
      const r = loaded.report
      const asStored = r.rewritten || (r.migratedFrom === undefined && !r.recoveredCorruptHeader)
      if (mayWrite && loaded.exists && loaded.cursor !== undefined && r.tornTail === undefined && asStored) {
        const generation = deps.generationOf(loaded.cursor, key)
        const session = db.session(served.id)
        if (generation !== undefined && session !== undefined) {
          const active = StoreRows.activeSummary(loaded, key, generation)
          yield* deps.run(db, "resume", () => save(db, session.sid, active)).pipe(Effect.ignore)
        }
      }
      return { _tag: "Full", loaded } as ActiveResult
    })
    const found = yield* deps.run(db, "resume", () => read(db, served.id, key))
    switch (found._tag) {
      case "Missing":
        return { _tag: "Full", loaded: StoreRows.missing }
      case "Full":
        return yield* full
      case "Build":
        return yield* build
    }
    const { active, session } = found
    const bounded = StoreRows.activeLoaded(active, (seq) => found.rows.get(seq), {
      cursor: deps.cursorOf(key, session.generation, StoreRows.activeCovers(active)),
      bytesRead: found.bytesRead,
      loadRest: deps.load(served, { cwd: options.cwd, readOnly: true, cache: false })
    })
    if (bounded === undefined) return yield* build
    if (found.advanced && mayWrite) {
      yield* deps.run(db, "resume", () => save(db, session.sid, active)).pipe(Effect.ignore)
    }
    return bounded
  })
