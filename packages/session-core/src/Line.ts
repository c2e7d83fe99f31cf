/**
 * The line codec: one line of a session file in, one {@link ParsedLine} out. It never throws.
 *
 * - a canonical entry ({@link Entry.Entry}), a header, or a `leaf` control, as the parsed object
 *   itself (extra fields kept, so serialising gives back the same bytes);
 * - an opaque row: any other JSON object, kept verbatim with its raw text;
 * - a corrupt line: anything that is not a JSON object, with its 1-based line number, its byte
 *   offset and the reason;
 * - a blank line.
 *
 * What the references tolerate around a line is tolerated here (they trim the whole file, split it
 * on `\n` and `JSON.parse` each line): white space around the object, a `\r` of a CRLF line end,
 * and at the start of the file a UTF-8 byte-order mark (or any other leading white space). Such a
 * line keeps its text: {@link serialize} gives back the same bytes, BOM and CR included.
 *
 * Rows are classified by a guard that accepts what {@link EntryEnvelope} and
 * {@link LeafControlEnvelope} accept (see `internal/classify.ts`). In a legacy file (version < 2)
 * canonical rows have no ids yet; they are parsed as opaque rows and the v1 → v2 migration turns
 * them into entries.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { Entry, LeafControl, SessionHeader } from "./Entry.js"
import { classify } from "./internal/classify.js"
import { canonicalEntryTypes } from "./internal/entryTypes.js"

/** Where a line sits in its file: 1-based line number and byte offset of its first byte. */
export interface Position {
  readonly line: number
  readonly offset: number
}

/** The session header line. */
export interface HeaderLine extends Position {
  readonly _tag: "Header"
  readonly header: SessionHeader
}

/** A canonical entry. */
export interface EntryLine extends Position {
  readonly _tag: "Entry"
  readonly entry: Entry
}

/** An OpenClaw leaf-control row. */
export interface LeafControlLine extends Position {
  readonly _tag: "LeafControl"
  readonly control: LeafControl
}

/** Any other JSON object: kept byte for byte. */
export interface OpaqueLine extends Position {
  readonly _tag: "Opaque"
  readonly value: Readonly<Record<string, unknown>>
  readonly raw: string
}

/**
 * An opaque row that stands for a line too long to be a string (a backend's: the JSONL store's
 * `OversizedRow`): where it is and how long, its `value` the fields its head shows, never its text
 * (its `raw` throws). Code above the stores recognises it with {@link isOversized}.
 */
export interface OversizedLine extends OpaqueLine {
  readonly oversized: true
  /** Its length in bytes, without the `\n`. */
  readonly byteLength: number
}

/** `true` for an {@link OversizedLine}. */
export const isOversized = (line: ParsedLine): line is OversizedLine =>
  line._tag === "Opaque" && (line as Partial<OversizedLine>).oversized === true

/** A line that is not a JSON object (unparseable, torn, or another JSON value). */
export interface CorruptLine extends Position {
  readonly _tag: "Corrupt"
  readonly raw: string
  readonly reason: string
}

/** An empty or white-space-only line. */
export interface BlankLine extends Position {
  readonly _tag: "Blank"
  readonly raw: string
}

/** One parsed line. */
export type ParsedLine = HeaderLine | EntryLine | LeafControlLine | OpaqueLine | CorruptLine | BlankLine

/** A parsed line that holds a row of the file (everything but blanks). */
export type Row = Exclude<ParsedLine, BlankLine>

/** `true` for an empty or white-space-only line (a JSON object line starts with `{`: no scan). */
const isBlank = (text: string): boolean =>
  text.length === 0 || (text.charCodeAt(0) !== 0x7b && text.trim().length === 0)

/** The UTF-8 byte-order mark, as a character. */
export const BYTE_ORDER_MARK = "\uFEFF"

/**
 * The text of headers, entries and leaf controls whose line is not exactly an object (white
 * space, a `\r` or a BOM around it), by the identity of the parsed value: a copy or a changed
 * value (a migration, a new header) is serialised afresh, the value as parsed gives back its line.
 * Only such lines are recorded, so the common line costs two character reads.
 */
const paddedText = new WeakMap<object, string>()

/** `true` when a line does not start with `{` or does not end with `}`. */
const isPadded = (text: string): boolean => text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d

/**
 * Parses one line (without its `\n`). `line` (1-based) and `offset` (bytes) say where it sits in
 * the file, for reports. Never throws. At offset 0 (the start of a file) leading white space, a
 * byte-order mark included, is ignored, as the references' `content.trim()` ignores it; elsewhere
 * what `JSON.parse` ignores (spaces, tabs, `\r`) is ignored.
 */
