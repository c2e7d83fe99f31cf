/**
 * Loading a JSONL transcript: the store's cache (tail-only re-reads), the streaming pass, header
 * recovery and migration (rewritten atomically after a backup on writable loads, under the
 * transcript lock, after checking what the first pass saw; in memory only on read-only loads).
 */
import { Line, SessionState } from "@branchlog/session-core"
import { fold, recover, withBlanks } from "@branchlog/session-store/StoreRows"
import type { LoadOptions, LoadReport } from "@branchlog/session-store/TranscriptStore"
import { emptyReport } from "@branchlog/session-store/TranscriptStore"
import type { Loaded } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as OversizedLine from "../../OversizedLine.js"
import { JsonlCursor, toCursor } from "./cursor.js"
import type { Env } from "./env.js"
import type { Scan } from "./scan.js"
import { scanFile } from "./scan.js"

/** Nothing there: a missing or empty file. */
export const nothing = (bytesRead = 0): Loaded => ({
  exists: false,
  state: SessionState.empty(),
  rows: () => [],
  cursor: undefined,
  end: { line: 0, offset: 0 },
  tailId: null,
  hasAssistant: false,
  report: { ...emptyReport, bytesRead }
})

/** `true` for a scan of a missing or empty file. */
export const isEmpty = (scan: Scan): boolean => !scan.exists || (scan.lineCount === 0 && scan.endOffset === 0)

const cursorOf = (scan: Scan) =>
  toCursor(new JsonlCursor(scan.snapshot, { line: scan.lineCount, offset: scan.endOffset }, false))

const reportOf = (scan: Scan, extra: Partial<LoadReport>): LoadReport => ({
  ...emptyReport,
  corrupt: scan.corrupt,
  oversized: scan.oversized,
  tornTail: scan.tornTail,
  bytesRead: scan.bytesRead,
  ...extra
})

/** A direct scan (current version, header first) as a load. */
export const direct = (scan: Scan, extra: Partial<LoadReport> = {}): Loaded => ({
  exists: true,
  state: scan.state,
  rows: () => withBlanks(scan.state, scan.blanks),
  cursor: cursorOf(scan),
  end: { line: scan.lineCount, offset: scan.endOffset },
  tailId: scan.tailId,
  hasAssistant: scan.hasAssistant,
  report: reportOf(scan, extra)
})

/** Recovered or migrated lines (in memory) with the scan's snapshot. */
const recovered = (
  scan: Scan,
  lines: ReadonlyArray<Line.ParsedLine>,
  extra: Partial<LoadReport>
): Loaded => {
  const folded = fold(lines)
  const blanks = lines.filter((l): l is Line.BlankLine => l._tag === "Blank")
  return {
    exists: true,
    state: folded.state,
    rows: () => withBlanks(folded.state, blanks),
    cursor: cursorOf(scan),
    end: { line: scan.lineCount, offset: scan.endOffset },
    tailId: folded.tailId,
    hasAssistant: folded.hasAssistant,
    report: reportOf(scan, extra)
  }
}

/** A cache hit: the private copy advanced by the new tail, and a clone for the caller. */
const fromCache = (env: Env, path: string) =>
  Effect.gen(function*() {
    const { cache, files, snapshots } = env
    const key = env.keyOf(path)
    const entry = cache.get(key)
    if (entry === undefined) return undefined
    const change = yield* snapshots.classify(path, entry.snapshot)
    let bytesRead = 0
    if (change._tag === "Appended") {
      const tail = yield* files.readFrom(path, change.fromOffset, { firstLine: entry.lineCount + 1 }).pipe(
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(undefined))
      )
      const last = tail?.lines[tail.lines.length - 1]
      // an oversized line appended: a full read reports it
      if (
        tail === undefined || (last !== undefined && !last.terminated) ||
        tail.lines.some((l) => l.oversized !== undefined)
      ) {
        cache.remove(key)
        return undefined
      }
      for (const l of tail.lines) {
        const parsed = Line.parse(l.text, l.line, l.offset)
        SessionState.applyTail(entry.state, entry, parsed)
        if (parsed._tag === "Corrupt") entry.corrupt.push({ line: l.line, offset: l.offset, reason: parsed.reason })
        if (parsed._tag === "Blank") entry.blanks.push(parsed)
      }
      const snapshot = yield* snapshots.capture(path, { upTo: tail.endOffset })
      if (snapshot._tag === "None") {
        cache.remove(key)
        return undefined
      }
      entry.snapshot = snapshot.value
      entry.endOffset = tail.endOffset
      entry.lineCount += tail.lines.length
      bytesRead = tail.bytesRead
    } else if (change._tag !== "Unchanged") {
      cache.remove(key)
      return undefined
    }
    const state = SessionState.clone(entry.state)
    const blanks = [...entry.blanks]
    const loaded: Loaded = {
      exists: true,
      state,
      rows: () => withBlanks(state, blanks),
      cursor: toCursor(new JsonlCursor(entry.snapshot, { line: entry.lineCount, offset: entry.endOffset }, false)),
      end: { line: entry.lineCount, offset: entry.endOffset },
      tailId: entry.tailId,
      hasAssistant: entry.hasAssistant,
      report: { ...emptyReport, corrupt: [...entry.corrupt], bytesRead, fromCache: true }
    }
    return loaded
  })

