/**
 * The bounded view of a session: a partial `SessionState` holding the active path from the last
 * compaction's kept entry (or the root) to the leaf, with the whole session's leaf, labels and
 * name, and the rows before the path's start that settle the context's thinking level and model.
 */
import type { Entry, Line, SessionContext as Ctx } from "@branchlog/session-core"
import { SessionContext, SessionState, Tree } from "@branchlog/session-core"
import type { Summary } from "./format.js"

/** The rows a bounded view is made of (read by offset, or taken from a full fold). */
export interface ViewRows {
  readonly header: Line.HeaderLine
  readonly before: ReadonlyArray<Entry.Entry>
  readonly segment: ReadonlyArray<{ readonly entry: Entry.Entry; readonly line: number; readonly offset: number }>
  readonly sessionInfo: Entry.SessionInfoEntry | undefined
}

/** A bounded view. */
export interface View {
  readonly state: SessionState.SessionState
  readonly before: ReadonlyArray<Entry.Entry>
}

/** The partial state of a summary and its rows. */
export const assemble = (summary: Summary, rows: ViewRows): View => ({
  state: SessionState.fromActivePath(rows.header, rows.segment, {
    leafId: summary.leafId,
    appendParentId: summary.appendParentId,
    labels: summary.labels.map(([target, label, timestamp]) => [target, { label, timestamp }] as const),
    latestSessionInfo: rows.sessionInfo
  }),
  before: rows.before
})

/** The context at the visible leaf of a bounded view (as `buildSessionContext` of the whole state). */
export const contextOf = (view: View): Ctx.SessionContext => {
  const leaf = view.state.leafId
  if (leaf === null || !view.state.byId.has(leaf)) return { messages: [], thinkingLevel: "off", model: null }
  return SessionContext.fromPath(view.state, [...view.before, ...Tree.getBranch(view.state, leaf)])
}

const labelsOf = (state: SessionState.SessionState) =>
  JSON.stringify([...state.labels].map(([t, l]) => [t, l.label, l.timestamp]).sort())

/** `true` when two states (and their contexts at the leaf) give the same leaf, name, labels and context. */
export const sameAnswers = (
  full: SessionState.SessionState,
  fullContext: Ctx.SessionContext,
  partial: SessionState.SessionState,
  partialContext: Ctx.SessionContext
): boolean =>
  full.leafId === partial.leafId && full.appendParentId === partial.appendParentId &&
  Tree.getSessionName(full) === Tree.getSessionName(partial) && labelsOf(full) === labelsOf(partial) &&
  JSON.stringify(fullContext) === JSON.stringify(partialContext) &&
  JSON.stringify(full.header) === JSON.stringify(partial.header)
