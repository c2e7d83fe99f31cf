/**
 * The mutable record behind one `SessionManager`, shared by the internal modules (load, sync,
 * write, locking, appends, branching). One owner: nothing here is safe to share between managers.
 * Storage-neutral: the session is a `SessionRef`, what the manager last saw of it is the store's
 * opaque `Cursor`, and every position comes from the store.
 */
import type { Entry, Line } from "@branchlog/session-core"
import { SessionState } from "@branchlog/session-core"
import * as IdSource from "../../IdSource.js"
import type { Options as SessionManagerOptions } from "../../SessionManager.js"
import * as SessionRef from "../../SessionRef.js"
import type { Cursor, Held, IndexFollower, LoadReport, Position, TranscriptStoreShape } from "../../TranscriptStore.js"
import { emptyReport } from "../../TranscriptStore.js"
import type { Bounded } from "./resume.js"

export type { CorruptReport, LoadReport, OversizedReport } from "../../TranscriptStore.js"
export { isoTime } from "../store/rows.js"
export { emptyReport }

/** The services a manager reaches its session through. */
export interface Services {
  readonly store: TranscriptStoreShape
  readonly ids: IdSource.IdSourceShape
}

/** A row this manager writes: a canonical entry, a leaf control or the header. */
export type OwnRow =
  | { readonly _tag: "Entry"; readonly entry: Entry.Entry }
  | { readonly _tag: "LeafControl"; readonly control: Entry.LeafControl }
  | { readonly _tag: "Header"; readonly header: Entry.SessionHeader }

/** A row applied to the state but not yet stored. */
export interface PendingRow {
  readonly row: OwnRow
  readonly text: string
}

/** Options shared by the factories. */
export type ManagerOptions = SessionManagerOptions

/** The manager's record. */
export interface Core {
  readonly services: Services
  readonly options: ManagerOptions
  cwd: string
  /** The location new sessions go to (a folder, for files; `""` in memory). */
  sessionDir: string
  /** The session; `undefined` for an in-memory session. */
  ref: SessionRef.SessionRef | undefined
  persist: boolean
  readOnly: boolean
  state: SessionState.SessionState
  /** Rows applied to the state, not yet written (the header first for a new session). */
  pending: Array<PendingRow>
  /** The store holds this session's header (loaded from it or written to it). */
  onDisk: boolean
  /** What this manager last saw of the session (the store's own); `undefined`: nothing seen. */
  cursor: Cursor | undefined
  /** The position after the last row the state holds from the store (line numbers continue from here). */
  end: Position
  /** Id of the last row in order (the `parentId` of a leaf control). */
  tailId: string | null
  hasAssistant: boolean
  recoveredCorruptHeader: boolean
  report: LoadReport
  /** Depth of this manager's own `withWriteLock`. */
  lockDepth: number
  /** The session held by this manager's `withWriteLock`, while it runs. */
  held: Held | undefined
  /** Set while the state holds only the active path of a bounded open (`resume`). */
  bounded: Bounded | undefined
  /** The store's index of the session this manager keeps current after its writes (set by `resume`). */
  index: IndexFollower | undefined
}

/** A fresh record. */
export const makeCore = (services: Services, options: ManagerOptions, init: {
  readonly cwd: string
  readonly sessionDir: string
  readonly ref: SessionRef.SessionRef | undefined
  readonly persist: boolean
  readonly readOnly?: boolean
}): Core => ({
  services,
  options,
  cwd: init.cwd,
  sessionDir: init.sessionDir,
  ref: init.ref,
  persist: init.persist,
  readOnly: init.readOnly ?? false,
  state: SessionState.empty(),
  pending: [],
  onDisk: false,
  cursor: undefined,
  end: { line: 0, offset: 0 },
  tailId: null,
  hasAssistant: false,
  recoveredCorruptHeader: false,
  report: emptyReport,
  lockDepth: 0,
  held: undefined,
  bounded: undefined,
  index: undefined
})

/** A fresh 8-hex entry id, unique in the state and in `extra`. */
export const mintId = (core: Core, extra?: ReadonlySet<string>): string =>
  IdSource.entryId(
    core.services.ids,
    (id) => SessionState.hasId(core.state, id) || (extra?.has(id) ?? false) || (core.bounded?.mayHaveId(id) ?? false)
  )

/** Folds one parsed line into the record's state and trackers. */
export const applyLine = (core: Core, line: Line.ParsedLine): void => {
  SessionState.applyTail(core.state, core, line)
}

/** The text of an own row. */
export const textOf = (row: OwnRow): string =>
  JSON.stringify(row._tag === "Entry" ? row.entry : row._tag === "LeafControl" ? row.control : row.header)

/** Applies an own row at a position. */
export const applyOwn = (core: Core, row: OwnRow, position: Position): void => {
  const { line, offset } = position
  applyLine(
    core,
    row._tag === "Entry"
      ? { _tag: "Entry", entry: row.entry, line, offset }
      : row._tag === "LeafControl"
      ? { _tag: "LeafControl", control: row.control, line, offset }
      : { _tag: "Header", header: row.header, line, offset }
  )
}

/** `{ path }` naming the session for errors (`{}` in memory). */
export const pathField = (core: Core): { readonly path?: string } =>
  core.ref === undefined ? {} : { path: SessionRef.format(core.ref) }

/** `true` when the session is stored (persisted, with a reference). */
export const stored = (core: Core): core is Core & { ref: SessionRef.SessionRef } =>
  core.persist && core.ref !== undefined
