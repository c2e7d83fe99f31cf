/**
 * The listing summary of a session, kept current row by row (no re-read of earlier rows): the
 * same fields and rules as `SessionCatalog.infoReader` (header first, `session_info` names, user
 * and assistant messages), in a plain record a row of the `sessions` table holds. The first user
 * message is kept whole; the text of the messages whole up to {@link MAX_STORED_TEXT} characters,
 * else its first `MAX_STORED_TEXT + 1` (so a row's size and an append's cost do not grow with the
 * session): a listing reads a longer text whole from the rows when it is asked for
 * (`listedSummary.ts`).
 */
import { Line } from "@branchlog/session-core"

/**
 * The longest text of the messages `all_text` holds whole; a longer one is held as its first
 * `MAX_STORED_TEXT + 1` characters (one more than this: the mark that there is more).
 */
export const MAX_STORED_TEXT = 4096

/** How much of the messages' text schema 5 and older kept (a text that long may have been cut). */
export const LEGACY_TEXT = 200

/** How much of the first user message schema 5 and older kept. */
export const LEGACY_FIRST_MESSAGE = 500

/** `true` when a stored `all_text` is the whole text (not a prefix of a longer one). */
export const isWhole = (allText: string): boolean => allText.length <= MAX_STORED_TEXT

/** What a `sessions` row holds of the summary. */
export interface Summary {
  /** `1`: the first real row is a header; `0`: it is not; `null`: no real row yet. */
  is_session: 0 | 1 | null
  header_id: string | null
  cwd: string | null
  name: string | null
  parent_session: string | null
  created: string | null
  created_ms: number | null
  message_count: number
  first_message: string | null
  last_activity_ms: number | null
  all_text: string
  leaf: string | null
  tail_id: string | null
}

/** A summary of no rows. */
export const empty = (): Summary => ({
  is_session: null,
  header_id: null,
  cwd: null,
  name: null,
  parent_session: null,
  created: null,
  created_ms: null,
  message_count: 0,
  first_message: null,
  last_activity_ms: null,
  all_text: "",
  leaf: null,
  tail_id: null
})

/** The text of a message's content: a string, or its text blocks joined by spaces. */
export const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  let out = ""
  for (const block of content) {
    if (typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string") {
      out = out.length === 0 ? block.text : `${out} ${block.text}`
    }
  }
  return out
}

/** Takes one more row into `summary` (in place). */
export const push = (summary: Summary, line: Line.ParsedLine): void => {
  const id = Line.rowId(line)
  if (id !== undefined) summary.tail_id = id
  if (line._tag === "Entry") summary.leaf = line.entry.id
  else if (line._tag === "LeafControl") summary.leaf = line.control.targetId
  if (summary.is_session === 0 || line._tag === "Blank" || line._tag === "Corrupt") return
  if (summary.is_session === null) {
    if (line._tag !== "Header") {
      summary.is_session = 0
      return
    }
    const header = line.header as unknown as Record<string, unknown>
    summary.is_session = typeof header.id === "string" ? 1 : 0
    summary.header_id = typeof header.id === "string" ? header.id : null
    summary.cwd = typeof header.cwd === "string" ? header.cwd : ""
    summary.parent_session = typeof header.parentSession === "string" ? header.parentSession : null
    summary.created = typeof header.timestamp === "string" ? header.timestamp : null
    const created = summary.created === null ? Number.NaN : Date.parse(summary.created)
    summary.created_ms = Number.isNaN(created) ? null : created
    return
  }
  if (line._tag !== "Entry") return
  const entry = line.entry
  if (entry.type === "session_info") {
    summary.name = typeof entry.name === "string" ? entry.name.trim() || null : null
  }
  if (entry.type !== "message") return
  summary.message_count += 1
  const message = entry.message as { readonly role: string; readonly content?: unknown; readonly timestamp?: unknown }
  if (message.role !== "user" && message.role !== "assistant") return
  const text = textOf(message.content)
  if (text.length > 0 && isWhole(summary.all_text)) {
    const joined = summary.all_text.length === 0 ? text : `${summary.all_text} ${text}`
    summary.all_text = joined.slice(0, MAX_STORED_TEXT + 1)
  }
  if (message.role === "user" && summary.first_message === null && text.length > 0) summary.first_message = text
  const at = typeof message.timestamp === "number" ? message.timestamp : Date.parse(entry.timestamp)
  if (!Number.isNaN(at) && (summary.last_activity_ms === null || at > summary.last_activity_ms)) {
    summary.last_activity_ms = at
  }
}

/** The columns of a parsed row: id, parent id, type and timestamp (strings only), for the `rows` table. */
export const columnsOf = (
  line: Line.ParsedLine
): readonly [id: string | null, parentId: string | null, type: string | null, timestamp: string | null] => {
  const str = (value: unknown) => (typeof value === "string" ? value : null)
  switch (line._tag) {
    case "Header":
      return [str(line.header.id), null, "session", str(line.header.timestamp)]
    case "Entry":
      return [line.entry.id, line.entry.parentId, line.entry.type, str(line.entry.timestamp)]
    case "LeafControl":
      return [line.control.id, line.control.parentId, "leaf", str(line.control.timestamp)]
    case "Opaque":
      return [str(line.value.id), str(line.value.parentId), str(line.value.type), str(line.value.timestamp)]
    default:
      return [null, null, null, null]
  }
}

/** The searchable text of a message entry with its role, or `undefined` for any other row. */
export const searchable = (line: Line.ParsedLine): { readonly role: string; readonly text: string } | undefined => {
  if (line._tag !== "Entry" || line.entry.type !== "message") return undefined
  const message = line.entry.message as { readonly role?: unknown; readonly content?: unknown }
  const text = textOf(message.content)
  return text.length === 0 ? undefined : { role: typeof message.role === "string" ? message.role : "", text }
}
