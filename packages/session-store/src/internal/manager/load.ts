/**
 * Loading a session into a manager through its store (which does the caching, the recovery of a
 * header and the migration), starting new sessions, and re-reading after a foreign rewrite.
 */
import type { Entry } from "@branchlog/session-core"
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type * as SessionRef from "../../SessionRef.js"
import type { Loaded, StoreFailure } from "../../TranscriptStore.js"
import { emptyReport } from "../../TranscriptStore.js"
import * as Rows from "../store/rows.js"
import type { Core, OwnRow } from "./core.js"
import { applyOwn, textOf } from "./core.js"

/** Errors of opening a session (a writable open that migrates or recovers a file takes its lock). */
export type OpenError = StoreFailure

/** A fresh header for this manager's cwd (UUIDv7 id unless given, timestamp from `Clock`). */
export const newHeader = (
  core: Core,
  options: { readonly id?: string | undefined; readonly parentSession?: string | undefined } = {}
): Effect.Effect<Entry.SessionHeader> => Rows.newHeader(core.cwd, options)

/** Starts a new session in the record: `rows` (the header first) applied and pending, nothing stored. */
export const startNew = (core: Core, rows: ReadonlyArray<OwnRow>, ref: SessionRef.SessionRef | undefined): void => {
  core.ref = ref
  core.state = SessionState.empty()
  core.bounded = undefined
  core.index = undefined
  core.pending = []
  core.onDisk = false
  core.cursor = undefined
  core.end = { line: 0, offset: 0 }
  core.tailId = null
  core.hasAssistant = false
  core.recoveredCorruptHeader = false
  core.report = emptyReport
  let position = core.end
  for (const row of rows) {
    const text = textOf(row)
    const next = core.services.store.positionAfter(position, text, core.ref)
    applyOwn(core, row, { line: next.line, offset: position.offset })
    core.pending.push({ row, text })
    position = next
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

/** Takes over a load as the record's state (pending rows dropped). */
export const adopt = (core: Core, loaded: Loaded): void => {
  core.state = loaded.state
  core.bounded = undefined
  core.index = undefined
  core.cursor = loaded.cursor
  core.end = loaded.end
  core.tailId = loaded.tailId
  core.hasAssistant = loaded.hasAssistant
  core.pending = []
  core.onDisk = loaded.exists
}

/** Opens `ref` into the record. Nothing there (or an empty session) starts a new session at that reference. */
export const openInto = (
  core: Core,
  ref: SessionRef.SessionRef,
  options: { readonly readOnly: boolean; readonly useCache: boolean }
): Effect.Effect<void, OpenError> =>
  Effect.gen(function*() {
    core.ref = ref
    core.recoveredCorruptHeader = false
    const loaded = yield* core.services.store.load(ref, {
      readOnly: options.readOnly,
      cache: options.useCache,
      cwd: core.cwd,
      ...(core.options.lock === undefined ? {} : { lock: core.options.lock })
    })
    if (!loaded.exists) {
      startNew(core, [{ _tag: "Header", header: yield* newHeader(core) }], ref)
      core.report = loaded.report
      return
    }
    adopt(core, loaded)
    core.report = loaded.report
    core.recoveredCorruptHeader = loaded.report.recoveredCorruptHeader
  })

/** Adopts a fresh load, re-applies the pending rows after it, and keeps the leaf if it still exists. */
export const adoptKeepingLeaf = (core: Core, loaded: Loaded): void => {
  const savedLeaf = core.state.leafId
  const pending = core.pending
  // the same session: an index it keeps current stays (it stops by itself if the file moved on or was replaced)
  const index = core.index
  adopt(core, loaded)
  core.index = index
  let position = core.end
  for (const p of pending) {
    if (p.row._tag === "Header") continue
    const next = core.services.store.positionAfter(position, p.text, core.ref)
    applyOwn(core, p.row, { line: next.line, offset: position.offset })
    position = next
  }
  core.pending = pending.filter((p) => p.row._tag !== "Header" || !core.onDisk)
  if (savedLeaf === null || SessionState.hasId(core.state, savedLeaf)) SessionState.navigate(core.state, savedLeaf)
}

/** Re-reads the whole session (after a foreign rewrite), re-applies pending rows, keeps the leaf if it still exists. */
export const rebuild = (core: Core): Effect.Effect<void, StoreFailure> =>
  Effect.map(
    core.services.store.load(core.ref!, { readOnly: true, cache: false, cwd: core.cwd }),
    (loaded) => adoptKeepingLeaf(core, loaded)
  )
