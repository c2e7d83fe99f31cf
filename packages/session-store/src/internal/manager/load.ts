/**
 * Opening a transcript into a manager: the in-process cache (tail-only re-reads), the streaming
 * pass, header recovery (the first `session` row anywhere, else a fresh header; the original
 * bytes backed up first) and migration of older versions (rewritten atomically after a backup on
 * writable opens, in memory only on read-only opens).
 */
import { Entry, Line, Migration, SessionState } from "@branchlog/session-core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as IdSource from "../../IdSource.js"
import type { FileNotFoundError, FileSystemError, LockTimeoutError, LockUnusableError } from "../../StoreError.js"
import * as Cache from "./cache.js"
import type { Core, LoadReport, OwnRow } from "./core.js"
import { applyLine, emptyReport, isAssistant, isoTime, rowId, textOf } from "./core.js"
import type { Scan } from "./scan.js"
import { scanFile } from "./scan.js"

/** Errors of opening a file for writing (a migration or header recovery takes the lock). */
export type OpenError = FileSystemError | FileNotFoundError | LockTimeoutError | LockUnusableError

/** A fresh header for this manager's cwd (UUIDv7 id unless given, timestamp from `Clock`). */
export const newHeader = (
  core: Core,
  options: { readonly id?: string | undefined; readonly parentSession?: string | undefined } = {}
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const id = options.id ?? (yield* IdSource.uuidv7)
    const header: Entry.SessionHeader = {
      type: "session",
      version: Entry.CURRENT_SESSION_VERSION,
      id,
      timestamp: isoTime(now),
      cwd: core.cwd,
      ...(options.parentSession === undefined ? {} : { parentSession: options.parentSession })
    }
    return header
  })

/** Starts a new session in the record: `rows` (the header first) applied and pending, nothing on disk. */
export const startNew = (core: Core, rows: ReadonlyArray<OwnRow>, file: string | undefined): void => {
  core.file = file
  core.state = SessionState.empty()
  core.pending = []
  core.onDisk = false
  core.snapshot = undefined
  core.snapshotStale = false
  core.knownEnd = 0
  core.lineCount = 0
  core.tailId = null
  core.hasAssistant = false
  core.recoveredCorruptHeader = false
  core.report = emptyReport
  core.syncedToken = undefined
  let offset = 0
  for (const [i, row] of rows.entries()) {
    const text = textOf(row)
    applyOwn(core, row, i + 1, offset)
    core.pending.push({ row, text })
    offset += Buffer.byteLength(text) + 1
  }
}

/** Puts `header` in place of the state's header (rebuilding the state from its rows; the leaf is kept). */
export const replaceHeader = (core: Core, header: Entry.SessionHeader): void => {
  const leaf = core.state.leafId
  const rows = SessionState.rows(core.state).map((row) => row === core.state.headerLine ? { ...row, header } : row)
  core.state = SessionState.fromRecords(rows)
  SessionState.navigate(core.state, leaf)
  core.pending = core.pending.map((p) =>
    p.row._tag === "Header" ? { row: { _tag: "Header", header }, text: JSON.stringify(header) } : p
  )
}

/** Applies an own row at a position. */
export const applyOwn = (core: Core, row: OwnRow, line: number, offset: number): void => {
  applyLine(
    core,
    row._tag === "Entry"
      ? { _tag: "Entry", entry: row.entry, line, offset }
      : row._tag === "LeafControl"
      ? { _tag: "LeafControl", control: row.control, line, offset }
      : { _tag: "Header", header: row.header, line, offset }
  )
}

/** Takes over a direct scan (or a cache hit) as the record's state. */
const adopt = (core: Core, scan: {
  readonly state: SessionState.SessionState
  readonly snapshot: Scan["snapshot"]
  readonly endOffset: number
  readonly lineCount: number
  readonly tailId: string | null
  readonly hasAssistant: boolean
}): void => {
  core.state = scan.state
  core.snapshot = scan.snapshot
  core.snapshotStale = false
  core.knownEnd = scan.endOffset
  core.lineCount = scan.lineCount
  core.tailId = scan.tailId
  core.hasAssistant = scan.hasAssistant
  core.pending = []
  core.onDisk = true
  core.syncedToken = undefined
}

const reportOf = (scan: Scan, extra: Partial<LoadReport>): LoadReport => ({
  ...emptyReport,
  corrupt: scan.corrupt,
  tornTail: scan.tornTail,
  bytesRead: scan.bytesRead,
  ...extra
})

