/**
 * The rows of a session file (spec §1): the header, the eleven canonical entry types (the nine of
 * §1.3 and pi 1.6's `usage` and `context_edit`, §15), and OpenClaw's `leaf` control row.
 *
 * These schemas are the contract. The line codec ({@link ./Line.ts}) classifies rows with a
 * hand-written guard that accepts exactly what {@link EntryEnvelope} accepts (a property test holds
 * the two together), because decoding every row of a 600 MB file through a schema would cost
 * several times the `JSON.parse` it follows. The objects a file holds are kept as they are, extra
 * fields included, so a row is written back with the same bytes.
 *
 * Each kind has a typed constructor (`makeMessage`, `makeCompaction`, …, `makeLeafControl`,
 * `makeHeader`) that returns the exact member of the union, keys in the references' order and
 * optional fields absent, so `JSON.stringify` of it is the line the references write.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  AgentMessage,
  ImageContent,
  SystemMessage,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
  UserContent
} from "./AgentMessage.js"
import { canonicalEntryTypes } from "./internal/entryTypes.js"
import * as Version from "./internal/version.js"

/** The current session format version (`CURRENT_SESSION_VERSION`). */
export const CURRENT_SESSION_VERSION = Version.CURRENT_SESSION_VERSION

/** First line of a file: `{type:"session", version?, id, timestamp, cwd, parentSession?}`. */
export const SessionHeader = Schema.Struct({
  type: Schema.Literal("session"),
  version: Schema.optional(Schema.Number),
  id: Schema.String,
  timestamp: Schema.optional(Schema.String),
  cwd: Schema.optional(Schema.String),
  parentSession: Schema.optional(Schema.String)
})
/** The session header. `timestamp` and `cwd` are optional when reading (absent ⇒ unknown). */
export type SessionHeader = typeof SessionHeader.Type

/** A string with something other than white space in it (the references' `readNonEmptyString`). */
const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be blank" })
)

/** Fields every entry carries. `appendMode: "side"` is OpenClaw's side-branch append. */
const base = {
  id: NonBlankString,
  parentId: Schema.NullOr(Schema.String),
  timestamp: Schema.String,
  appendMode: Schema.optional(Schema.Literal("side"))
}

/** `message`: one agent message, stored verbatim. */
export const MessageEntry = Schema.Struct({
  type: Schema.Literal("message"),
  ...base,
  message: AgentMessage
})
/** A `message` entry. */
export type MessageEntry = typeof MessageEntry.Type

/** `thinking_level_change`: sets the thinking level from here on. */
export const ThinkingLevelChangeEntry = Schema.Struct({
  type: Schema.Literal("thinking_level_change"),
  ...base,
  thinkingLevel: Schema.String
})
/** A `thinking_level_change` entry. */
export type ThinkingLevelChangeEntry = typeof ThinkingLevelChangeEntry.Type

/** `model_change`: sets the model from here on. */
export const ModelChangeEntry = Schema.Struct({
  type: Schema.Literal("model_change"),
  ...base,
  provider: Schema.String,
  modelId: Schema.String
})
/** A `model_change` entry. */
export type ModelChangeEntry = typeof ModelChangeEntry.Type

/**
 * `compaction`: a summary that replaces what came before `firstKeptEntryId` (`null`, or the
 * compaction's own id as pi 1.6 stores it: nothing before it is kept). pi 1.6 adds `usage` (of the
 * summarising call) and `systemMessage` (the system state at this point, emitted before the
 * summary).
 */
export const CompactionEntry = Schema.Struct({
  type: Schema.Literal("compaction"),
  ...base,
  summary: Schema.String,
  firstKeptEntryId: Schema.NullOr(Schema.String),
  tokensBefore: Schema.Number,
  details: Schema.optional(Schema.Unknown),
  usage: Schema.optional(Usage),
  fromHook: Schema.optional(Schema.Boolean),
  systemMessage: Schema.optional(SystemMessage)
})
/** A `compaction` entry. */
export type CompactionEntry = typeof CompactionEntry.Type

/** `branch_summary`: a summary of the branch the conversation came back from. */
export const BranchSummaryEntry = Schema.Struct({
  type: Schema.Literal("branch_summary"),
  ...base,
  fromId: Schema.String,
  summary: Schema.String,
  details: Schema.optional(Schema.Unknown),
  usage: Schema.optional(Usage),
  fromHook: Schema.optional(Schema.Boolean)
})
/** A `branch_summary` entry. */
export type BranchSummaryEntry = typeof BranchSummaryEntry.Type

/** `custom`: extension state; never part of the LLM context. */
export const CustomEntry = Schema.Struct({
  type: Schema.Literal("custom"),
  ...base,
  customType: Schema.String,
  data: Schema.optional(Schema.Unknown)
})
/** A `custom` entry. */
export type CustomEntry = typeof CustomEntry.Type

/** `custom_message`: an extension's message, in the context as a `custom` role message. */
export const CustomMessageEntry = Schema.Struct({
  type: Schema.Literal("custom_message"),
  ...base,
  customType: Schema.String,
  content: UserContent,
  display: Schema.Boolean,
  details: Schema.optional(Schema.Unknown)
})
/** A `custom_message` entry. */
export type CustomMessageEntry = typeof CustomMessageEntry.Type

/** `label`: sets (or, with no or an empty `label`, clears) the label of `targetId`. */
export const LabelEntry = Schema.Struct({
  type: Schema.Literal("label"),
  ...base,
  targetId: Schema.String,
  label: Schema.optional(Schema.String)
})
/** A `label` entry. */
export type LabelEntry = typeof LabelEntry.Type

