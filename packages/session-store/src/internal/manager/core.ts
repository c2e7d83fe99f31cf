/**
 * The mutable record behind one `SessionManager`, shared by the internal modules (load, persist,
 * appends, branching). One owner: nothing here is safe to share between managers.
 */
import type { Entry, Line } from "@branchlog/session-core"
import { SessionState } from "@branchlog/session-core"
import type * as FileSnapshot from "../../FileSnapshot.js"
import * as IdSource from "../../IdSource.js"
import type * as TranscriptFile from "../../TranscriptFile.js"
import type * as TranscriptLock from "../../TranscriptLock.js"

/** The file-level services a manager reaches files through. */
export interface Services {
  readonly files: TranscriptFile.TranscriptFileShape
  readonly snapshots: FileSnapshot.FileSnapshotShape
  readonly locks: TranscriptLock.TranscriptLockShape
  readonly ids: IdSource.IdSourceShape
}

/** A row this manager writes: a canonical entry, a leaf control or the header. */
export type OwnRow =
  | { readonly _tag: "Entry"; readonly entry: Entry.Entry }
  | { readonly _tag: "LeafControl"; readonly control: Entry.LeafControl }
  | { readonly _tag: "Header"; readonly header: Entry.SessionHeader }

/** A row applied to the state but not yet on disk. */
export interface PendingRow {
  readonly row: OwnRow
  readonly text: string
}

/** One unparseable line: where it is and why. */
export interface CorruptReport {
  readonly line: number
  readonly offset: number
  readonly reason: string
}

/** What opening the file found. */
export interface LoadReport {
  /** Lines that are not JSON objects (a torn tail among them), with line number and byte offset. */
  readonly corrupt: ReadonlyArray<CorruptReport>
  /** The last line when the file did not end with `\n` (a crash mid-write); kept on disk. */
  readonly tornTail: CorruptReport | undefined
  /** The version the file declared when it was migrated on open. */
  readonly migratedFrom: number | undefined
  /** `true` when the header was missing or not the first row, and was recovered. */
  readonly recoveredCorruptHeader: boolean
  /** Backups written before a rewrite (migration, header recovery). */
  readonly backups: ReadonlyArray<string>
  /** `true` when the file was rewritten on open (writable opens only). */
  readonly rewritten: boolean
  /** Bytes this open read from the file (a cache hit reads only the new tail). */
  readonly bytesRead: number
  /** `true` when the state came from the in-process cache (plus the new tail, if any). */
  readonly fromCache: boolean
}

/** An empty report. */
export const emptyReport: LoadReport = {
  corrupt: [],
  tornTail: undefined,
  migratedFrom: undefined,
  recoveredCorruptHeader: false,
  backups: [],
  rewritten: false,
  bytesRead: 0,
  fromCache: false
}

/** Options shared by the factories. */
export interface ManagerOptions {
  /** Write every row at once instead of waiting for the first assistant message (default false). */
  readonly eagerFlush?: boolean
  /** `"fsync"` syncs every append before it returns (default `"none"`). */
  readonly durability?: TranscriptFile.Durability
  /** Options of the transcript lock taken for each write. */
  readonly lock?: TranscriptLock.LockOptions
}