/** A cache hit: the private copy advanced by the new tail, and a clone for the caller. */
const fromCache = (core: Core, path: string) =>
  Effect.gen(function*() {
    const { files, snapshots } = core.services
    const key = files.canonical(path)
    const entry = Cache.get(files, key)
    if (entry === undefined) return false
    const change = yield* snapshots.classify(path, entry.snapshot)
    let bytesRead = 0
    if (change._tag === "Appended") {
      const tail = yield* files.readFrom(path, change.fromOffset, { firstLine: entry.lineCount + 1 }).pipe(
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(undefined))
      )
      const last = tail?.lines[tail.lines.length - 1]
      if (tail === undefined || (last !== undefined && !last.terminated)) {
        Cache.remove(files, key)
        return false
      }
      for (const l of tail.lines) {
        const parsed = Line.parse(l.text, l.line, l.offset)
        SessionState.apply(entry.state, parsed)
        const id = rowId(parsed)
        if (id !== undefined) entry.tailId = id
        if (parsed._tag === "Entry" && !entry.hasAssistant && isAssistant(parsed.entry)) entry.hasAssistant = true
        if (parsed._tag === "Corrupt") entry.corrupt.push({ line: l.line, offset: l.offset, reason: parsed.reason })
      }
      const snapshot = yield* snapshots.capture(path, { upTo: tail.endOffset })
      if (snapshot._tag === "None") {
        Cache.remove(files, key)
        return false
      }
      entry.snapshot = snapshot.value
      entry.endOffset = tail.endOffset
      entry.lineCount += tail.lines.length
      bytesRead = tail.bytesRead
    } else if (change._tag !== "Unchanged") {
      Cache.remove(files, key)
      return false
    }
    adopt(core, { ...entry, state: SessionState.clone(entry.state) })
    core.report = { ...emptyReport, corrupt: [...entry.corrupt], bytesRead, fromCache: true }
    return true
  })

const rememberInCache = (core: Core, path: string, scan: Scan): void => {
  if (scan.snapshot === undefined || scan.tornTail !== undefined || !Cache.fits(scan.snapshot.size)) return
  Cache.put(core.services.files, core.services.files.canonical(path), {
    state: SessionState.clone(scan.state),
    snapshot: scan.snapshot,
    endOffset: scan.endOffset,
    lineCount: scan.lineCount,
    tailId: scan.tailId,
    hasAssistant: scan.hasAssistant,
    corrupt: [...scan.corrupt]
  })
}

/** Folds collected lines (migrated when needed, with a recovered header first when needed) in memory. */
const recoverLines = (core: Core, scan: Scan) =>
  Effect.gen(function*() {
    const lines = scan.lines
    const headerIndex = lines.findIndex((l) => l._tag === "Header")
    const firstRow = lines.findIndex((l) => l._tag !== "Blank" && l._tag !== "Corrupt")
    const recovered = headerIndex === -1 || headerIndex !== firstRow
    let ordered: Array<Line.ParsedLine> = lines
    if (recovered) {
      const header: Line.ParsedLine = headerIndex === -1
        ? { _tag: "Header", header: yield* newHeader(core), line: 0, offset: 0 }
        : lines[headerIndex]!
      ordered = [header, ...lines.filter((_, i) => i !== headerIndex)]
    }
    const ids = core.services.ids
    const migration = Migration.migrate(ordered, (taken) => IdSource.entryId(ids, (id) => taken.has(id)))
    return { lines: migration.lines, recovered, migratedFrom: migration.changed ? migration.fromVersion : undefined }
  })

/** The serialized content of some lines, in batches (no whole-file string). */
export const contentOf = (lines: ReadonlyArray<Line.ParsedLine>): Stream.Stream<string> =>
  Stream.fromIterable(lines).pipe(
    Stream.map((line) => Line.serialize(line) + "\n"),
    Stream.grouped(2048),
    Stream.map((chunk) => Array.from(chunk).join(""))
  )

