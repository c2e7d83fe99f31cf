/**
 * Text search by scanning rows (for stores with no index of message text: JSONL files): which text
 * of an entry is searchable, how a query matches it, a score and a snippet. Pure.
 */
import type { Entry } from "@branchlog/session-core"

/** The searchable text of an entry: a message's text blocks, with its role; `undefined` for other entries. */
export const searchText = (entry: Entry.Entry): { readonly role: string; readonly text: string } | undefined => {
  if (entry.type !== "message") return undefined
  const message = entry.message as { readonly role?: unknown; readonly content?: unknown }
  if (typeof message.role !== "string") return undefined
  const content = message.content
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content
      .filter((block): block is { text: string } =>
        typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string"
      )
      .map((block) => block.text)
      .join(" ")
    : ""
  return text.length === 0 ? undefined : { role: message.role, text }
}

/** The lower-cased words of a query (letters and digits of any script; at most 16). */
export const terms = (query: string): ReadonlyArray<string> =>
  [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, 16)

const SNIPPET = 64

/**
 * How `text` matches every one of `words` (case-insensitive prefixes of its words): `undefined`
 * when one is missing; else a score (occurrences, damped by length) and a snippet around the
 * first match with each match between `[` and `]`.
 */
export const match = (
  text: string,
  words: ReadonlyArray<string>
): { readonly score: number; readonly snippet: string } | undefined => {
  if (words.length === 0) return undefined
  const lower = text.toLowerCase()
  let first = Number.POSITIVE_INFINITY
  let occurrences = 0
  const spans: Array<[number, number]> = []
  for (const word of words) {
    let found = false
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "gu")
    for (const m of lower.matchAll(pattern)) {
      found = true
      occurrences += 1
      spans.push([m.index, m.index + word.length])
      if (m.index < first) first = m.index
    }
    if (!found) return undefined
  }
  const start = Math.max(0, first - SNIPPET / 2)
  const end = Math.min(text.length, first + SNIPPET * 1.5)
  spans.sort((a, b) => a[0] - b[0])
  let snippet = start > 0 ? "…" : ""
  let at = start
  for (const [from, to] of spans) {
    if (from < at || to > end) continue
    snippet += text.slice(at, from) + "[" + text.slice(from, to) + "]"
    at = to
  }
  snippet += text.slice(at, end) + (end < text.length ? "…" : "")
  return { score: occurrences / Math.log2(2 + text.length / 256), snippet: snippet.replace(/\s+/g, " ") }
}
