/**
 * The session index document: one JSON object `{ [sessionKey]: record }` (the OpenClaw
 * `sessions.json` shape). Classifies raw text as good or damaged (and how), serialises, and finds
 * the stored key that a normalised key names.
 *
 * @internal
 */
import * as SessionKey from "../SessionKey.js"

/** The entries of an index, as stored: raw JSON values, in file order. */
export type Entries = Record<string, unknown>

/** Why an index's text cannot be used. */
export type DamageReason = "empty" | "truncated" | "not-json" | "not-an-object"

/** What a text holds: a usable document, or damage. */
export type Classified =
  | { readonly _tag: "Good"; readonly entries: Entries }
  | { readonly _tag: "Damaged"; readonly reason: DamageReason; readonly detail: string }

const isPlainObject = (u: unknown): u is Entries => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Classifies the text of an index: blank is `empty`; text that starts like an object (`{`) but does
 * not parse is `truncated` (cut off mid-write, or damaged inside); any other text that does not
 * parse is `not-json`; JSON that is not an object (`[]`, `null`, `"…"`) is `not-an-object`.
 */
export const classify = (text: string): Classified => {
  const trimmed = text.trim()
  if (trimmed === "") {
    return { _tag: "Damaged", reason: "empty", detail: text.length === 0 ? "0 bytes" : "only whitespace" }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(trimmed)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    return { _tag: "Damaged", reason: trimmed.startsWith("{") ? "truncated" : "not-json", detail }
  }
  if (!isPlainObject(parsed)) {
    const found = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`
    return { _tag: "Damaged", reason: "not-an-object", detail: `the top level is ${found}, not an object` }
  }
  return { _tag: "Good", entries: parsed }
}

/** The text written for a document: pretty-printed JSON (2 spaces) and a final newline. */
export const serialize = (entries: Entries): string => `${JSON.stringify(entries, null, 2)}\n`

/** The text of an empty index. */
export const EMPTY: string = serialize({})

/**
 * The stored keys that name `key`: the exact key first, then any stored key whose normal form is
 * `key` (written by an older or foreign writer), in file order.
 */
export const storedKeysOf = (entries: Entries, key: string): ReadonlyArray<string> => {
  const found: Array<string> = Object.prototype.hasOwnProperty.call(entries, key) ? [key] : []
  for (const stored of Object.keys(entries)) {
    if (stored !== key && SessionKey.normalize(stored) === key) found.push(stored)
  }
  return found
}

/** The text of a file and its exact size in bytes (the text may hold U+FFFD for bytes that are not UTF-8). */
export interface FileText {
  readonly text: string
  readonly byteLength: number
}

/** Rebuilds the text of a file from its lines (each without its `\n`). */
export const joinLines = (
  lines: ReadonlyArray<{ readonly text: string; readonly byteLength: number; readonly terminated: boolean }>
): FileText => {
  let byteLength = 0
  for (const line of lines) byteLength += line.byteLength + (line.terminated ? 1 : 0)
  if (lines.length === 0) return { text: "", byteLength }
  const last = lines[lines.length - 1]!
  return { text: lines.map((line) => line.text).join("\n") + (last.terminated ? "\n" : ""), byteLength }
}