/** The manager's record. */
export interface Core {
  readonly services: Services
  readonly token: symbol
  readonly options: ManagerOptions
  cwd: string
  sessionDir: string
  /** The session file (absolute); `undefined` for an in-memory session. */
  file: string | undefined
  persist: boolean
  readOnly: boolean
  state: SessionState.SessionState
  /** Rows applied to the state, not yet written (the header first for a new file). */
  pending: Array<PendingRow>
  /** The file holds this session's header (loaded from it or written to it). */
  onDisk: boolean
  /** What this manager last saw of the file. */
  snapshot: FileSnapshot.Snapshot | undefined
  /** The snapshot is behind `knownEnd` (captures are deferred inside `withWriteLock`). */
  snapshotStale: boolean
  /** Byte offset of the end of what the state holds from the file. */
  knownEnd: number
  /** Lines of the file the state holds (line numbers continue from here). */
  lineCount: number
  /** Id of the last row in file order (the `parentId` of a leaf control). */
  tailId: string | null
  hasAssistant: boolean
  recoveredCorruptHeader: boolean
  report: LoadReport
  /** Depth of this manager's own `withWriteLock`. */
  lockDepth: number
  /** The lock token under which the state was last synced with the file. */
  syncedToken: string | undefined
  /** The token of the lock held by this manager's `withWriteLock`, while it runs. */
  heldToken: string | undefined
  /**
   * Inside `withWriteLock`: this manager's last write succeeded, so the file ends with `\n` at
   * `knownEnd` (no read-back of the last byte needed while it still wrote last under the lock).
   */
  tailTrusted: boolean
  /** The file held open for appends inside `withWriteLock` (closed when the lock is let go). */
  appender: { readonly path: string; readonly handle: TranscriptFile.Appender } | undefined
  /** The canonical key (symlinks followed) of `file`, remembered for the path it was computed for. */
  canonical: { readonly file: string; readonly key: string } | undefined
}

/** A fresh record. */
export const makeCore = (services: Services, options: ManagerOptions, init: {
  readonly cwd: string
  readonly sessionDir: string
  readonly file: string | undefined
  readonly persist: boolean
  readonly readOnly?: boolean
}): Core => ({
  services,
  token: Symbol("SessionManager"),
  options,
  cwd: init.cwd,
  sessionDir: init.sessionDir,
  file: init.file,
  persist: init.persist,
  readOnly: init.readOnly ?? false,
  state: SessionState.empty(),
  pending: [],
  onDisk: false,
  snapshot: undefined,
  snapshotStale: false,
  knownEnd: 0,
  lineCount: 0,
  tailId: null,
  hasAssistant: false,
  recoveredCorruptHeader: false,
  report: emptyReport,
  lockDepth: 0,
  syncedToken: undefined,
  heldToken: undefined,
  tailTrusted: false,
  appender: undefined,
  canonical: undefined
})

/** The id a row carries for leaf controls' `parentId` (entries, controls, parent-linked opaque rows). */
export const rowId = (row: Line.ParsedLine): string | undefined => {
  switch (row._tag) {
    case "Entry":
      return row.entry.id
    case "LeafControl":
      return row.control.id
    case "Opaque":
      return typeof row.value.id === "string" && row.value.id.length > 0 ? row.value.id : undefined
    default:
      return undefined
  }
}

/** `true` for an assistant message entry. */
export const isAssistant = (entry: Entry.Entry): boolean =>
  entry.type === "message" && (entry.message as { readonly role?: unknown }).role === "assistant"

/** A fresh 8-hex entry id, unique in the state and in `extra`. */
export const mintId = (core: Core, extra?: ReadonlySet<string>): string =>
  IdSource.entryId(core.services.ids, (id) => SessionState.hasId(core.state, id) || (extra?.has(id) ?? false))

/** Folds one parsed line into the record's state and trackers. */
export const applyLine = (core: Core, line: Line.ParsedLine): void => {
  SessionState.apply(core.state, line)
  const id = rowId(line)
  if (id !== undefined) core.tailId = id
  if (line._tag === "Entry" && !core.hasAssistant && isAssistant(line.entry)) core.hasAssistant = true
}

let lastMillis = Number.NaN
let lastIso = ""

/** `new Date(millis).toISOString()`, remembering the last one (appends in a burst share a millisecond). */
export const isoTime = (millis: number): string => {
  if (millis !== lastMillis) {
    lastIso = new Date(millis).toISOString()
    lastMillis = millis
  }
  return lastIso
}

/** The text of an own row. */
export const textOf = (row: OwnRow): string =>
  JSON.stringify(row._tag === "Entry" ? row.entry : row._tag === "LeafControl" ? row.control : row.header)

/** The parsed line of an own row at a position. */
export const lineOf = (row: OwnRow, line: number, offset: number): Line.ParsedLine =>
  row._tag === "Entry"
    ? { _tag: "Entry", entry: row.entry, line, offset }
    : row._tag === "LeafControl"
    ? { _tag: "LeafControl", control: row.control, line, offset }
    : { _tag: "Header", header: row.header, line, offset }
