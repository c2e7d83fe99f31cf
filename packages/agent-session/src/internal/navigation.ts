/**
 * `navigateTree` and `fork` of spec §13. A user (or custom) message as target moves the leaf to
 * its parent and gives its text back for editing; any other target becomes the leaf. With
 * `summarize`, the branch being left (the old path below the point where it meets the new one)
 * is summarised by the model and attached at the new position with `branchWithSummary` (a label
 * goes on the summary); else the leaf moves with `branch` / `resetLeaf` (a label goes on the
 * target). `fork` of a user message starts a new session holding the path to its parent (a new
 * empty session, linked by `parentSession`, for a root message).
 */
import type { AgentMessage, Entry } from "@branchlog/session-core"
import { LlmMessages, SessionContext, Tree } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import { type CompactionError, NavigationError } from "../AgentError.js"
import * as Compaction from "../Compaction.js"
import type { LanguageModelShape } from "../LanguageModel.js"

/** Options of `navigateTree`. */
export interface NavigateOptions {
  readonly summarize?: boolean
  readonly label?: string
  /** Extra instructions for the branch summary. */
  readonly instructions?: string
}

/** What `navigateTree` did. */
export interface NavigateResult {
  /** The new leaf (`null`: before the first entry). */
  readonly leafId: string | null
  /** The text of the target user message, for editing. */
  readonly editorText?: string
  readonly summaryEntryId?: string
}

/** What `fork` did. */
export interface ForkResult {
  readonly editorText: string
  /** The new session file (`undefined` in memory). */
  readonly sessionFile: string | undefined
}

type Errors = SessionManager.WriteError | SessionManager.EntryNotFoundError | NavigationError | CompactionError

const contentText = (content: AgentMessage.UserContent): string =>
  typeof content === "string" ? content : content.map((b) => b.type === "text" ? b.text : "").join("")

const find = (sm: SessionManager.SessionManager, id: string) => {
  const entry = sm.getEntry(id)
  return entry === undefined
    ? Effect.fail(new NavigationError({ entryId: id, reason: "not found" }))
    : Effect.succeed(entry)
}

const userTextOf = (entry: Entry.Entry): string | undefined => {
  if (entry.type === "custom_message") return contentText(entry.content)
  if (entry.type === "message" && entry.message.role === "user") {
    return contentText((entry.message as AgentMessage.UserMessage).content)
  }
  return undefined
}

/** The entries of the current path that are not on the path to `leafId`, root first. */
export const abandonedEntries = (
  sm: SessionManager.SessionManager,
  leafId: string | null
): ReadonlyArray<Entry.Entry> => {
  const keep = new Set(leafId === null ? [] : sm.getBranch(leafId).map((e) => e.id))
  const old = sm.getBranch()
  let i = old.length - 1
  while (i >= 0 && !keep.has(old[i]!.id)) i--
  return old.slice(i + 1)
}

/** Moves the leaf as spec §13's `/tree` does. */
export const navigateTree = (
  sm: SessionManager.SessionManager,
  model: LanguageModelShape,
  modelRef: { readonly provider: string; readonly id: string },
  targetId: string,
  options: NavigateOptions = {}
): Effect.Effect<NavigateResult, Errors> =>
  Effect.gen(function*() {
    // the target, its parent and the abandoned branch may lie anywhere: a bounded manager loads the rest
    yield* sm.loadFull()
    const target = yield* find(sm, targetId)
    const editorText = userTextOf(target)
    const leafId = editorText === undefined ? target.id : Tree.parentOf(sm.getState(), target)
    const base = editorText === undefined ? { leafId } : { leafId, editorText }
    if (options.summarize === true) {
      const abandoned = abandonedEntries(sm, leafId)
      const messages: Array<AgentMessage.ContextMessage> = []
      for (const e of abandoned) {
        const m = SessionContext.messageOf(e)
        if (m !== undefined) messages.push(m)
      }
      if (messages.length > 0) {
        const summary = yield* Compaction.summarize(
          model,
          Compaction.summaryRequest({
            purpose: "branchSummary",
            model: modelRef,
            messages: LlmMessages.convertToLlm(messages),
            instructions: options.instructions
          })
        )
        const summaryEntryId = yield* sm.branchWithSummary(leafId, summary, Compaction.collectFileDetails(messages))
        if (options.label !== undefined) yield* sm.appendLabelChange(summaryEntryId, options.label)
        return { ...base, summaryEntryId }
      }
    }
    if (leafId === null) yield* sm.resetLeaf()
    else yield* sm.branch(leafId)
    if (options.label !== undefined) yield* sm.appendLabelChange(target.id, options.label)
    return base
  })

/** Forks at a user message (spec §13 `/fork`). */
export const fork = (sm: SessionManager.SessionManager, entryId: string): Effect.Effect<ForkResult, Errors> =>
  Effect.gen(function*() {
    // the entry and its parent may lie anywhere: a bounded manager loads the rest
    yield* sm.loadFull()
    const entry = yield* find(sm, entryId)
    const editorText = entry.type === "message" && entry.message.role === "user" ? userTextOf(entry) : undefined
    if (editorText === undefined) {
      return yield* new NavigationError({ entryId, reason: "only a user message can be forked" })
    }
    const parent = Tree.parentOf(sm.getState(), entry)
    const previous = sm.getSessionFile()
    const sessionFile = parent === null
      ? yield* sm.newSession(previous === undefined ? {} : { parentSession: previous })
      : yield* sm.createBranchedSession(parent)
    return { editorText, sessionFile }
  })
