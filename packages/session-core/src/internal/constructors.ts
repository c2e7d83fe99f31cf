/**
 * Typed constructors of every row kind: each builds the exact member of the `Entry` union (or the
 * header, or the leaf control), with its keys in the order the references write them, and with
 * optional fields absent rather than `undefined`, so `JSON.stringify` of the result is the line
 * pi or OpenClaw would write. Pure: ids and timestamps are arguments.
 */
import type {
  BranchSummaryEntry,
  CompactionEntry,
  ContextEditEntry,
  CustomEntry,
  CustomMessageEntry,
  LabelEntry,
  LeafControl,
  MessageEntry,
  ModelChangeEntry,
  SessionHeader,
  SessionInfoEntry,
  ThinkingLevelChangeEntry,
  UsageEntry
} from "../Entry.js"
import { CURRENT_SESSION_VERSION } from "./version.js"

/** The fields every entry carries: its id, its parent (`null` for a root), its ISO time, and OpenClaw's side-append mark. */
export interface Base {
  readonly id: string
  readonly parentId: string | null
  readonly timestamp: string
  readonly appendMode?: "side" | undefined
}

/** Copies the defined values of `fields` onto `target`, in order (an `undefined` value is absent, as in a line). */
const defined = <T extends object>(target: T, fields: Record<string, unknown>): T => {
  for (const key in fields) {
    if (fields[key] !== undefined) (target as Record<string, unknown>)[key] = fields[key]
  }
  return target
}

/** `appendMode` comes last, where OpenClaw writes it. */
const withMode = <T extends object>(entry: T, base: Base): T =>
  base.appendMode === undefined ? entry : { ...entry, appendMode: base.appendMode }

/** `{type:"message", id, parentId, timestamp, message}`. */
export const makeMessage = (base: Base & { readonly message: MessageEntry["message"] }): MessageEntry =>
  withMode(
    { type: "message", id: base.id, parentId: base.parentId, timestamp: base.timestamp, message: base.message },
    base
  )

/** `{type:"thinking_level_change", id, parentId, timestamp, thinkingLevel}`. */
export const makeThinkingLevelChange = (base: Base & { readonly thinkingLevel: string }): ThinkingLevelChangeEntry =>
  withMode({
    type: "thinking_level_change",
    id: base.id,
    parentId: base.parentId,
    timestamp: base.timestamp,
    thinkingLevel: base.thinkingLevel
  }, base)

/** `{type:"model_change", id, parentId, timestamp, provider, modelId}`. */
export const makeModelChange = (
  base: Base & { readonly provider: string; readonly modelId: string }
): ModelChangeEntry =>
  withMode({
    type: "model_change",
    id: base.id,
    parentId: base.parentId,
    timestamp: base.timestamp,
    provider: base.provider,
    modelId: base.modelId
  }, base)

/** The fields of a compaction besides the base ones (`details`, `usage`, `fromHook`, `systemMessage` optional). */
export interface CompactionFields {
  readonly summary: string
  /** `null` (or the compaction's own id, as pi 1.6 stores `null`): nothing before it is kept. */
  readonly firstKeptEntryId: string | null
  readonly tokensBefore: number
  readonly details?: unknown
  readonly usage?: CompactionEntry["usage"] | undefined
  readonly fromHook?: boolean | undefined
  readonly systemMessage?: CompactionEntry["systemMessage"] | undefined
}

/** `{type:"compaction", id, parentId, timestamp, summary, firstKeptEntryId, tokensBefore, details?, usage?, fromHook?, systemMessage?}`. */
export const makeCompaction = (base: Base & CompactionFields): CompactionEntry =>
  withMode(
    defined({
      type: "compaction" as const,
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp,
      summary: base.summary,
      firstKeptEntryId: base.firstKeptEntryId,
      tokensBefore: base.tokensBefore
    }, { details: base.details, usage: base.usage, fromHook: base.fromHook, systemMessage: base.systemMessage }),
    base
  )

/** The fields of a branch summary besides the base ones. */
export interface BranchSummaryFields {
  /** The id the conversation branched from, or the literal `"root"`. */
  readonly fromId: string
  readonly summary: string
  readonly details?: unknown
  readonly usage?: BranchSummaryEntry["usage"] | undefined
  readonly fromHook?: boolean | undefined
}

