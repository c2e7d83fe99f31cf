/**
 * Case rules for session keys: everything is lowercased except the case-preserving peer ids.
 *
 * - Signal group ids: the one `:`-free segment after `signal:group:` (anywhere in the key, also
 *   without an `agent:<id>:` head) keeps its case and is trimmed.
 * - Matrix channel and group ids: the whole tail after `agent:<id>:matrix:<channel|group>:` (or a
 *   leading `matrix:<channel|group>:`) keeps its case, except a last `:thread:` marker, which is
 *   lowercased; the thread id after it keeps its case too (Matrix event ids are case-sensitive).
 *
 * @internal
 */
import * as AgentId from "../AgentId.js"

interface Span {
  readonly start: number
  readonly end: number
  readonly trim: boolean
}

const THREAD_MARKER = ":thread:"
const SIGNAL_GROUP = /(^|:)signal:group:([^:]+)/gi
const MATRIX_SCOPED = /^agent:[^:]+:matrix:(?:channel|group):/i
const MATRIX_UNSCOPED = /^matrix:(?:channel|group):/i

const collectSpans = (raw: string): Array<Span> => {
  const spans: Array<Span> = []
  for (const match of raw.matchAll(SIGNAL_GROUP)) {
    const segment = match[2] ?? ""
    const start = (match.index ?? 0) + match[0].length - segment.length
    spans.push({ start, end: start + segment.length, trim: true })
  }
  const head = MATRIX_SCOPED.exec(raw) ?? MATRIX_UNSCOPED.exec(raw)
  if (head !== null && head[0].length < raw.length) {
    const tailStart = head[0].length
    const marker = raw.slice(tailStart).toLowerCase().lastIndexOf(THREAD_MARKER)
    if (marker === -1) {
      spans.push({ start: tailStart, end: raw.length, trim: false })
    } else {
      spans.push({ start: tailStart, end: tailStart + marker, trim: false })
      spans.push({ start: tailStart + marker + THREAD_MARKER.length, end: raw.length, trim: false })
    }
  }
  return spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start)
}

/** Whether the key may hold a case-preserving id at all (cheap pre-check). */
const mayPreserve = (raw: string): boolean => {
  const folded = raw.toLowerCase()
  return folded.includes("signal:") || folded.includes("matrix:")
}

/** Lowercases `raw` outside the case-preserving spans. */
export const foldCase = (raw: string): string => {
  if (!mayPreserve(raw)) return raw.toLowerCase()
  let out = ""
  let cursor = 0
  for (const span of collectSpans(raw)) {
    if (span.start < cursor) continue
    out += raw.slice(cursor, span.start).toLowerCase()
    const kept = raw.slice(span.start, span.end)
    out += span.trim ? kept.trim() : kept
    cursor = span.end
  }
  return out + raw.slice(cursor).toLowerCase()
}

/** Replaces the agent id of an `agent:<id>:…` key by its sanitised form (blank ids are left). */
const sanitizeAgentSegment = (key: string): string => {
  if (!key.startsWith("agent:")) return key
  const end = key.indexOf(":", 6)
  const raw = end === -1 ? key.slice(6) : key.slice(6, end)
  if (raw.trim() === "" || AgentId.isValid(raw)) return key
  return `agent:${AgentId.normalize(raw)}${end === -1 ? "" : key.slice(end)}`
}

/**
 * Canonical form of a session key: trimmed, case-folded by the rules above, agent id sanitised.
 * Total; blank input gives `""`.
 */
export const normalizeKey = (input: string | null | undefined): string => {
  const trimmed = (input ?? "").trim()
  if (trimmed === "") return ""
  return sanitizeAgentSegment(foldCase(trimmed)).trim()
}