/** Opens `path` into the record. A missing or empty file starts a new session at that path. */
export const openInto = (
  core: Core,
  path: string,
  options: { readonly readOnly: boolean; readonly useCache: boolean }
): Effect.Effect<void, OpenError> =>
  Effect.gen(function*() {
    core.file = path
    core.recoveredCorruptHeader = false
    if (options.useCache && (yield* fromCache(core, path))) return
    const scan = yield* scanFile(core.services, path)
    if (isEmpty(scan)) {
      startNew(core, [{ _tag: "Header", header: yield* newHeader(core) }], path)
      return
    }
    if (scan.direct) {
      adopt(core, scan)
      core.report = reportOf(scan, {})
      if (options.useCache) rememberInCache(core, path, scan)
      return
    }
    if (options.readOnly) {
      const { lines, migratedFrom, recovered } = yield* recoverLines(core, scan)
      core.recoveredCorruptHeader = recovered
      adoptLines(core, lines, scan)
      core.report = reportOf(scan, { migratedFrom, recoveredCorruptHeader: recovered })
      return
    }
    yield* core.services.locks.withLock(path, rewriteOnOpen(core, path, scan), core.options.lock)
  })

const isEmpty = (scan: Scan): boolean => !scan.exists || (scan.lineCount === 0 && scan.endOffset === 0)

/**
 * Migration or header recovery of a writable open, under the transcript lock: what the scan
 * (taken without the lock) saw is checked against the file first, and the file is read again if
 * anything changed, so that the rewrite holds every row another writer added meanwhile (or, when
 * another writer migrated it meanwhile, nothing is rewritten at all).
 */
const rewriteOnOpen = (core: Core, path: string, first: Scan) =>
  Effect.gen(function*() {
    const { files, snapshots } = core.services
    const change = first.snapshot === undefined ? undefined : yield* snapshots.classify(path, first.snapshot)
    const scan = change?._tag === "Unchanged" ? first : yield* scanFile(core.services, path)
    const bytesBefore = scan === first ? first.bytesRead : first.bytesRead + scan.bytesRead
    if (isEmpty(scan)) {
      startNew(core, [{ _tag: "Header", header: yield* newHeader(core) }], path)
      return
    }
    if (scan.direct) {
      adopt(core, scan)
      core.report = reportOf(scan, { bytesRead: bytesBefore })
      return
    }
    const { lines, migratedFrom, recovered } = yield* recoverLines(core, scan)
    core.recoveredCorruptHeader = recovered
    const replaced = yield* files.replace(path, contentOf(lines), { backup: recovered ? "corrupt" : "backup" })
    const again = yield* scanFile(core.services, path)
    if (!again.direct) {
      // cannot happen for what we just wrote; keep what we have in memory
      const state = SessionState.fromRecords(lines)
      adopt(core, { ...again, state })
    } else adopt(core, again)
    core.report = reportOf(scan, {
      migratedFrom,
      recoveredCorruptHeader: recovered,
      backups: replaced.backup === undefined ? [] : [replaced.backup],
      rewritten: true,
      bytesRead: bytesBefore + again.bytesRead
    })
  })

/** Folds recovered or migrated lines into a fresh state and adopts it with the scan's snapshot. */
const adoptLines = (core: Core, lines: ReadonlyArray<Line.ParsedLine>, scan: Scan): void => {
  const state = SessionState.empty()
  core.state = state
  core.tailId = null
  core.hasAssistant = false
  for (const line of lines) applyLine(core, line)
  adopt(core, { ...core, state, snapshot: scan.snapshot, endOffset: scan.endOffset, lineCount: scan.lineCount })
}

/** Re-reads the whole file (after a foreign rewrite), re-applies pending rows, keeps the leaf if it still exists. */
export const rebuild = (core: Core): Effect.Effect<void, FileSystemError> =>
  Effect.gen(function*() {
    const path = core.file!
    const savedLeaf = core.state.leafId
    const pending = core.pending
    const scan = yield* scanFile(core.services, path)
    if (scan.direct) adopt(core, scan)
    else {
      const { lines } = yield* recoverLines(core, scan)
      adoptLines(core, lines, scan)
    }
    if (!scan.exists) core.onDisk = false
    let line = core.lineCount + 1
    let offset = core.knownEnd
    for (const p of pending) {
      if (p.row._tag === "Header") continue
      applyOwn(core, p.row, line++, offset)
      offset += Buffer.byteLength(p.text) + 1
    }
    core.pending = pending.filter((p) => p.row._tag !== "Header" || !core.onDisk)
    if (savedLeaf === null || SessionState.hasId(core.state, savedLeaf)) SessionState.navigate(core.state, savedLeaf)
  })
