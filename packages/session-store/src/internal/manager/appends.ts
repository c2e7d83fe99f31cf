/**
 * The append API of spec §4: each call builds one entry under the current leaf (id from the id
 * source, unique in the session; timestamp from `Clock`), commits it, and returns its id;
 * `appendMessages` builds its entries in a chain and commits them at once.
 */
import type { AgentMessage } from "@branchlog/session-core"
import { Entry, SessionContext, SessionState, Tree } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import { AppendBatchError, ContextEditRefusedError, EntryNotFoundError } from "../../SessionError.js"
import type { Core, OwnRow } from "./core.js"
import { isoTime, mintId, pathField } from "./core.js"
import type { WriteError } from "./persist.js"
import { commit } from "./persist.js"

/**
 * The fields every entry starts with, in the references' key order. Each build gets a fresh object:
 * the entry's builder adds its own fields to it (`Object.assign(b, { message })`), which on V8 is
 * about 25× cheaper than a spread into a new literal (`{ ...b, message }`: ~2 µs, as much as the
 * JSON encoding of the entry); the constructors copy the fields they keep into the entry.
 */
export interface Base {
  readonly id: string
  readonly parentId: string | null
  readonly timestamp: string
}

/** The build of one entry made from the base fields (under the current leaf, at `now`). */
const one = (core: Core, make: (base: Base) => Entry.Entry) => (now: number): ReadonlyArray<OwnRow> => [{
  _tag: "Entry",
  entry: make({ id: mintId(core), parentId: core.state.leafId, timestamp: isoTime(now) })
}]

/** Appends one entry made from the base fields; returns it as written. */
const appendAndReturn = <A extends Entry.Entry>(
  core: Core,
  make: (base: Base) => A,
  operation: string,
  assistant = false
): Effect.Effect<A, WriteError> =>
  commit(core, one(core, make), { assistant, operation }).pipe(
    Effect.map((rows) => (rows[0] as { readonly entry: A }).entry)
  )

/** Appends one entry made from the base fields; returns its id (one step after the write). */
export const appendEntry = (
  core: Core,
  make: (base: Base) => Entry.Entry,
  operation: string,
  assistant = false
): Effect.Effect<string, WriteError> =>
  Effect.map(
    commit(core, one(core, make), { assistant, operation }),
    (rows) => (rows[0] as { readonly entry: Entry.Entry }).entry.id
  )

/** `appendMessage`. */
export const appendMessage = (core: Core, message: AgentMessage.AgentMessage) =>
  appendEntry(
    core,
    (b) => Entry.makeMessage(Object.assign(b, { message })),
    "appendMessage",
    message.role === "assistant"
  )

/**
 * The build of a batch of messages: one entry each, in order, the first under the current leaf and
 * each next under the one before (as many `appendMessage` calls would chain them), ids unique in the
 * session and among themselves, one timestamp (`now`: the batch is one commit).
 */
const batch = (core: Core, messages: ReadonlyArray<AgentMessage.AgentMessage>) => (now: number) => {
  const rows: Array<OwnRow> = new Array(messages.length)
  const minted = new Set<string>()
  const timestamp = isoTime(now)
  let parentId = core.state.leafId
  for (let i = 0; i < messages.length; i++) {
    const id = mintId(core, minted)
    minted.add(id)
    rows[i] = { _tag: "Entry", entry: Entry.makeMessage({ id, parentId, timestamp, message: messages[i]! }) }
    parentId = id
  }
  return rows
}

/**
 * `appendMessages`: the messages in order, as ONE commit (`commit` with every row at once): the
 * entries are built as that many `appendMessage` calls would build them (ids, parents chained,
 * applied to the state in order), then kept pending together when the session does not flush yet
 * (no assistant message so far, none in the batch, not eager), else handed to the store in one
 * `append` (one write of several lines for files, one transaction for SQL) together with the rows
 * pending before them. All or nothing: a failure leaves the state as it was before the batch (no
 * entry of it applied, the leaf unchanged) and fails with `AppendBatchError` (`written: 0`).
 */
export const appendMessages = (
  core: Core,
  messages: ReadonlyArray<AgentMessage.AgentMessage>
): Effect.Effect<ReadonlyArray<string>, AppendBatchError> =>
  Effect.suspend(() =>
    messages.length === 0
      ? Effect.succeed([])
      : commit(core, batch(core, messages), {
        assistant: messages.some((message) => message.role === "assistant"),
        operation: "appendMessages"
      }).pipe(
        Effect.map((rows) => rows.map((row) => (row as { readonly entry: Entry.Entry }).entry.id)),
        Effect.mapError((error) =>
          new AppendBatchError({ ...pathField(core), written: 0, pending: 0, total: messages.length, error })
        )
      )
  )

/** `appendThinkingLevelChange`. */
export const appendThinkingLevelChange = (core: Core, thinkingLevel: string) =>
  appendEntry(
    core,
    (b) => Entry.makeThinkingLevelChange(Object.assign(b, { thinkingLevel })),
    "appendThinkingLevelChange"
  )

/** `appendModelChange`. */
export const appendModelChange = (core: Core, provider: string, modelId: string) =>
  appendEntry(core, (b) => Entry.makeModelChange(Object.assign(b, { provider, modelId })), "appendModelChange")

