/**
 * The types of a store's bounded open (`TranscriptStoreShape.loadActive`, issue 16): its options,
 * what it gives (the active path since the last compaction, or a full load when the store could
 * not bound it), and the index follower a writer keeps current. Re-exported by `TranscriptStore`,
 * whose types they use.
 */
import type { Entry, SessionState } from "@branchlog/session-core"
import type * as Effect from "effect/Effect"
import type { Cursor, Loaded, LoadOptions, LoadReport, Position, StoreFailure } from "../../TranscriptStore.js"

/** Options of a bounded open. */
export interface ActiveOptions extends LoadOptions {
  /**
   * May write the store's index of the session (files: the sidecar `<file>.index`) when it is
   * missing, damaged or far behind; default: unless `readOnly` (a read-only open uses a valid index
   * and writes nothing; `true` lets it write the index, a cache beside the session, never the session).
   */
  readonly writeIndex?: boolean
}

/**
 * A bounded open: the header and the active path only, from the last compaction's kept entry
 * (or from the root when the path has no compaction) to the leaf, read by position.
 */
export interface ActiveLoaded {
  readonly _tag: "Active"
  /**
   * The header and that path (`SessionState.fromActivePath`: each row the child of the one before),
   * with the whole session's leaf, append parent, labels (every one, on any branch) and name.
   */
  readonly state: SessionState.SessionState
  /**
   * The last `thinking_level_change` and the last model row (model change or assistant message)
   * of the path before its start, in path order: the context's settings (they emit no message).
   */
  readonly before: ReadonlyArray<Entry.Entry>
  /** What the state matches (as a full load's cursor: appends after it are `changes`). */
  readonly cursor: Cursor
  readonly end: Position
  readonly tailId: string | null
  readonly hasAssistant: boolean
  readonly report: LoadReport
  /** `false` only for an id the session certainly does not hold nor name (to mint ids without the rest). */
  readonly mayHaveId: (id: string) => boolean
  /**
   * The whole session as it is now (a read-only `load` without the cache), for what needs the rest:
   * a manager runs it only as an effect (`loadFull`, a write that needs the rest), never through
   * `Effect.runSync`, so it may be asynchronous.
   */
  readonly loadRest: Effect.Effect<Loaded, StoreFailure>
  /** The store's index of the session, for a writer to keep current (writable opens of a store that has one). */
  readonly index?: IndexFollower
}

/**
 * A store's index of one session (files: the sidecar index) that the writer which opened it keeps
 * current after its own appends: `appended` after each write of its rows (in memory), `write` when
 * its hold ends (still holding the session). Optional and never needed for correctness: a writer
 * that stops following (rows it cannot fold, another writer's rows first) leaves the rest to the
 * next open's catch-up.
 */
export interface IndexFollower {
  /** Notes rows this writer wrote: their texts (no newline) and where each landed. */
  readonly appended: (texts: ReadonlyArray<string>, positions: ReadonlyArray<Position>) => void
  /**
   * Brings the index up to date with what was noted (nothing when nothing is new); never fails.
   * `cursor`: the writer's cursor now (its snapshot spares a read of the file when it is current).
   */
  readonly write: (cursor: Cursor | undefined) => Effect.Effect<void>
}

/** What `loadActive` gives: a bounded open, or a full load when the store could not bound it. */
export type ActiveResult = ActiveLoaded | {
  readonly _tag: "Full"
  readonly loaded: Loaded
  /** As `ActiveLoaded.index`, when the full load built a trustworthy index. */
  readonly index?: IndexFollower
}
