/** Splitting a JSONL source into records with their line numbers and byte offsets (pure). */

/** One line of a JSONL source: its value, or why it is not one. */
export type SourceLine =
  | { readonly _tag: "Record"; readonly line: number; readonly offset: number; readonly value: Record<string, unknown> }
  | { readonly _tag: "Bad"; readonly line: number; readonly offset: number; readonly reason: string }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The non-blank lines of `bytes` (UTF-8, `\n` separated; a `\r` before it and a BOM at the start are
 * ignored), 1-based line numbers and byte offsets of each line's start. A line that is not a JSON
 * object is `Bad`; the last one, when the file does not end with a newline, is named a torn last line.
 */
export const splitLines = (bytes: Uint8Array): Array<SourceLine> => {
  const out: Array<SourceLine> = []
  const decoder = new TextDecoder("utf-8", { fatal: false })
  let start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let line = 0
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start)
    const torn = end === -1
    if (torn) end = bytes.length
    line++
    const text = decoder.decode(bytes.subarray(start, end)).replace(/\r$/, "")
    if (text.trim().length > 0) {
      let value: unknown
      let error: string | undefined
      try {
        value = JSON.parse(text)
      } catch (e) {
        error = (e as Error).message
      }
      if (error !== undefined) {
        out.push({
          _tag: "Bad",
          line,
          offset: start,
          reason: torn ? `torn last line (no newline at the end): ${error}` : `not JSON: ${error}`
        })
      } else if (!isObject(value)) {
        out.push({ _tag: "Bad", line, offset: start, reason: "not a JSON object" })
      } else {
        out.push({ _tag: "Record", line, offset: start, value })
      }
    }
    start = end + 1
  }
  return out
}

/** The first `count` records of `bytes` (for format detection: reads no further than it needs). */
export const firstRecords = (bytes: Uint8Array, count: number): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  let start = 0
  const decoder = new TextDecoder()
  while (start < bytes.length && out.length < count) {
    let end = bytes.indexOf(0x0a, start)
    if (end === -1) end = bytes.length
    const text = decoder.decode(bytes.subarray(start, end)).replace(/^\uFEFF/, "").trim()
    if (text.length > 0) {
      try {
        const value: unknown = JSON.parse(text)
        if (isObject(value)) out.push(value)
      } catch {
        // not a record: detection looks at the others
      }
    }
    start = end + 1
  }
  return out
}
