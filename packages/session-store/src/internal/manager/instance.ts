/**
 * The `SessionManager` object over one manager's state (`Core`): every read answered from the
 * state (a bounded one answers what it can exactly and throws `SessionNotLoadedError` for the
 * rest), every write handed to the module that does it (appends, branching, persistence,
 * rewrites, resume; a bounded state loads the rest first where a write needs it).
 */
import { Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import { InvalidSessionFileError } from "../../SessionError.js"
import type { SessionManager, WriteError } from "../../SessionManager.js"
import * as SessionRef from "../../SessionRef.js"
import * as Appends from "./appends.js"
import * as Branching from "./branching.js"
import type { Core } from "./core.js"
import { replaceHeader, startNew } from "./load.js"
import * as Persist from "./persist.js"
import * as Resume from "./resume.js"
import * as Rewrites from "./rewrites.js"

/**
 * The manager over `core`: reads answered from its state, writes through the manager modules. A
 * bounded state (`resume`) answers the reads it can answer exactly; the others throw
 * `SessionNotLoadedError` (see `resume.ts`) until `loadFull()` (or a write that needs the rest) ran.
 */
export const make = (core: Core): SessionManager => {
  const state = () => core.state
  /** The whole state (a bounded one throws `SessionNotLoadedError` for `method`). */
  const whole = (method: string) => {
    Resume.requireWhole(core, method)
    return core.state
  }
  return {
    getCwd: () => core.cwd,
    getSessionDir: () => core.sessionDir,
    getSessionId: () => core.state.header?.id ?? "",
    getSessionFile: () => SessionRef.pathOf(core.ref),
    getSessionRef: () => core.ref,
    isPersisted: () => core.persist,
    isReadOnly: () => core.readOnly,
    getLeafId: () => core.state.leafId,
    // the leaf is always in a bounded state (its path is what was loaded)
    getLeafEntry: () => Tree.getLeafEntry(state()),
    getEntry: (id) => Resume.entry(core, id),
    getChildren: (parentId) => Resume.children(core, parentId),
    // labels are the whole session's in a bounded state too
    getLabel: (id) => Tree.getLabel(state(), id),
    getBranch: (fromId) => Resume.branch(core, fromId),
    getHeader: () => core.state.header ?? null,
    getEntries: () => whole("getEntries").entries,
    getTree: () => Tree.getTree(whole("getTree")),
    // the name is the whole session's in a bounded state too
    getSessionName: () => Tree.getSessionName(state()),
    buildSessionContext: (leafId) => Resume.context(core, leafId),
    hasThinkingLevelChange: (leafId) => Resume.hasThinkingLevelChange(core, leafId),
    getState: () => whole("getState"),
    getBoundedState: () => core.bounded === undefined ? undefined : core.state,
    hasAssistantMessage: () => core.hasAssistant,
    wasRecoveredFromCorruptHeader: () => core.recoveredCorruptHeader,
    loadReport: () => core.report,
    pendingCount: () => core.pending.length,
    isBounded: () => core.bounded !== undefined,
    loadFull: () => Resume.loadFull(core),

    appendMessage: (message) => Appends.appendMessage(core, message),
    appendMessages: (messages) => Appends.appendMessages(core, messages),
    appendThinkingLevelChange: (level) => Appends.appendThinkingLevelChange(core, level),
    appendModelChange: (provider, modelId) => Appends.appendModelChange(core, provider, modelId),
    appendCompaction: (summary, firstKeptEntryId, tokensBefore, details, fromHook, usage) =>
      Resume.needing(
        core,
        [firstKeptEntryId],
        () =>
          Resume.compactingAt(
            core,
            firstKeptEntryId,
            () => Appends.appendCompaction(core, summary, firstKeptEntryId, tokensBefore, details, fromHook, usage)
          )
      ),
    appendUsage: (kind, provider, model, usage, note) => Appends.appendUsage(core, kind, provider, model, usage, note),
    appendContextEdit: (targetId, replacement) =>
      Resume.needing(core, [targetId], () => Appends.appendContextEdit(core, targetId, replacement)),
    appendCustomEntry: (customType, data) => Appends.appendCustomEntry(core, customType, data),
    appendCustomMessageEntry: (customType, content, display, details) =>
      Appends.appendCustomMessageEntry(core, customType, content, display, details),
    appendLabelChange: (targetId, label) =>
      Resume.needing(core, [targetId], () => Appends.appendLabelChange(core, targetId, label)),
    appendSessionInfo: (name) => Appends.appendSessionInfo(core, name),
    branch: (id) => Resume.movingTo(core, id, () => Branching.moveLeaf(core, id, "branch")),
    resetLeaf: () => Branching.resetLeaf(core),
    branchWithSummary: (fromId, summary, details, fromHook, usage) =>
      Resume.summarisingAt(
        core,
        fromId,
        () => Branching.branchWithSummary(core, fromId, summary, details, fromHook, usage)
      ),
    createBranchedSession: (leafId) => Resume.whole(core, () => Branching.createBranchedSession(core, leafId)),
    newSession: (options) => Branching.newSession(core, options),
    flush: () => Persist.flush(core),
    refresh: () => Persist.refresh(core),
    withWriteLock: (effect) => Persist.withWriteLock(core, effect),
    setIdentity: (identity) => Resume.whole(core, () => Effect.sync(() => setIdentity(core, identity))),
    rewrite: (label = "backup") =>
      core.persist && core.ref !== undefined && !core.readOnly
        ? Resume.whole(core, () => Rewrites.rewriteFromState(core, label))
        : Effect.succeed([]),
    resetTranscript: () => Resume.whole(core, () => resetTranscript(core))
  }
}

/** Replaces the header (id, cwd) by rebuilding the state from its rows (a whole state); the leaf is kept. */
const setIdentity = (core: Core, identity: { readonly sessionId: string; readonly cwd: string }): boolean => {
  core.cwd = identity.cwd
  const header = core.state.header
  if (header === undefined || (header.id === identity.sessionId && header.cwd === identity.cwd)) return false
  replaceHeader(core, { ...header, id: identity.sessionId, cwd: identity.cwd })
  return true
}

const resetTranscript = (core: Core): Effect.Effect<string | undefined, WriteError | InvalidSessionFileError> =>
  Effect.gen(function*() {
    const header = core.state.header
    if (!core.persist || core.ref === undefined || core.readOnly || header === undefined) return undefined
    const ref = core.ref
    const outcome = yield* Rewrites.resetFile(core)
    if (!outcome.reset) {
      return yield* new InvalidSessionFileError({
        path: SessionRef.format(ref),
        reason: "Refusing to reset session transcript: another writer added an assistant message since it was read"
      })
    }
    startNew(core, [{ _tag: "Header", header }], ref)
    return outcome.backup
  })
