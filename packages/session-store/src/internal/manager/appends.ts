/**
 * The append API of spec §4: each call builds one entry under the current leaf (id from the id
 * source, unique in the session; timestamp from `Clock`), commits it, and returns its id.
 */
import type { AgentMessage, Entry } from "@branchlog/session-core"
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import { AppendBatchError, EntryNotFoundError } from "../../SessionError.js"
import type { Core } from "./core.js"
import { isoTime, mintId } from "./core.js"
import type { WriteError } from "./persist.js"
import { commit, withWriteLock } from "./persist.js"

/** The fields every entry starts with, in the references' key order. */
export interface Base {
  readonly id: string
  readonly parentId: string | null
  readonly timestamp: string
}

/** Appends one entry made from the base fields; returns its id. */
export const appendEntry = (
  core: Core,
  make: (base: Base) => Entry.Entry,
  operation: string,
  assistant = false
): Effect.Effect<string, WriteError> =>
  commit(
    core,
    (
      now
    ) => [{
      _tag: "Entry",
      entry: make({ id: mintId(core), parentId: core.state.leafId, timestamp: isoTime(now) })
    }],
    { assistant, operation }
  ).pipe(Effect.map((rows) => (rows[0]!._tag === "Entry" ? rows[0]!.entry.id : "")))

/** `appendMessage`. */
export const appendMessage = (core: Core, message: AgentMessage.AgentMessage) =>
  appendEntry(
    core,
    (b) => ({ type: "message", ...b, message }) as Entry.Entry,
    "appendMessage",
    message.role === "assistant"
  )

/**
 * `appendMessages`: the messages in order, under one hold of the transcript lock (each its own
 * write of one line). A failure part-way fails with `AppendBatchError`, which says how many of
 * them were written (and how many wait, pending, for the session's first flush).
 */
export const appendMessages = (
  core: Core,
  messages: ReadonlyArray<AgentMessage.AgentMessage>
): Effect.Effect<ReadonlyArray<string>, AppendBatchError> =>
  Effect.suspend(() => {
    const ids: Array<string> = []
    const append = Effect.forEach(
      messages,
      (message) => Effect.map(appendMessage(core, message), (id) => void ids.push(id)),
      { discard: true }
    )
    return (messages.length === 0 ? Effect.void : withWriteLock(core, append)).pipe(
      Effect.as(ids),
      Effect.mapError((error) => {
        const pending = new Set<string>()
        for (const p of core.pending) if (p.row._tag === "Entry") pending.add(p.row.entry.id)
        const waiting = ids.filter((id) => pending.has(id)).length
        return new AppendBatchError({
          ...(core.file === undefined ? {} : { path: core.file }),
          written: ids.length - waiting,
          pending: waiting,
          total: messages.length,
          error
        })
      })
    )
  })

/** `appendThinkingLevelChange`. */
export const appendThinkingLevelChange = (core: Core, thinkingLevel: string) =>
  appendEntry(core, (b) => ({ type: "thinking_level_change", ...b, thinkingLevel }), "appendThinkingLevelChange")

/** `appendModelChange`. */
export const appendModelChange = (core: Core, provider: string, modelId: string) =>
  appendEntry(core, (b) => ({ type: "model_change", ...b, provider, modelId }), "appendModelChange")

/** `appendCompaction` (no validation of `firstKeptEntryId`, as in the references). */
export const appendCompaction = (
  core: Core,
  summary: string,
  firstKeptEntryId: string,
  tokensBefore: number,
  details?: unknown,
  fromHook?: boolean
) =>
  appendEntry(
    core,
    (b) => ({ type: "compaction", ...b, summary, firstKeptEntryId, tokensBefore, details, fromHook }) as Entry.Entry,
    "appendCompaction"
  )

/** `appendCustomEntry` (pi's key order: type, customType, data, id, parentId, timestamp). */
export const appendCustomEntry = (core: Core, customType: string, data?: unknown) =>
  appendEntry(core, (b) => ({ type: "custom", customType, data, ...b }) as Entry.Entry, "appendCustomEntry")

/** `appendCustomMessageEntry`. */
export const appendCustomMessageEntry = (
  core: Core,
  customType: string,
  content: Entry.CustomMessageEntry["content"],
  display: boolean,
  details?: unknown
) =>
  appendEntry(
    core,
    (b) => ({ type: "custom_message", customType, content, display, details, ...b }) as Entry.Entry,
    "appendCustomMessageEntry"
  )

/** `appendSessionInfo`: the name is stored trimmed. */
export const appendSessionInfo = (core: Core, name: string) =>
  appendEntry(core, (b) => ({ type: "session_info", ...b, name: name.trim() }), "appendSessionInfo")

/** `appendLabelChange`: fails with `EntryNotFoundError` for an unknown target; `undefined` or `""` clears. */
export const appendLabelChange = (
  core: Core,
  targetId: string,
  label: string | undefined
): Effect.Effect<string, WriteError | EntryNotFoundError> =>
  core.state.byId.has(targetId) || SessionState.hasId(core.state, targetId)
    ? appendEntry(core, (b) => ({ type: "label", ...b, targetId, label }) as Entry.Entry, "appendLabelChange")
    : Effect.fail(new EntryNotFoundError({ id: targetId, ...(core.file === undefined ? {} : { path: core.file }) }))