export const parse = (text: string, line = 1, offset = 0): ParsedLine => {
  if (isBlank(text)) return { _tag: "Blank", raw: text, line, offset }
  let value: unknown
  try {
    value = JSON.parse(offset === 0 && text.charCodeAt(0) !== 0x7b ? text.trimStart() : text)
  } catch (error) {
    return { _tag: "Corrupt", raw: text, reason: `invalid JSON: ${(error as Error).message}`, line, offset }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`
    return { _tag: "Corrupt", raw: text, reason: `not a JSON object (${kind})`, line, offset }
  }
  const row = value as Record<string, unknown>
  const kind = classify(row)
  if (kind !== "opaque" && isPadded(text)) paddedText.set(row, text)
  switch (kind) {
    case "header":
      return { _tag: "Header", header: row as unknown as SessionHeader, line, offset }
    case "entry":
      return { _tag: "Entry", entry: row as unknown as Entry, line, offset }
    case "leaf":
      return { _tag: "LeafControl", control: row as unknown as LeafControl, line, offset }
    case "opaque":
      return { _tag: "Opaque", value: row, raw: text, line, offset }
  }
}

/**
 * Splits a whole file's text on `\n` and parses every line, with line numbers and byte offsets.
 * A final segment after the last `\n` is a line too (a torn tail when it does not parse).
 * The empty segment after a final `\n` is not a line.
 */
export const parseText = (text: string): Array<ParsedLine> => {
  const lines: Array<ParsedLine> = []
  // byte offsets: "\n" is one byte in UTF-8 and never part of another character, so the n-th
  // newline of the text is the n-th 0x0A of its encoding
  const bytes = encoder.encode(text)
  let start = 0
  let offset = 0
  let line = 1
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    lines.push(parse(text.slice(start, end), line, offset))
    const byteEnd = bytes.indexOf(0x0a, offset)
    offset = byteEnd === -1 ? bytes.length : byteEnd + 1
    line += 1
    start = end + 1
  }
  return lines
}

const encoder = new TextEncoder()

/**
 * The text of a row, without its `\n`: `JSON.stringify` of a header, entry or leaf control
 * (properties whose value is `undefined` are absent) unless the value is the one parsed from a
 * line with white space, a `\r` or a BOM around it (then that line's text); the raw text of an
 * opaque, corrupt or blank line.
 */
export const serialize = (line: ParsedLine): string => {
  switch (line._tag) {
    case "Header":
      return paddedText.get(line.header) ?? JSON.stringify(line.header)
    case "Entry":
      return paddedText.get(line.entry) ?? JSON.stringify(line.entry)
    case "LeafControl":
      return paddedText.get(line.control) ?? JSON.stringify(line.control)
    case "Opaque":
    case "Corrupt":
    case "Blank":
      return line.raw
  }
}

/** `true` when the line's text starts with a UTF-8 byte-order mark. */
export const hasByteOrderMark = (line: ParsedLine): boolean => {
  const text = line._tag === "Header"
    ? paddedText.get(line.header)
    : line._tag === "Entry"
    ? paddedText.get(line.entry)
    : line._tag === "LeafControl"
    ? paddedText.get(line.control)
    : line.raw
  return text !== undefined && text.charCodeAt(0) === 0xfeff
}

/** The text without a leading byte-order mark (what `repair` writes for the first line). */
export const withoutByteOrderMark = (text: string): string => text.charCodeAt(0) === 0xfeff ? text.slice(1) : text

/** The line of one header, entry or leaf-control value, as the references write it. */
export const stringify = (value: SessionHeader | Entry | LeafControl): string => JSON.stringify(value)

const NonBlank = Schema.String.pipe(Schema.filter((s) => s.trim().length > 0, { message: () => "blank" }))
const ParentRef = Schema.NullOr(Schema.String)

/**
 * What makes a row a canonical entry, as a schema: the envelope the line codec checks (the rest
 * of an entry's fields are the references' business, and are not validated on read).
 */
export const EntryEnvelope = Schema.Struct({
  type: Schema.Literal(...canonicalEntryTypes),
  id: NonBlank,
  parentId: Schema.optional(ParentRef),
  timestamp: Schema.optional(Schema.String),
  message: Schema.optional(Schema.Unknown)
}).pipe(
  Schema.filter((row) => row.type !== "message" || Schema.is(Schema.Struct({ role: NonBlank }))(row.message), {
    message: () => "a message entry needs a message with a non-blank role"
  })
)

/** What makes a row a leaf control, as a schema. */
export const LeafControlEnvelope = Schema.Struct({
  type: Schema.Literal("leaf"),
  id: NonBlank,
  parentId: ParentRef,
  targetId: ParentRef,
  appendParentId: Schema.optional(ParentRef)
})

/**
 * The id a row carries: an entry's, a leaf control's, or an opaque row's non-empty string `id`
 * (what a leaf control written after the row names as its `parentId`); `undefined` for the rest.
 */
export const rowId = (row: ParsedLine): string | undefined => {
  switch (row._tag) {
    case "Entry":
      return row.entry.id
    case "LeafControl":
      return row.control.id
    case "Opaque":
      return typeof row.value.id === "string" && row.value.id.length > 0 ? row.value.id : undefined
    default:
      return undefined
  }
}
