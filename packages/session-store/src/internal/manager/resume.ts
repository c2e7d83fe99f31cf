/**
 * The bounded open of a manager (`SessionManager.resume`): through the store's optional
 * `loadActive`, the state holds only the active path since the last compaction (a partial
 * `SessionState`). The rest is loaded only by an effect: `loadFull`, and the writes that need it
 * (`needing`, `whole`) as a step of their own. A synchronous read never loads: it answers from the
 * bounded state where that answer is exactly the full open's, else throws `SessionNotLoadedError`.
 * The writes that move the leaf load the rest first where the new leaf's context could not be built
 * from the bounded state, so the leaf's context always can. A store without `loadActive`, or one
 * that answers with a full load, gives an ordinary open.
 */
import type { Entry, SessionContext as Ctx } from "@branchlog/session-core"
import { SessionContext, SessionState, Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import { SessionNotLoadedError } from "../../SessionError.js"
import type * as SessionRef from "../../SessionRef.js"
import type { ActiveLoaded, ActiveOptions, Loaded, StoreFailure } from "../../TranscriptStore.js"
import type { Core } from "./core.js"
import { pathField } from "./core.js"
import { adopt, adoptKeepingLeaf, newHeader, openInto, startNew } from "./load.js"

/** What a manager keeps of a bounded open until it loads the rest. */
export interface Bounded {
  /** The settings rows before the path's start (see `ActiveLoaded.before`). */
  readonly before: ReadonlyArray<Entry.Entry>
  /** `true` when the path starts at a root (it holds no compaction): every prefix of it is whole. */
  readonly fromRoot: boolean
  /**
   * The id of the loaded path's first entry (`undefined`: no entry). A path of the state that does
   * not start there starts at a root this manager appended (after `resetLeaf`), so it is whole.
   */
  readonly start: string | undefined
  /**
   * `true` when the loaded path starts at its only compaction: the store started it there because
   * that compaction keeps no entry of the path before it (its own, or one elsewhere), so a path
   * through it takes nothing from before it. (A compaction a later one keeps starts a path too.)
   */
  readonly startsAtCompaction: boolean
  readonly mayHaveId: (id: string) => boolean
  readonly loadRest: Effect.Effect<Loaded, StoreFailure>
}

/** Opens `ref` bounded when the store can, else as `openInto` does. */
export const resumeInto = (
  core: Core,
  ref: SessionRef.SessionRef,
  options: { readonly readOnly: boolean; readonly writeIndex: boolean }
): Effect.Effect<void, StoreFailure> =>
  Effect.gen(function*() {
    const store = core.services.store
    if (store.loadActive === undefined) {
      return yield* openInto(core, ref, { readOnly: options.readOnly, useCache: true })
    }
    core.ref = ref
    core.recoveredCorruptHeader = false
    const activeOptions: ActiveOptions = {
      readOnly: options.readOnly,
      cwd: core.cwd,
      writeIndex: options.writeIndex,
      ...(core.options.lock === undefined ? {} : { lock: core.options.lock })
    }
    const result = yield* store.loadActive(ref, activeOptions)
    if (result._tag === "Full") {
      const loaded = result.loaded
      if (!loaded.exists) {
        startNew(core, [{ _tag: "Header", header: yield* newHeader(core) }], ref)
        core.report = loaded.report
        return
      }
      adopt(core, loaded)
      core.index = options.readOnly ? undefined : result.index
      core.report = loaded.report
      core.recoveredCorruptHeader = loaded.report.recoveredCorruptHeader
      return
    }
    adoptActive(core, result)
    // the leaf's context answers from the bounded state (see `movingTo`): else the rest, now
    const leaf = core.state.leafId
    if (leaf !== null && contextPath(core, core.bounded!, leaf) === undefined) yield* loadFull(core)
  })

const adoptActive = (core: Core, active: ActiveLoaded): void => {
  core.state = active.state
  core.cursor = active.cursor
  core.end = active.end
  core.tailId = active.tailId
  core.hasAssistant = active.hasAssistant
  core.pending = []
  core.onDisk = true
  core.report = active.report
  core.index = active.index
  core.bounded = {
    before: active.before,
    fromRoot: !active.state.entries.some((e) => e.type === "compaction"),
    start: active.state.entries[0]?.id,
    startsAtCompaction: active.state.entries[0]?.type === "compaction" &&
      !active.state.entries.slice(1).some((e) => e.type === "compaction"),
    mayHaveId: active.mayHaveId,
    loadRest: active.loadRest
  }
}

/** Loads the rest of a bounded session (its failures as the store's), keeping the leaf; nothing to do otherwise. */
export const loadFull = (core: Core): Effect.Effect<void, StoreFailure> =>
  Effect.suspend(() => {
    const bounded = core.bounded
    return bounded === undefined
      ? Effect.void
      : Effect.map(bounded.loadRest, (loaded) => adoptKeepingLeaf(core, loaded))
  })

/** Loads the rest first unless `answers()`, asked of the bounded state, says it holds what `effect` needs. */
const unless = <A, E, R>(
  core: Core,
  answers: (bounded: Bounded) => boolean,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  Effect.suspend(() =>
    core.bounded !== undefined && !answers(core.bounded)
      ? Effect.zipRight(loadFull(core), Effect.suspend(effect))
      : effect()
  )

/** Loads the rest first unless every id given is in the bounded state (`null` always is). */
export const needing = <A, E, R>(
  core: Core,
  ids: ReadonlyArray<string | null | undefined>,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  unless(core, () => ids.every((id) => typeof id !== "string" || SessionState.hasId(core.state, id)), effect)

/** Loads the rest first (for what needs the whole session). */
export const whole = <A, E, R>(
  core: Core,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> => unless(core, () => false, effect)

/**
 * `branch(id)`: loads the rest first unless `id` is in the bounded state and the context there can
 * be built from it (else the leaf's context would need the rest).
 */
export const movingTo = <A, E, R>(
  core: Core,
  id: string,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  unless(core, (bounded) => contextPath(core, bounded, id) !== undefined, effect)

/**
 * `branchWithSummary(fromId)`: the summary becomes the leaf, a child of `fromId` (`null`: a new
 * root, whose path is whole): loads the rest first unless the context there can be built from the
 * bounded state.
 */
export const summarisingAt = <A, E, R>(
  core: Core,
  fromId: string | null,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  unless(core, (bounded) => fromId === null || contextPath(core, bounded, fromId) !== undefined, effect)

/**
 * `appendCompaction(…, firstKeptEntryId)`: the compaction becomes the leaf; loads the rest first
 * unless it keeps nothing or keeps an entry on the loaded path to where it is appended (else its
 * context would need the rest).
 */
export const compactingAt = <A, E, R>(
  core: Core,
  firstKeptEntryId: string | null,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  unless(
    core,
    () =>
      firstKeptEntryId === null ||
      Tree.getBranch(core.state, core.state.appendParentId).some((e) => e.id === firstKeptEntryId),
    effect
  )

/** The error a synchronous read of a bounded session throws when the bounded state cannot answer it. */
export const notLoaded = (core: Core, method: string): SessionNotLoadedError =>
  new SessionNotLoadedError({ ...pathField(core), method })

/** Throws `SessionNotLoadedError` for `method` unless the whole session is loaded. */
export const requireWhole = (core: Core, method: string): void => {
  if (core.bounded !== undefined) throw notLoaded(core, method)
}

/**
 * Whether the bounded state can tell about `id`: `"loaded"` (it holds it), `"absent"` (the session
 * certainly does not hold it: `mayHaveId`), `"unknown"` (only the rest can tell).
 */
const lookup = (core: Core, bounded: Bounded, id: string): "loaded" | "absent" | "unknown" =>
  core.state.byId.has(id) ? "loaded" : bounded.mayHaveId(id) ? "unknown" : "absent"

/** The path to `id` (in the state) and whether it starts at the loaded path's first entry. */
const pathTo = (core: Core, bounded: Bounded, id: string) => {
  const branch = Tree.getBranch(core.state, id)
  return { branch, fromStart: branch.length > 0 && branch[0]!.id === bounded.start }
}

/**
 * The path that builds the context at `leafId` exactly as the whole session does (the settings
 * rows before the loaded path first when it starts there), or `undefined` when only the rest can:
 * `leafId` not in the state, or the path starts at the loaded path's first entry (behind which
 * the session goes on) and its last compaction keeps none of the path loaded (there is none, as
 * after a branch to an entry before the compaction, or it keeps an entry that may lie before the
 * loaded path's start), unless it is the loaded path's first entry and `startsAtCompaction`.
 */
const contextPath = (core: Core, bounded: Bounded, leafId: string): ReadonlyArray<Entry.Entry> | undefined => {
  if (!core.state.byId.has(leafId)) return undefined
  const { branch, fromStart } = pathTo(core, bounded, leafId)
  if (!fromStart) return branch
  const path = [...bounded.before, ...branch]
  if (bounded.fromRoot) return path
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry.type !== "compaction") continue
    if (i === 0 && bounded.startsAtCompaction) return path
    const kept = SessionContext.firstKeptEntryId(core.state, entry)
    return kept === null || kept === entry.id || branch.slice(0, i).some((e) => e.id === kept) ? path : undefined
  }
  return undefined
}

/**
 * `buildSessionContext(leafId)` (default: the leaf) of a bounded session from its state, where
 * that is exactly the whole session's (always at the leaf: see `movingTo`); else throws
 * `SessionNotLoadedError`. A whole session answers from its state.
 */
export const context = (core: Core, leafId?: string | null): Ctx.SessionContext => {
  const bounded = core.bounded
  if (bounded === undefined) return SessionContext.buildSessionContext(core.state, leafId)
  const leaf = leafId === undefined ? core.state.leafId : leafId
  if (leaf === null) return { messages: [], thinkingLevel: "off", model: null }
  const path = contextPath(core, bounded, leaf)
  if (path === undefined) throw notLoaded(core, "buildSessionContext")
  return SessionContext.fromPath(core.state, path)
}

/**
 * `true` when the path to `leafId` (default: the leaf) holds a `thinking_level_change`. A bounded
 * session answers for every entry it holds (from the path and, for a path from the loaded path's
 * start, the settings rows before it: `Bounded.before` holds the last level change before the
 * start) and for an id the session certainly does not hold (`false`, as the whole session
 * answers); else throws `SessionNotLoadedError`.
 */
export const hasThinkingLevelChange = (core: Core, leafId?: string | null): boolean => {
  const bounded = core.bounded
  const leaf = leafId === undefined ? core.state.leafId : leafId
  if (leaf === null) return false
  const isLevel = (e: Entry.Entry) => e.type === "thinking_level_change"
  if (bounded === undefined) return Tree.getBranch(core.state, leaf).some(isLevel)
  switch (lookup(core, bounded, leaf)) {
    case "absent":
      return false
    case "unknown":
      throw notLoaded(core, "hasThinkingLevelChange")
    case "loaded": {
      const { branch, fromStart } = pathTo(core, bounded, leaf)
      return (fromStart && bounded.before.some(isLevel)) || branch.some(isLevel)
    }
  }
}

/**
 * `getBranch(fromId)` (default: the leaf) of a bounded session: answered when the path is whole
 * in the state (the loaded path starts at a root, or the path starts at a root this manager
 * appended) and for an id the session certainly does not hold (`[]`); else throws
 * `SessionNotLoadedError`.
 */
export const branch = (core: Core, fromId?: string | null): Array<Entry.Entry> => {
  const bounded = core.bounded
  if (bounded === undefined) return Tree.getBranch(core.state, fromId)
  const id = fromId === undefined ? core.state.leafId : fromId
  if (id === null) return []
  switch (lookup(core, bounded, id)) {
    case "absent":
      return []
    case "unknown":
      throw notLoaded(core, "getBranch")
    case "loaded": {
      const { branch, fromStart } = pathTo(core, bounded, id)
      if (bounded.fromRoot || !fromStart) return branch
      throw notLoaded(core, "getBranch")
    }
  }
}

/**
 * `getEntry(id)` of a bounded session: the entry when the state holds it, `undefined` when the
 * session certainly does not hold it; else throws `SessionNotLoadedError`.
 */
export const entry = (core: Core, id: string): Entry.Entry | undefined => {
  const bounded = core.bounded
  if (bounded === undefined) return Tree.getEntry(core.state, id)
  switch (lookup(core, bounded, id)) {
    case "loaded":
      return Tree.getEntry(core.state, id)
    case "absent":
      return undefined
    case "unknown":
      throw notLoaded(core, "getEntry")
  }
}

/**
 * `getChildren(parentId)` of a bounded session: `[]` for an id the session certainly does not
 * hold; else throws `SessionNotLoadedError` (the rest may hold children of any entry, roots too).
 */
export const children = (core: Core, parentId: string | null): Array<Entry.Entry> => {
  const bounded = core.bounded
  if (bounded === undefined) return Tree.getChildren(core.state, parentId)
  if (parentId !== null && lookup(core, bounded, parentId) === "absent") return []
  throw notLoaded(core, "getChildren")
}
