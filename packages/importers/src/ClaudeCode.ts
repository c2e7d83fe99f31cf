/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<sessionId>.jsonl`, and the subagents'
 * `<sessionId>/subagents/agent-<agentId>.jsonl`) → branchlog sessions. A pure conversion of the
 * records a file holds (see the README for every rule):
 *
 * - `uuid` → id (its first 8 hex characters), `parentUuid` → parent, so a rewind stays a branch;
 * - the lines of one API message (Claude Code writes one content block per line, same
 *   `message.id`) → one assistant message; `tool_use` → `toolCall`; each `tool_result` block → a
 *   `toolResult` message, placed after the message holding its call, in the order of the calls,
 *   whatever order the lines chain in (`internal/claudeTurns.ts`); a call without a result stays;
 * - `system` `compact_boundary` + the `isCompactSummary` user record → one `compaction` (parent:
 *   `logicalParentUuid`; a root when that is not in the file), keeping nothing before it;
 * - `isMeta` user records (caveats, expanded commands) → `custom_message` `claude-code.meta` (not
 *   displayed, in the context as Claude Code sent them); slash-command records stay user text;
 * - records that are not conversation (progress, file snapshots, attachments, queue operations,
 *   hooks, other system records) are dropped, their children re-attached to the nearest kept
 *   ancestor, and counted in the warnings; session metadata (`permission-mode`, `mode`, `tag`,
 *   …) → `custom` entries `claude-code.<type>` on the path; `summary` / `custom-title` /
 *   `ai-title` → the session name;
 * - inline sidechain records (1.0.x) → one session per sidechain, whose parent is the main one.
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import { Entry } from "@branchlog/session-core"
import type { ImportedSession } from "./ImportedSession.js"
import * as Anthropic from "./internal/anthropic.js"
import { isObject, isoOf, SessionBuilder, str } from "./internal/builder.js"
import { type Group, type Rec, scan, userParts } from "./internal/claudeTurns.js"
import type { SourceLine } from "./internal/jsonl.js"

/** Options of {@link convert}. */
export interface ConvertOptions {
  /** The source path (kept in the provenance). */
  readonly source: string
  /** The session id when no record names one (e.g. the file name without `.jsonl`). */
  readonly fallbackSessionId: string
  /** Set when converting `subagents/agent-*.jsonl`: the main session's branchlog id and the agent's id. */
  readonly subagentOf?: { readonly parentSessionId: string; readonly agentId: string }
}

/** Record types that are not conversation (UI, undo and queue state): dropped (their links kept) and counted. */
const NOT_CONVERSATION = new Set([
  "progress",
  "file-history-snapshot",
  "attribution-snapshot",
  "attachment",
  "queue-operation",
  "speculation-accept",
  "content-replacement",
  "marble-origami-commit",
  "marble-origami-snapshot",
  "hook",
  "hook_progress"
])

/**
 * Session metadata that Claude Code 2.1.x writes between the messages: each kept as a `custom`
 * entry `claude-code.<type>` holding the record, on the path where it was written.
 */
const METADATA = new Set([
  "permission-mode",
  "mode",
  "agent-name",
  "agent-color",
  "agent-setting",
  "tag",
  "pr-link",
  "worktree-state",
  "last-prompt",
  "ai-title",
  "task-summary"
])

/** The model name Claude Code gives the messages it writes itself (API errors, "No response requested."). */
const SYNTHETIC_MODEL = "<synthetic>"

const EPOCH = "1970-01-01T00:00:00.000Z"

interface Sidechain {
  readonly builder: SessionBuilder
  readonly rootUuid: string
  agentId: string | undefined
  first: Record<string, unknown>
  leafKey: string | undefined
}

/** One assistant message of a group's merged lines: the last line's usage and stop reason, the first's model and time. */
const assistantOf = (g: Group): AgentMessage.AssistantMessage => {
  const messages = g.lines.map((l) => l.value.message as Record<string, unknown>)
  const first = messages[0]!
  const last = messages.at(-1)!
  const model = messages.map((m) => str(m.model)).find((m) => m !== undefined)
  const isError = g.lines.some((l) => l.value.isApiErrorMessage === true || str(l.value.error) !== undefined)
  const errorText = g.blocks.find((block) => block.type === "text")
  const errorLine = g.lines.find((l) => str(l.value.error) !== undefined)
  const stop = [...messages].reverse().map((m) => m.stop_reason).find((r) => r !== null && r !== undefined)
  const synthetic = model === SYNTHETIC_MODEL
  return {
    role: "assistant",
    content: [...g.blocks],
    // a message Claude Code wrote itself is marked as such, not as a model's
    api: "anthropic-messages",
    provider: synthetic ? "claude-code" : "anthropic",
    model: synthetic ? "synthetic" : model ?? "unknown",
    usage: Anthropic.usageOf(last.usage ?? first.usage),
    stopReason: isError ? "error" : Anthropic.stopReasonOf(stop, g.blocks.some((block) => block.type === "toolCall")),
    ...(isError
      ? { errorMessage: errorText?.type === "text" ? errorText.text : String(errorLine?.value.error ?? "error") }
      : {}),
    timestamp: Date.parse(isoOf(g.lines[0]!.value.timestamp, EPOCH))
  }
}

/** Converts the lines of one Claude Code transcript: the main session first, then its inline sidechains. */
export const convert = (lines: ReadonlyArray<SourceLine>, options: ConvertOptions): Array<ImportedSession> => {
  const main = new SessionBuilder()
  const records = lines.filter((l): l is Rec => l._tag === "Record")
  for (const l of lines) if (l._tag === "Bad") main.skip({ line: l.line, offset: l.offset, reason: l.reason })
  const first = records.find((r) => typeof r.value.sessionId === "string")?.value
  const sourceSessionId = str(first?.sessionId) ?? options.fallbackSessionId
  // a subagent's own file (2.0.x wrote `agent-<id>.jsonl` beside the sessions): every conversation
  // record is a sidechain, and its sessionId is the parent session's
  const conversation = records.filter((r) => r.value.type === "user" || r.value.type === "assistant")
  if (
    options.subagentOf === undefined && conversation.length > 0 &&
    conversation.every((r) => r.value.isSidechain === true)
  ) {
    const agentId = str(conversation[0]!.value.agentId) ?? options.fallbackSessionId.replace(/^agent-/, "")
    return convert(lines, { ...options, subagentOf: { parentSessionId: sourceSessionId, agentId } })
  }
  const sessionId = options.subagentOf === undefined
    ? sourceSessionId
    : `${options.subagentOf.parentSessionId}-agent-${options.subagentOf.agentId}`
  const turns = scan(records)
  const sidechains = new Map<string, Sidechain>()
  const sidechainOf = new Map<string, Sidechain>()
  const summaries: Array<{ summary: string; leafUuid: string | undefined }> = []
  let customTitle: string | undefined
  let aiTitle: string | undefined
  let mainLeafKey: string | undefined
  let version: string | undefined
  const compactions = new Map<string, { summary: string }>()

  for (const { line, offset, value: r } of records) {
    const type = str(r.type)
    const uuid = str(r.uuid)
    const rawParent = str(r.parentUuid) ?? null
    // a record whose parent is inside a turn (a call's line, a result) hangs on the turn's end
    const parentUuid = turns.parentOf(rawParent)
    version ??= str(r.version)
    // which session: inline sidechains (not in a subagent file) go to their own
    let b = main
    let side: Sidechain | undefined
    if (r.isSidechain === true && options.subagentOf === undefined && uuid !== undefined) {
      side = rawParent === null ? undefined : sidechainOf.get(rawParent)
      if (side === undefined) {
        side = { builder: new SessionBuilder(), rootUuid: uuid, agentId: str(r.agentId), first: r, leafKey: undefined }
        sidechains.set(uuid, side)
      }
      sidechainOf.set(uuid, side)
      b = side.builder
    }
    if (type === undefined) {
      b.skip({ line, offset, reason: "a record without a type" })
      continue
    }
    const at = isoOf(r.timestamp, EPOCH)
    const ms = Date.parse(at)
    let kept: string | undefined
    if (type === "summary") {
      if (typeof r.summary === "string") summaries.push({ summary: r.summary, leafUuid: str(r.leafUuid) })
      main.count("summary records (the session name comes from them)")
      continue
    } else if (type === "custom-title") {
      customTitle = str(r.customTitle) ?? str(r.title) ?? customTitle
      main.count("custom-title records (the session name comes from them)")
      continue
    } else if (NOT_CONVERSATION.has(type)) {
      b.drop(uuid, parentUuid, `${type} records`)
      continue
    } else if (METADATA.has(type)) {
      if (type === "ai-title") aiTitle = str(r.aiTitle) ?? str(r.title) ?? aiTitle
      const make = (id: string, parentId: string | null): Entry.CustomEntry => ({
        type: "custom",
        customType: `claude-code.${type}`,
        data: r,
        id,
        parentId,
        timestamp: at
      })
      // one without a place in the tree goes where it was written, on the path; one with keeps its place
      if (uuid === undefined) {
        b.splice(`claude-code.${type}@${line}`, (side === undefined ? mainLeafKey : side.leafKey) ?? null, make)
        continue
      }
      b.keep(uuid, parentUuid, make)
      kept = uuid
    } else if (type === "system") {
      if (r.subtype === "compact_boundary" && uuid !== undefined) {
        const meta = isObject(r.compactMetadata) ? r.compactMetadata : {}
        const held = { summary: str(r.content) ?? "" }
        compactions.set(uuid, held)
        // a partial compaction (2.1.x) keeps a segment: the compaction goes after the segment's
        // anchor and the segment's first message after the compaction, so the context is the
        // summary, the kept segment, then what follows
        const preserved = isObject(meta.preservedMessages) ? meta.preservedMessages : {}
        const segment = Array.isArray(preserved.uuids)
          ? preserved.uuids.filter((u): u is string => typeof u === "string")
          : []
        const anchor = str(preserved.anchorUuid)
        const partial = segment.length > 0 && anchor !== undefined
        const logical = turns.parentOf(partial ? anchor : str(r.logicalParentUuid) ?? rawParent)
        if (partial) b.reparent(turns.groupOf(segment[0]!)?.key ?? segment[0]!, uuid)
        b.keep(uuid, logical, (id, parentId): Entry.CompactionEntry => ({
          type: "compaction",
          id,
          parentId,
          timestamp: at,
          summary: held.summary,
          firstKeptEntryId: id,
          tokensBefore: typeof meta.preTokens === "number" ? meta.preTokens : 0,
          details: {
            source: "claude-code",
            ...(typeof meta.trigger === "string" ? { trigger: meta.trigger } : {}),
            ...(str(r.logicalParentUuid) === undefined ? {} : { logicalParentUuid: str(r.logicalParentUuid) }),
            ...(segment.length > 0 ? { preservedMessages: segment } : {})
          }
        }))
        kept = uuid
      } else {
        b.drop(uuid, parentUuid, `system records${typeof r.subtype === "string" ? ` (${r.subtype})` : ""}`)
        continue
      }
    } else if (type === "user" || type === "assistant") {
      const message = isObject(r.message) ? r.message : undefined
      if (uuid === undefined || message === undefined) {
        b.skip({ line, offset, reason: `a ${type} record without ${uuid === undefined ? "a uuid" : "a message"}` })
        if (uuid !== undefined) b.alias(uuid, parentUuid)
        continue
      }
      if (b.has(uuid)) {
        b.count("repeated records (same uuid)")
        continue
      }
      if (type === "assistant") {
        const g = turns.groupOf(uuid)!
        if (g.key !== uuid) {
          // a later line of the message (its blocks are in the message's entry), or a line that
          // only repeated what earlier lines wrote
          if (g.key === undefined) b.drop(uuid, parentUuid, "assistant lines that only repeated earlier content")
          else b.alias(uuid, g.tail ?? g.key)
          continue
        }
        if (g.duplicates > 0) b.count("repeated content blocks (same API message)", g.duplicates)
        if (g.other > 0) b.count("assistant content blocks of other types (kept as a note)", g.other)
        b.keep(
          uuid,
          turns.entryParent(g),
          (id, parentId) => Entry.makeMessage({ id, parentId, timestamp: at, message: assistantOf(g) })
        )
        kept = g.tail ?? uuid
      } else {
        if (r.isCompactSummary === true) {
          const held = rawParent === null ? undefined : compactions.get(rawParent)
          const text = Anthropic.userBlocks(message.content).blocks.map((x) => x.type === "text" ? x.text : "").join("")
          if (held !== undefined) held.summary = text
          else b.warnings.push(`line ${line}: a compact summary without its compact boundary (kept as a user message)`)
          if (held !== undefined) {
            b.drop(uuid, parentUuid, "compact-summary records (the compaction holds their text)")
            continue
          }
        }
        // tool results first (each its own entry), then what else the record says; results that
        // answer an assistant message go in its turn's chain, the others after their parent
        const parts = userParts(uuid, message.content)
        let previous = parentUuid
        for (const part of parts) {
          const inChain = turns.chainParent(part.key)
          const make = part._tag === "Result"
            ? resultOf(part.block, turns.toolName(str(part.block.tool_use_id) ?? ""), at, ms)
            : restOf(b, r, message.content, part.content, at, ms)
          b.keep(part.key, inChain ?? previous, make, { fixed: inChain !== undefined })
          previous = part.key
        }
        if (parts.length === 0) {
          b.drop(uuid, parentUuid, "empty user records")
          continue
        }
        kept = turns.parentOf(uuid) ?? uuid
      }
    } else {
      b.skip({ line, offset, reason: `unknown record type "${type}"` })
      if (uuid !== undefined) b.alias(uuid, parentUuid)
      continue
    }
    if (side !== undefined) side.leafKey = kept
    else mainLeafKey = kept
  }

  const cwd = str(records.find((r) => typeof r.value.cwd === "string")?.value.cwd) ?? ""
  const timestamp = isoOf(records.find((r) => r.value.timestamp !== undefined)?.value.timestamp, EPOCH)
  // the name: a summary of a leaf in this file (other files' summaries leak into it), else the last title
  const known = (u: string | undefined) => u !== undefined && (main.has(u) || sidechainOf.has(u))
  const name = customTitle ?? summaries.filter((s) => known(s.leafUuid)).at(-1)?.summary ?? aiTitle
  let leafKey: string | undefined | null = mainLeafKey
  if (name !== undefined && name.trim().length > 0) {
    main.keep("branchlog.session-name", mainLeafKey ?? null, (id, parentId) => ({
      type: "session_info",
      id,
      parentId,
      timestamp: isoOf(records.at(-1)?.value.timestamp, timestamp),
      name: name.trim()
    }))
    leafKey = "branchlog.session-name"
  }
  const provenance = (id: string) => ({
    format: "claude-code" as const,
    ...(version === undefined ? {} : { formatVersion: version }),
    source: options.source,
    sourceSessionId: id
  })
  const out: Array<ImportedSession> = [
    main.finish({
      provenance: provenance(
        options.subagentOf === undefined ? sourceSessionId : `${sourceSessionId}/agent-${options.subagentOf.agentId}`
      ),
      sessionId,
      cwd,
      timestamp,
      ...(options.subagentOf === undefined ? {} : { parentSessionId: options.subagentOf.parentSessionId }),
      leafKey: leafKey ?? null
    })
  ]
  for (const side of sidechains.values()) {
    const tag = side.agentId ?? side.rootUuid.slice(0, 8)
    out.push(side.builder.finish({
      provenance: provenance(`${sourceSessionId}/sidechain-${tag}`),
      sessionId: `${sessionId}-agent-${tag}`,
      cwd: str(side.first.cwd) ?? cwd,
      timestamp: isoOf(side.first.timestamp, timestamp),
      parentSessionId: sessionId,
      leafKey: side.leafKey ?? null
    }))
  }
  return out
}

/** A `tool_result` block → a `toolResult` entry (`toolName` from its call). */
const resultOf = (block: Record<string, unknown>, toolName: string | undefined, at: string, ms: number) => {
  const result: AgentMessage.ToolResultMessage = {
    role: "toolResult",
    toolCallId: str(block.tool_use_id) ?? "",
    toolName: toolName ?? "unknown",
    content: Anthropic.toolResultContent(block.content),
    isError: block.is_error === true,
    timestamp: ms
  }
  return (id: string, parentId: string | null) => Entry.makeMessage({ id, parentId, timestamp: at, message: result })
}

/** A user record's content other than tool results → a user message, or a `claude-code.meta` custom message. */
const restOf = (
  b: SessionBuilder,
  r: Record<string, unknown>,
  whole: unknown,
  rest: unknown,
  at: string,
  ms: number
) => {
  const { blocks, other } = Anthropic.userBlocks(rest)
  if (other > 0) b.count("user content blocks of other types (kept as a note)")
  const content: AgentMessage.UserContent = typeof whole === "string" ? whole : blocks
  return (id: string, parentId: string | null): Entry.Entry =>
    r.isMeta === true
      ? { type: "custom_message", customType: "claude-code.meta", content, display: false, id, parentId, timestamp: at }
      : Entry.makeMessage({ id, parentId, timestamp: at, message: { role: "user", content, timestamp: ms } })
}

/** Whether records look like a Claude Code transcript (`uuid` / `parentUuid` / `sessionId`, or its record types). */
export const looksLike = (records: ReadonlyArray<Record<string, unknown>>): boolean =>
  records.some((r) =>
    ("parentUuid" in r && "uuid" in r) ||
    (r.type === "summary" && "leafUuid" in r) ||
    (r.type === "file-history-snapshot" && "messageId" in r) ||
    (r.type === "queue-operation" && "sessionId" in r)
  )