/**
 * `appendCompaction` (no validation of `firstKeptEntryId`, as in the references). `null` keeps
 * nothing before the compaction and is stored as the compaction's own id, `usage` is the
 * summarising call's, and `systemMessage` is the context's system messages replayed into one
 * (`SessionContext.currentSystemMessage`, stamped with the compaction's time), as pi 1.6 writes them.
 */
export const appendCompaction = (
  core: Core,
  summary: string,
  firstKeptEntryId: string | null,
  tokensBefore: number,
  details?: unknown,
  fromHook?: boolean,
  usage?: Entry.UsageEntry["usage"]
) =>
  appendEntry(
    core,
    (b) => {
      // pi 1.6: the system messages of the context so far, replayed into one
      const systemMessage = SessionContext.currentSystemMessage(SessionContext.buildSessionContext(core.state).messages)
      return Entry.makeCompaction(Object.assign(b, {
        summary,
        firstKeptEntryId: firstKeptEntryId ?? b.id,
        tokensBefore,
        details,
        usage,
        fromHook,
        systemMessage: systemMessage ? { ...systemMessage, timestamp: Date.parse(b.timestamp) } : undefined
      }))
    },
    "appendCompaction"
  )

/**
 * `appendUsage` (pi 1.6): the tokens and cost of a model call that is not a message (`kind`, e.g.
 * `"cache_warm"`); `note` only when given. Returns the entry, as pi 1.6 does.
 */
export const appendUsage = (
  core: Core,
  kind: string,
  provider: string,
  model: string,
  usage: Entry.UsageEntry["usage"],
  note?: string
): Effect.Effect<Entry.UsageEntry, WriteError> =>
  appendAndReturn(
    core,
    (b) => Entry.makeUsage(Object.assign(b, { kind, provider, model, usage, note: note || undefined })),
    "appendUsage"
  )

/** What a context edit puts in place of its target's contribution (`null` removes it). */
export type ContextEditReplacement = Entry.ContextEditEntry["replacement"]

const isReplacement = (replacement: unknown): boolean =>
  replacement === null ||
  (typeof replacement === "object" && "content" in replacement &&
    (typeof replacement.content === "string" || Array.isArray(replacement.content)))

/**
 * `appendContextEdit` (pi 1.6): rewrites what `targetId` contributes to the context from here on
 * (spec §15). Refuses, as pi 1.6 does and in its order, a replacement that is neither `null` nor
 * `{content}` with string or array content, an unknown target (`EntryNotFoundError`), a target
 * off the active branch, and one that is not a user, assistant or tool result message or a custom
 * message (`ContextEditRefusedError`). A string replacement of an assistant or tool result message
 * is stored as one text block. Returns the edit's id.
 */
export const appendContextEdit = (
  core: Core,
  targetId: string,
  replacement: ContextEditReplacement
): Effect.Effect<string, WriteError | EntryNotFoundError | ContextEditRefusedError> => {
  const path = pathField(core)
  const refuse = (reason: ContextEditRefusedError["reason"]) =>
    Effect.fail(new ContextEditRefusedError({ targetId, reason, ...path }))
  if (!isReplacement(replacement)) return refuse("invalid replacement")
  const target = core.state.byId.get(targetId)
  if (target === undefined) {
    return SessionState.hasId(core.state, targetId)
      ? refuse("not editable") // an opaque row or leaf control: never in the context
      : Effect.fail(new EntryNotFoundError({ id: targetId, ...path }))
  }
  if (!Tree.getBranch(core.state).some((entry) => entry.id === targetId)) return refuse("not on the active branch")
  const role = target.type === "message" ? target.message.role : target.type === "custom_message" ? "custom" : ""
  if (!(role === "user" || role === "assistant" || role === "toolResult" || role === "custom")) {
    return refuse("not editable")
  }
  const stored: ContextEditReplacement = replacement !== null && (role === "assistant" || role === "toolResult") &&
      typeof replacement.content === "string"
    ? { content: [{ type: "text", text: replacement.content }] }
    : replacement
  return appendEntry(
    core,
    (b) => Entry.makeContextEdit(Object.assign(b, { targetId, replacement: stored })),
    "appendContextEdit"
  )
}

/** `appendCustomEntry` (pi's key order: type, customType, data, id, parentId, timestamp). */
export const appendCustomEntry = (core: Core, customType: string, data?: unknown) =>
  appendEntry(core, (b) => Entry.makeCustom(Object.assign(b, { customType, data })), "appendCustomEntry")

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
    (b) => Entry.makeCustomMessage(Object.assign(b, { customType, content, display, details })),
    "appendCustomMessageEntry"
  )

/** `appendSessionInfo`: the name is stored trimmed. */
export const appendSessionInfo = (core: Core, name: string) =>
  appendEntry(core, (b) => Entry.makeSessionInfo(Object.assign(b, { name: name.trim() })), "appendSessionInfo")

/** `appendLabelChange`: fails with `EntryNotFoundError` for an unknown target; `undefined` or `""` clears. */
export const appendLabelChange = (
  core: Core,
  targetId: string,
  label: string | undefined
): Effect.Effect<string, WriteError | EntryNotFoundError> =>
  core.state.byId.has(targetId) || SessionState.hasId(core.state, targetId)
    ? appendEntry(core, (b) => Entry.makeLabel(Object.assign(b, { targetId, label })), "appendLabelChange")
    : Effect.fail(new EntryNotFoundError({ id: targetId, ...pathField(core) }))
