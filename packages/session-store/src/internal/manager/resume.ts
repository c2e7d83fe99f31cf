/**
 * The bounded open of a manager (`SessionManager.resume`): through the store's optional
 * `loadActive`, the state holds only the active path since the last compaction (a partial
 * `SessionState`); what needs the rest of the session loads it on demand, transparently (the
 * synchronous reads through the store's synchronous effects, the writes as a step of their own).
 * A store without `loadActive`, or one that answers with a full load, gives an ordinary open.
 */
import type { Entry, SessionContext as Ctx } from "@branchlog/session-core"
import { SessionContext, SessionState, Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type * as SessionRef from "../../SessionRef.js"
import type { ActiveLoaded, ActiveOptions, Loaded, StoreFailure } from "../../TranscriptStore.js"
import type { Core } from "./core.js"
import { adopt, adoptKeepingLeaf, newHeader, openInto, startNew } from "./load.js"

/** What a manager keeps of a bounded open until it loads the rest. */
export interface Bounded {
  /** The settings rows before the path's start (see `ActiveLoaded.before`). */
  readonly before: ReadonlyArray<Entry.Entry>
  /** `true` when the path starts at a root (it holds no compaction): every prefix of it is whole. */
  readonly fromRoot: boolean
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
    mayHaveId: active.mayHaveId,
    loadRest: active.loadRest
  }
}

/** Loads the rest of a bounded session now (synchronously: the store's reads are), keeping the leaf. */
export const ensureFull = (core: Core): void => {
  const bounded = core.bounded
  if (bounded === undefined) return
  adoptKeepingLeaf(core, Effect.runSync(bounded.loadRest))
}

/** `ensureFull` as an effect (its failures as the store's). */
export const loadFull = (core: Core): Effect.Effect<void, StoreFailure> =>
  Effect.suspend(() => {
    const bounded = core.bounded
    return bounded === undefined
      ? Effect.void
      : Effect.map(bounded.loadRest, (loaded) => adoptKeepingLeaf(core, loaded))
  })

/** Loads the rest first unless every id given is in the bounded state (`null` always is). */
export const needing = <A, E, R>(
  core: Core,
  ids: ReadonlyArray<string | null | undefined>,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  Effect.suspend(() =>
    core.bounded !== undefined && ids.some((id) => typeof id === "string" && !SessionState.hasId(core.state, id))
      ? Effect.zipRight(loadFull(core), Effect.suspend(effect))
      : effect()
  )

/** Loads the rest first (for what needs the whole session). */
export const whole = <A, E, R>(
  core: Core,
  effect: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  Effect.suspend(() => core.bounded === undefined ? effect() : Effect.zipRight(loadFull(core), Effect.suspend(effect)))

/**
 * `true` when the context at `leafId` can be built from the bounded state alone: the path holds
 * every row from the root, or its last compaction keeps an entry on the path loaded (one kept
 * before the loaded path's start, as after a branch to an entry behind a later compaction, is not).
 */
const bounds = (core: Core, bounded: Bounded, leafId: string): boolean => {
  if (!core.state.byId.has(leafId)) return false
  if (bounded.fromRoot) return true
  const branch = Tree.getBranch(core.state, leafId)
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!
    if (entry.type !== "compaction") continue
    const kept = SessionContext.firstKeptEntryId(core.state, entry)
    return kept === null || kept === entry.id || branch.slice(0, i).some((e) => e.id === kept)
  }
  return false
}

/** The context at `leafId` (default: the leaf), from the bounded path when it can be, else from the whole session. */
export const context = (core: Core, leafId?: string | null): Ctx.SessionContext => {
  const bounded = core.bounded
  const leaf = leafId === undefined ? core.state.leafId : leafId
  if (bounded !== undefined && leaf === null) return { messages: [], thinkingLevel: "off", model: null }
  if (bounded !== undefined && bounds(core, bounded, leaf!)) {
    return SessionContext.fromPath(core.state, [...bounded.before, ...Tree.getBranch(core.state, leaf!)])
  }
  ensureFull(core)
  return SessionContext.buildSessionContext(core.state, leafId)
}

/**
 * `true` when the path to `leafId` (default: the leaf) holds a `thinking_level_change`: a bounded
 * session answers from its path and the settings rows before it (`Bounded.before` holds the last
 * one of the path before its start), else from the whole session.
 */
export const hasThinkingLevelChange = (core: Core, leafId?: string | null): boolean => {
  const bounded = core.bounded
  const leaf = leafId === undefined ? core.state.leafId : leafId
  if (leaf === null) return false
  const isLevel = (e: Entry.Entry) => e.type === "thinking_level_change"
  if (bounded !== undefined && bounds(core, bounded, leaf)) {
    return bounded.before.some(isLevel) || Tree.getBranch(core.state, leaf).some(isLevel)
  }
  ensureFull(core)
  return Tree.getBranch(core.state, leaf).some(isLevel)
}
