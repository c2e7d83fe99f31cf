/**
 * What every store and the manager do with rows alike (no I/O): a fresh header, the id a row
 * carries, folding rows into a state with the trackers a load reports, and header recovery and
 * migration of rows read from anywhere.
 */
import { Entry, Migration, SessionState } from "@branchlog/session-core"
import type { Line } from "@branchlog/session-core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as IdSource from "../../IdSource.js"

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

/** A fresh header for `cwd` (UUIDv7 id unless given, timestamp from `Clock`). */
export const newHeader = (
  cwd: string,
  options: { readonly id?: string | undefined; readonly parentSession?: string | undefined } = {}
): Effect.Effect<Entry.SessionHeader> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const id = options.id ?? (yield* IdSource.uuidv7)
    const header: Entry.SessionHeader = {
      type: "session",
      version: Entry.CURRENT_SESSION_VERSION,
      id,
      timestamp: isoTime(now),
      cwd,
      ...(options.parentSession === undefined ? {} : { parentSession: options.parentSession })
    }
    return header
  })

/** A state and its trackers. */
export interface Folded {
  readonly state: SessionState.SessionState
  readonly tailId: string | null
  readonly hasAssistant: boolean
}

/** Folds rows into a fresh state. */
export const fold = (lines: Iterable<Line.ParsedLine>): Folded => {
  const state = SessionState.empty()
  const tail = SessionState.emptyTail()
  for (const line of lines) SessionState.applyTail(state, tail, line)
  return { state, ...tail }
}

/** `true` when rows start with a current-version header (no recovery, no migration needed). */
export const isCurrent = (lines: ReadonlyArray<Line.ParsedLine>): boolean => {
  const first = lines.find((l) => l._tag !== "Blank" && l._tag !== "Corrupt")
  return first?._tag === "Header" && !Migration.needsMigration(Migration.versionOf(first.header))
}

/**
 * Header recovery (the first `session` row anywhere moved first, else a fresh header for `cwd`)
 * and migration of older versions (new entry ids from the `IdSource`), in memory.
 */
export const recover = (lines: ReadonlyArray<Line.ParsedLine>, cwd: string) =>
  Effect.gen(function*() {
    const headerIndex = lines.findIndex((l) => l._tag === "Header")
    const firstRow = lines.findIndex((l) => l._tag !== "Blank" && l._tag !== "Corrupt")
    const recovered = headerIndex === -1 || headerIndex !== firstRow
    let ordered: ReadonlyArray<Line.ParsedLine> = lines
    if (recovered) {
      const header: Line.ParsedLine = headerIndex === -1
        ? { _tag: "Header", header: yield* newHeader(cwd), line: 0, offset: 0 }
        : lines[headerIndex]!
      ordered = [header, ...lines.filter((_, i) => i !== headerIndex)]
    }
    const ids = yield* IdSource.current
    const migration = Migration.migrate(ordered, (taken) => IdSource.entryId(ids, (id) => taken.has(id)))
    return {
      lines: migration.lines,
      recovered,
      migratedFrom: migration.changed ? migration.fromVersion : undefined
    }
  })

/**
 * Every row of a state in order with the blank lines (which the state does not keep) put back
 * where they were (by line number): what a load's `rows()` gives.
 */
export const withBlanks = (
  state: SessionState.SessionState,
  blanks: ReadonlyArray<Line.BlankLine>
): Array<Line.ParsedLine> => {
  const rows: Array<Line.ParsedLine> = SessionState.rows(state)
  if (blanks.length === 0) return rows
  const out: Array<Line.ParsedLine> = []
  let b = 0
  for (const row of rows) {
    while (b < blanks.length && blanks[b]!.line < row.line) out.push(blanks[b++]!)
    out.push(row)
  }
  while (b < blanks.length) out.push(blanks[b++]!)
  return out
}
