/**
 * Moving the leaf and starting sessions from a path: `branch`, `resetLeaf` and
 * `branchWithSummary` (a persisted session writes OpenClaw's leaf-control row, so the position
 * survives a reopen), `createBranchedSession` and `newSession`.
 */
import { Entry, SessionState, Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import { EntryNotFoundError } from "../../SessionError.js"
import * as SessionRef from "../../SessionRef.js"
import type { Core, OwnRow } from "./core.js"
import { isoTime, mintId, pathField, stored } from "./core.js"
import { newHeader, startNew } from "./load.js"
import type { WriteError } from "./persist.js"
import { commit, flush, flushes } from "./persist.js"

const notFound = (core: Core, id: string) => new EntryNotFoundError({ id, ...pathField(core) })

const writesControls = (core: Core): boolean => stored(core)

/** A leaf control to `targetId`, unless the leaf is already there. */
const controlTo = (core: Core, targetId: string | null, now: number, taken: Set<string>): Array<OwnRow> => {
  const resolved = SessionState.resolveCanonical(core.state, targetId)
  if (core.state.leafId === resolved && core.state.appendParentId === resolved) return []
  const id = mintId(core, taken)
  taken.add(id)
  const control = Entry.makeLeafControl({ id, parentId: core.tailId, timestamp: isoTime(now), targetId })
  return [{ _tag: "LeafControl", control }]
}

/** Moves the leaf to `id` (or to no leaf with `null`); persisted sessions write a leaf control. */
export const moveLeaf = (
  core: Core,
  id: string | null,
  operation: string
): Effect.Effect<void, WriteError | EntryNotFoundError> =>
  Effect.suspend((): Effect.Effect<void, WriteError | EntryNotFoundError> => {
    if (id !== null && !SessionState.hasId(core.state, id)) return Effect.fail(notFound(core, id))
    if (!writesControls(core)) {
      SessionState.navigate(core.state, id)
      return Effect.void
    }
    return Effect.asVoid(commit(core, (now) => controlTo(core, id, now, new Set()), { operation }))
  })

/** `resetLeaf`: the leaf before the first entry (the next append is a new root); persisted as a leaf control. */
export const resetLeaf = (core: Core): Effect.Effect<void, WriteError> =>
  Effect.suspend((): Effect.Effect<void, WriteError> => {
    if (!writesControls(core)) {
      SessionState.navigate(core.state, null)
      return Effect.void
    }
    return Effect.asVoid(commit(core, (now) => controlTo(core, null, now, new Set()), { operation: "resetLeaf" }))
  })

/**
 * `branchWithSummary(fromId | null, summary, details?, fromHook?, usage?)`: returns the summary's id.
 * `usage` (the summarising call's) is stored before `fromHook`, where pi 1.6 puts it.
 */
export const branchWithSummary = (
  core: Core,
  fromId: string | null,
  summary: string,
  details?: unknown,
  fromHook?: boolean,
  usage?: Entry.UsageEntry["usage"]
): Effect.Effect<string, WriteError | EntryNotFoundError> =>
  Effect.suspend((): Effect.Effect<string, WriteError | EntryNotFoundError> => {
    if (fromId !== null && !SessionState.hasId(core.state, fromId)) return Effect.fail(notFound(core, fromId))
    if (!writesControls(core)) SessionState.navigate(core.state, fromId)
    return commit(core, (now) => {
      const taken = new Set<string>()
      const rows: Array<OwnRow> = writesControls(core) ? controlTo(core, fromId, now, taken) : []
      const parentId = SessionState.resolveCanonical(core.state, fromId)
      const entry = Entry.makeBranchSummary({
        id: mintId(core, taken),
        parentId,
        timestamp: isoTime(now),
        fromId: fromId ?? "root",
        summary,
        details,
        usage,
        fromHook
      })
      rows.push({ _tag: "Entry", entry })
      return rows
    }, { operation: "branchWithSummary" }).pipe(
      Effect.map((rows) => {
        const last = rows[rows.length - 1]!
        return last._tag === "Entry" ? last.entry.id : ""
      })
    )
  })

/**
 * `createBranchedSession(leafId)`: a new session holding the path to `leafId` (labels left out,
 * then re-created for the labelled entries on the path). Persisted sessions get a new file in the
 * same folder, written once the path holds an assistant message. Returns the new file, if any.
 */
export const createBranchedSession = (
  core: Core,
  leafId: string
): Effect.Effect<string | undefined, WriteError | EntryNotFoundError> =>
  Effect.gen(function*() {
    const path = Tree.getBranch(core.state, leafId)
    if (path.length === 0) return yield* notFound(core, leafId)
    const parentSession = core.persist && core.ref !== undefined ? SessionRef.format(core.ref) : undefined
    const header = yield* newHeader(core, { parentSession })
    const rows: Array<OwnRow> = [{ _tag: "Header", header }]
    const taken = new Set<string>()
    let previous: string | null = null
    const kept: Array<Entry.Entry> = []
    for (const entry of path) {
      if (entry.type === "label") continue
      taken.add(entry.id)
      // the same entry re-parented: the spread keeps every key (and its position), parentId replaced
      const normalized: Entry.Entry = entry.parentId === previous ? entry : { ...entry, parentId: previous }
      rows.push({ _tag: "Entry", entry: normalized })
      kept.push(entry)
      previous = entry.id
    }
    const labels: Array<{ readonly targetId: string; readonly label: string; readonly timestamp: string }> = []
    for (const entry of kept) {
      const info = core.state.labels.get(entry.id)
      if (info !== undefined) labels.push({ targetId: entry.id, label: info.label, timestamp: info.timestamp })
    }
    const oldState = core.state
    const ids = core.services.ids
    for (const label of labels) {
      const id = mintIn(ids, oldState, taken)
      taken.add(id)
      rows.push({
        _tag: "Entry",
        entry: Entry.makeLabel({
          id,
          parentId: previous,
          timestamp: label.timestamp,
          targetId: label.targetId,
          label: label.label
        })
      })
      previous = id
    }
    const ref = core.persist ? core.services.store.refFor(core.sessionDir, header) : undefined
    startNew(core, rows, ref)
    core.hasAssistant = kept.some(Entry.isAssistantMessage)
    if (flushes(core)) yield* flush(core)
    return ref === undefined ? undefined : SessionRef.format(ref)
  })

const mintIn = (ids: Core["services"]["ids"], state: SessionState.SessionState, taken: ReadonlySet<string>): string => {
  for (let i = 0; i < 100; i++) {
    const id = ids.uuid().slice(0, 8)
    if (!taken.has(id) && !SessionState.hasId(state, id)) return id
  }
  return ids.uuid()
}

/** `newSession({id?, parentSession?})`: a fresh session (a new file in the session folder when persisted). */
export const newSession = (
  core: Core,
  options: { readonly id?: string | undefined; readonly parentSession?: string | undefined } = {}
): Effect.Effect<string | undefined, WriteError> =>
  Effect.gen(function*() {
    const header = yield* newHeader(core, options)
    const ref = core.persist ? core.services.store.refFor(core.sessionDir, header) : undefined
    startNew(core, [{ _tag: "Header", header }], ref)
    if (flushes(core)) yield* flush(core)
    return ref === undefined ? undefined : SessionRef.format(ref)
  })