/** `session_info`: the session's display name (stored trimmed; empty clears it). */
export const SessionInfoEntry = Schema.Struct({
  type: Schema.Literal("session_info"),
  ...base,
  name: Schema.optional(Schema.String)
})
/** A `session_info` entry. */
export type SessionInfoEntry = typeof SessionInfoEntry.Type

/**
 * `usage` (pi 1.6, `appendUsage`): tokens and cost of a model call that is not a message of the
 * conversation (`kind` names it, e.g. `"cache_warm"`). A tree node that emits no message and does
 * not change the model.
 */
export const UsageEntry = Schema.Struct({
  type: Schema.Literal("usage"),
  ...base,
  kind: Schema.String,
  provider: Schema.String,
  model: Schema.String,
  usage: Usage,
  note: Schema.optional(Schema.String)
})
/** A `usage` entry. */
export type UsageEntry = typeof UsageEntry.Type

/** The content a context edit may put in place of its target's (user, assistant, tool result or custom content). */
export const EditableContent = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Union(TextContent, ImageContent, ThinkingContent, ToolCall))
)
/** Content of a context edit. */
export type EditableContent = typeof EditableContent.Type

/**
 * `context_edit` (pi 1.6, `appendContextEdit`): rewrites what `targetId` contributes to the
 * context, on the branches that select this edit. `replacement: null` removes the target's whole
 * contribution; `{content}` swaps the content of a user, assistant, tool result or custom message
 * (spec §15).
 */
export const ContextEditEntry = Schema.Struct({
  type: Schema.Literal("context_edit"),
  ...base,
  targetId: Schema.String,
  replacement: Schema.NullOr(Schema.Struct({ content: EditableContent }))
})
/** A `context_edit` entry. */
export type ContextEditEntry = typeof ContextEditEntry.Type

/** Every canonical entry. */
export const Entry = Schema.Union(
  MessageEntry,
  ThinkingLevelChangeEntry,
  ModelChangeEntry,
  CompactionEntry,
  BranchSummaryEntry,
  CustomEntry,
  CustomMessageEntry,
  LabelEntry,
  SessionInfoEntry,
  UsageEntry,
  ContextEditEntry
)
/** A canonical entry: a node of the session tree. */
export type Entry = typeof Entry.Type

/** The `type` of a canonical entry. */
export type EntryType = Entry["type"]

/** The canonical entry types, in the order of spec §1.3, then pi 1.6's (§15). */
export const entryTypes: ReadonlyArray<EntryType> = canonicalEntryTypes

/**
 * OpenClaw's persisted navigation marker: visible leaf = `targetId`, physical append parent =
 * `appendParentId` (default `targetId`). Not a tree node.
 */
export const LeafControl = Schema.Struct({
  type: Schema.Literal("leaf"),
  id: NonBlankString,
  parentId: Schema.NullOr(Schema.String),
  timestamp: Schema.String,
  targetId: Schema.NullOr(Schema.String),
  appendParentId: Schema.optional(Schema.NullOr(Schema.String)),
  appendMode: Schema.optional(Schema.Literal("side"))
})
/** A leaf-control row. */
export type LeafControl = typeof LeafControl.Type

/** Decodes an unknown value as a canonical entry, keeping unknown fields. */
export const decodeEntry = Schema.decodeUnknownEither(Entry, { onExcessProperty: "preserve" })

/** Decodes an unknown value as a session header, keeping unknown fields. */
export const decodeHeader = Schema.decodeUnknownEither(SessionHeader, { onExcessProperty: "preserve" })

/** Decodes an unknown value as a leaf control, keeping unknown fields. */
export const decodeLeafControl = Schema.decodeUnknownEither(LeafControl, { onExcessProperty: "preserve" })

export {
  /** The fields of every entry: id, parent, ISO time, OpenClaw's side-append mark. */
  type Base,
  /** The fields of a branch summary besides the base ones. */
  type BranchSummaryFields,
  /** The fields of a compaction besides the base ones. */
  type CompactionFields,
  /** The fields of a custom message besides the base ones. */
  type CustomMessageFields,
  /** The fields of a header (version defaults to the current one). */
  type HeaderFields,
  /** The fields of a leaf control. */
  type LeafControlFields,
  /** A `branch_summary` entry, typed. */
  makeBranchSummary,
  /** A `compaction` entry, typed. */
  makeCompaction,
  /** A `context_edit` entry (pi 1.6), typed. */
  makeContextEdit,
  /** A `custom` entry, typed (pi's key order). */
  makeCustom,
  /** A `custom_message` entry, typed (pi's key order). */
  makeCustomMessage,
  /** A session header, typed. */
  makeHeader,
  /** A `label` entry, typed. */
  makeLabel,
  /** An OpenClaw leaf control, typed. */
  makeLeafControl,
  /** A `message` entry, typed. */
  makeMessage,
  /** A `model_change` entry, typed. */
  makeModelChange,
  /** A `session_info` entry, typed. */
  makeSessionInfo,
  /** A `thinking_level_change` entry, typed. */
  makeThinkingLevelChange,
  /** A `usage` entry (pi 1.6), typed. */
  makeUsage,
  /** The fields of a pi 1.6 usage entry besides the base ones. */
  type UsageFields
} from "./internal/constructors.js"

/** `true` for a message entry whose message is an assistant's. */
export const isAssistantMessage = (entry: Entry): boolean =>
  entry.type === "message" && (entry.message as { readonly role?: unknown }).role === "assistant"