/** `{type:"branch_summary", id, parentId, timestamp, fromId, summary, details?, usage?, fromHook?}`. */
export const makeBranchSummary = (base: Base & BranchSummaryFields): BranchSummaryEntry =>
  withMode(
    defined({
      type: "branch_summary" as const,
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp,
      fromId: base.fromId,
      summary: base.summary
    }, { details: base.details, usage: base.usage, fromHook: base.fromHook }),
    base
  )

/** `{type:"custom", customType, data?, id, parentId, timestamp}` (pi's key order). */
export const makeCustom = (base: Base & { readonly customType: string; readonly data?: unknown }): CustomEntry =>
  withMode(
    {
      ...defined({ type: "custom" as const, customType: base.customType }, { data: base.data }),
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp
    },
    base
  )

/** The fields of a custom message besides the base ones. */
export interface CustomMessageFields {
  readonly customType: string
  readonly content: CustomMessageEntry["content"]
  readonly display: boolean
  readonly details?: unknown
}

/** `{type:"custom_message", customType, content, display, details?, id, parentId, timestamp}` (pi's key order). */
export const makeCustomMessage = (base: Base & CustomMessageFields): CustomMessageEntry =>
  withMode(
    {
      ...defined({
        type: "custom_message" as const,
        customType: base.customType,
        content: base.content,
        display: base.display
      }, { details: base.details }),
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp
    },
    base
  )

/** `{type:"label", id, parentId, timestamp, targetId, label?}`: no or an empty `label` clears it. */
export const makeLabel = (
  base: Base & { readonly targetId: string; readonly label?: string | undefined }
): LabelEntry =>
  withMode(
    defined({
      type: "label" as const,
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp,
      targetId: base.targetId
    }, { label: base.label }),
    base
  )

/** `{type:"session_info", id, parentId, timestamp, name?}` (the name as given: the manager trims it). */
export const makeSessionInfo = (base: Base & { readonly name?: string | undefined }): SessionInfoEntry =>
  withMode(
    defined({ type: "session_info" as const, id: base.id, parentId: base.parentId, timestamp: base.timestamp }, {
      name: base.name
    }),
    base
  )

/** The fields of a pi 1.6 usage entry besides the base ones. */
export interface UsageFields {
  readonly kind: string
  readonly provider: string
  readonly model: string
  readonly usage: UsageEntry["usage"]
  readonly note?: string | undefined
}

/** `{type:"usage", id, parentId, timestamp, kind, provider, model, usage, note?}` (pi 1.6, spec §15). */
export const makeUsage = (base: Base & UsageFields): UsageEntry =>
  withMode(
    defined({
      type: "usage" as const,
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp,
      kind: base.kind,
      provider: base.provider,
      model: base.model,
      usage: base.usage
    }, { note: base.note }),
    base
  )

/** `{type:"context_edit", id, parentId, timestamp, targetId, replacement}` (pi 1.6, spec §15; `null` removes). */
export const makeContextEdit = (
  base: Base & { readonly targetId: string; readonly replacement: ContextEditEntry["replacement"] }
): ContextEditEntry =>
  withMode({
    type: "context_edit",
    id: base.id,
    parentId: base.parentId,
    timestamp: base.timestamp,
    targetId: base.targetId,
    replacement: base.replacement
  }, base)

/** The fields of a leaf control: the visible leaf `targetId`, the physical append parent `appendParentId` (default the target). */
export interface LeafControlFields {
  readonly targetId: string | null
  readonly appendParentId?: string | null | undefined
}

/** `{type:"leaf", id, parentId, timestamp, targetId, appendParentId?, appendMode?}`: OpenClaw's leaf control. */
export const makeLeafControl = (base: Base & LeafControlFields): LeafControl =>
  withMode(
    defined({
      type: "leaf" as const,
      id: base.id,
      parentId: base.parentId,
      timestamp: base.timestamp,
      targetId: base.targetId
    }, { appendParentId: base.appendParentId }),
    base
  )

/** The fields of a header: its id, ISO time and cwd; `version` defaults to the current one. */
export interface HeaderFields {
  readonly id: string
  readonly timestamp: string
  readonly cwd: string
  readonly version?: number | undefined
  /** The path of the session this one was forked or branched from. */
  readonly parentSession?: string | undefined
}

/** `{type:"session", version, id, timestamp, cwd, parentSession?}`: the first line of a file. */
export const makeHeader = (fields: HeaderFields): SessionHeader =>
  defined({
    type: "session" as const,
    version: fields.version ?? CURRENT_SESSION_VERSION,
    id: fields.id,
    timestamp: fields.timestamp,
    cwd: fields.cwd
  }, { parentSession: fields.parentSession })