const remember = (env: Env, path: string, scan: Scan): void => {
  if (
    scan.snapshot === undefined || scan.tornTail !== undefined || scan.oversized.length > 0 ||
    !env.cache.fits(scan.snapshot.size)
  ) return
  env.cache.put(env.keyOf(path), {
    state: SessionState.clone(scan.state),
    snapshot: scan.snapshot,
    endOffset: scan.endOffset,
    lineCount: scan.lineCount,
    tailId: scan.tailId,
    hasAssistant: scan.hasAssistant,
    corrupt: [...scan.corrupt],
    blanks: [...scan.blanks]
  })
}

/** Loads `path`. A writable load that needs a migration or header recovery rewrites the file under the lock. */
export const load = (env: Env, path: string, options: LoadOptions) =>
  Effect.gen(function*() {
    if (options.cache !== false) {
      const hit = yield* fromCache(env, path)
      if (hit !== undefined) return hit
    }
    const scan = yield* scanFile(env, path)
    if (isEmpty(scan)) return nothing(scan.bytesRead)
    if (scan.direct) {
      if (options.cache !== false) remember(env, path, scan)
      return direct(scan)
    }
    if (options.readOnly === true) {
      const { lines, migratedFrom, recovered: rec } = yield* recover(scan.lines, options.cwd)
      return recovered(scan, lines, { migratedFrom, recoveredCorruptHeader: rec })
    }
    const locks = yield* env.locks
    return yield* locks.withLock(path, rewriteOnLoad(env, path, scan, options.cwd), options.lock)
  })

/** Reads the whole file again (recovery and migration in memory only, no cache). */
export const reload = (env: Env, path: string, cwd: string) => load(env, path, { readOnly: true, cache: false, cwd })

/**
 * Migration or header recovery of a writable load, under the transcript lock: what the first
 * scan (taken without the lock) saw is checked against the file, and the file is read again if
 * anything changed, so that the rewrite holds every row another writer added meanwhile (or, when
 * another writer migrated it meanwhile, nothing is rewritten at all).
 */
const rewriteOnLoad = (env: Env, path: string, first: Scan, cwd: string) =>
  Effect.gen(function*() {
    const change = first.snapshot === undefined ? undefined : yield* env.snapshots.classify(path, first.snapshot)
    const scan = change?._tag === "Unchanged" ? first : yield* scanFile(env, path)
    const bytesBefore = scan === first ? first.bytesRead : first.bytesRead + scan.bytesRead
    if (isEmpty(scan)) return nothing(bytesBefore)
    if (scan.direct) return direct(scan, { bytesRead: bytesBefore })
    const { lines, migratedFrom, recovered: rec } = yield* recover(scan.lines, cwd)
    const replaced = yield* env.files.replace(path, OversizedLine.content(lines), {
      backup: rec ? "corrupt" : "backup"
    })
    env.lastWrite.delete(env.keyOf(path))
    env.cache.remove(env.keyOf(path))
    const again = yield* scanFile(env, path)
    const extra: Partial<LoadReport> = {
      migratedFrom,
      recoveredCorruptHeader: rec,
      backups: replaced.backup === undefined ? [] : [replaced.backup],
      rewritten: true,
      bytesRead: bytesBefore + again.bytesRead
    }
    // the rewrite is read back; `recovered` only if it could not be read directly (it cannot happen)
    const loaded = again.direct ? direct(again, extra) : recovered(again, lines, extra)
    return {
      ...loaded,
      report: { ...loaded.report, corrupt: scan.corrupt, oversized: scan.oversized, tornTail: scan.tornTail }
    }
  })
