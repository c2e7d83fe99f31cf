/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<sessionId>.jsonl`, and the subagents'
 * `<sessionId>/subagents/agent-<agentId>.jsonl`) → branchlog sessions. A pure conversion of the
 * records a file holds (see the README for every rule):
 *
 * - `uuid` → id (its first 8 hex characters), `parentUuid` → parent, so a rewind stays a branch;
 * - each assistant line is one entry (Claude Code writes one content block per line); a tool call
 *   repeated under a later line of the same API message is kept once;
 * - `tool_use` → `toolCall`; each `tool_result` block → a `toolResult` message (its `tool_use_id`,
 *   `is_error`); a tool call without a result stays as it is;
 * - `system` `compact_boundary` + the `isCompactSummary` user record → one `compaction` (parent:
 *   `logicalParentUuid`; a root when that is not in the file), keeping nothing before it;
 * - `isMeta` user records (caveats, expanded commands) → `custom_message` `claude-code.meta` (not
 *   displayed, in the context as Claude Code sent them); slash-command records stay user text;
 * - records that are not conversation (progress, file snapshots, attachments, queue operations,
 *   hooks, other system records) are dropped, their children re-attached to the nearest kept
 *   ancestor, and counted in the warnings; `summary` / `custom-title` → the session name;
 * - inline sidechain records (1.0.x) → one session per sidechain, whose parent is the main one.
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import { Entry } from "@branchlog/session-core"
import type { ImportedSession } from "./ImportedSession.js"
import * as Anthropic from "./internal/anthropic.js"
import { isObject, isoOf, SessionBuilder, str } from "./internal/builder.js"
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

/** Record types that are not conversation: dropped (their links kept) and counted. */
const NOT_CONVERSATION = new Set([
  "progress",
  "file-history-snapshot",
  "attachment",
  "queue-operation",
  "hook",
  "hook_progress",
  "agent-name",
  "last-prompt",
  "pr-link",
  "tag"
])

const EPOCH = "1970-01-01T00:00:00.000Z"

interface Sidechain {
  readonly builder: SessionBuilder
  readonly rootUuid: string
  agentId: string | undefined
  first: Record<string, unknown>
  leafKey: string | undefined
}

/** Converts the lines of one Claude Code transcript: the main session first, then its inline sidechains. */
export const convert = (lines: ReadonlyArray<SourceLine>, options: ConvertOptions): Array<ImportedSession> => {
  const main = new SessionBuilder()
  const records = lines.filter((l): l is Extract<SourceLine, { _tag: "Record" }> => l._tag === "Record")
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
  const toolNames = new Map<string, string>()
  const seenToolIds = new Set<string>()
  const blocksOf = new Map<string, Set<string>>()
  const sidechains = new Map<string, Sidechain>()
  const sidechainOf = new Map<string, Sidechain>()
  const summaries: Array<{ summary: string; leafUuid: string | undefined }> = []
  let customTitle: string | undefined
  let mainLeafKey: string | undefined
  let version: string | undefined
  const compactions = new Map<string, { summary: string }>()

  for (const { line, offset, value: r } of records) {
    const type = str(r.type)
    const uuid = str(r.uuid)
    const parentUuid = str(r.parentUuid) ?? null
    version ??= str(r.version)
    // which session: inline sidechains (not in a subagent file) go to their own
    let b = main
    let side: Sidechain | undefined
    if (r.isSidechain === true && options.subagentOf === undefined && uuid !== undefined) {
      side = parentUuid === null ? undefined : sidechainOf.get(parentUuid)
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
        const logical = segment.length > 0 && anchor !== undefined ? anchor : str(r.logicalParentUuid) ?? parentUuid
        if (segment.length > 0 && anchor !== undefined) b.reparent(segment[0]!, uuid)
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
        if (uuid !== undefined) b.drop(uuid, parentUuid, "unreadable records")
        continue
      }
      if (b.has(uuid)) {
        b.count("repeated records (same uuid)")
        continue
      }
      if (type === "assistant") {
        const mapped = Anthropic.assistantBlocks(message.content, seenToolIds)
        const { other } = mapped
        let { duplicates } = mapped
        // a line that repeats blocks an earlier line of the same API message wrote (versions that
        // write the message so far on each line) keeps only its new ones
        const messageId = str(message.id)
        let blocks = mapped.blocks
        if (messageId !== undefined) {
          const seen = blocksOf.get(messageId) ?? new Set<string>()
          blocksOf.set(messageId, seen)
          blocks = blocks.filter((block) => {
            const text = JSON.stringify(block)
            if (block.type !== "toolCall" && seen.has(text)) {
              duplicates++
              return false
            }
            seen.add(text)
            return true
          })
        }
        if (duplicates > 0) b.count("repeated content blocks (same API message)", duplicates)
        if (other > 0) b.count("assistant content blocks of other types (kept as a note)")
        for (const block of blocks) if (block.type === "toolCall") toolNames.set(block.id, block.name)
        if (blocks.length === 0 && duplicates > 0) {
          b.drop(uuid, parentUuid, "assistant lines that only repeated earlier content")
          continue
        }
        const hasCall = blocks.some((block) => block.type === "toolCall")
        const isError = r.isApiErrorMessage === true || str(r.error) !== undefined
        const errorText = blocks.find((block) => block.type === "text")
        const assistant: AgentMessage.AssistantMessage = {
          role: "assistant",
          content: blocks,
          api: "anthropic-messages",
          provider: "anthropic",
          model: str(message.model) ?? "unknown",
          usage: Anthropic.usageOf(message.usage),
          stopReason: isError ? "error" : Anthropic.stopReasonOf(message.stop_reason, hasCall),
          ...(isError ? { errorMessage: errorText?.type === "text" ? errorText.text : String(r.error) } : {}),
          timestamp: ms
        }
        b.keep(
          uuid,
          parentUuid,
          (id, parentId) => Entry.makeMessage({ id, parentId, timestamp: at, message: assistant })
        )
        kept = uuid
      } else {
        if (r.isCompactSummary === true) {
          const held = parentUuid === null ? undefined : compactions.get(parentUuid)
          const text = Anthropic.userBlocks(message.content).blocks.map((x) => x.type === "text" ? x.text : "").join("")
          if (held !== undefined) held.summary = text
          else b.warnings.push(`line ${line}: a compact summary without its compact boundary (kept as a user message)`)
          if (held !== undefined) {
            b.drop(uuid, parentUuid, "compact-summary records (the compaction holds their text)")
            continue
          }
        }
        // tool results first (each its own entry), then what else the record says; the record's
        // own key goes to the last, so its children hang there
        const parts: Array<(id: string, parentId: string | null) => Entry.Entry> = []
        const content = message.content
        const rest: Array<unknown> = []
        if (Array.isArray(content)) {
          for (const block of content) {
            if (isObject(block) && block.type === "tool_result") {
              const toolCallId = str(block.tool_use_id) ?? ""
              const result: AgentMessage.ToolResultMessage = {
                role: "toolResult",
                toolCallId,
                toolName: toolNames.get(toolCallId) ?? "unknown",
                content: Anthropic.toolResultContent(block.content),
                isError: block.is_error === true,
                timestamp: ms
              }
              parts.push((id, parentId) => Entry.makeMessage({ id, parentId, timestamp: at, message: result }))
            } else rest.push(block)
          }
        }
        if (!Array.isArray(content) || rest.length > 0) {
          const { blocks, other } = Anthropic.userBlocks(Array.isArray(content) ? rest : content)
          if (other > 0) b.count("user content blocks of other types (kept as a note)")
          const userContent: AgentMessage.UserContent = typeof content === "string" ? content : blocks
          if (r.isMeta === true) {
            parts.push((id, parentId) => ({
              type: "custom_message",
              customType: "claude-code.meta",
              content: userContent,
              display: false,
              id,
              parentId,
              timestamp: at
            }))
          } else {
            const user: AgentMessage.UserMessage = { role: "user", content: userContent, timestamp: ms }
            parts.push((id, parentId) => Entry.makeMessage({ id, parentId, timestamp: at, message: user }))
          }
        }
        let parentKey = parentUuid
        parts.forEach((make, i) => {
          const key = i === parts.length - 1 ? uuid : `${uuid}#${i}`
          b.keep(key, parentKey, make)
          parentKey = key
        })
        if (parts.length === 0) {
          b.drop(uuid, parentUuid, "empty user records")
          continue
        }
        kept = uuid
      }
    } else {
      b.skip({ line, offset, reason: `unknown record type "${type}"` })
      if (uuid !== undefined) b.drop(uuid, parentUuid, `records of unknown type "${type}"`)
      continue
    }
    if (side !== undefined) side.leafKey = kept
    else mainLeafKey = kept
  }

  const cwd = str(records.find((r) => typeof r.value.cwd === "string")?.value.cwd) ?? ""
  const timestamp = isoOf(records.find((r) => r.value.timestamp !== undefined)?.value.timestamp, EPOCH)
  // the name: a summary of a leaf in this file (other files' summaries leak into it), else the last title
  const known = (u: string | undefined) => u !== undefined && (main.has(u) || sidechainOf.has(u))
  const name = customTitle ?? summaries.filter((s) => known(s.leafUuid)).at(-1)?.summary
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

/** Whether records look like a Claude Code transcript (`uuid` / `parentUuid` / `sessionId`, or its record types). */
export const looksLike = (records: ReadonlyArray<Record<string, unknown>>): boolean =>
  records.some((r) =>
    ("parentUuid" in r && "uuid" in r) ||
    (r.type === "summary" && "leafUuid" in r) ||
    (r.type === "file-history-snapshot" && "messageId" in r) ||
    (r.type === "queue-operation" && "sessionId" in r)
  )
