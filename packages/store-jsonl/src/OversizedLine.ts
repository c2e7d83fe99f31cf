/**
 * Lines longer than the line ceiling (`TranscriptFile`'s `maxLineBytes`, by default the longest
 * string V8 can build): such a line is never decoded nor held in memory. It becomes an opaque row,
 * {@link OversizedRow}, that keeps where its bytes are (path, line, offset, length) and what its
 * first bytes tell (type, id, parent), so the tree still links through it and the rest of the file
 * opens. A rewrite copies its bytes from the file ({@link bytes}); its text cannot be built, and
 * asking for it throws {@link OversizedLineError} instead of giving something to write in its place.
 *
 * @since 0.1.0
 */
import type { Line as ParsedLines } from "@branchlog/session-core"
import { Line } from "@branchlog/session-core"
import type { FileNotFoundError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import { FileSystemError } from "@branchlog/session-store/StoreError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as TranscriptFile from "./TranscriptFile.js"

/** An oversized line's text was asked for (it cannot be a string), or its bytes changed before they were copied. */
export class OversizedLineError extends Schema.TaggedError<OversizedLineError>()("OversizedLineError", {
  path: Schema.String,
  line: Schema.Number,
  offset: Schema.Number,
  byteLength: Schema.Number,
  detail: Schema.String
}) {
  /** `line <n> (offset <o>, <b> bytes): <detail>: <path>`. */
  override get message(): string {
    return `line ${this.line} (offset ${this.offset}, ${this.byteLength} bytes): ${this.detail}: ${this.path}`
  }
}

/** The `type` of an oversized row's value: not a canonical type, so no migration takes it for an entry. */
export const TYPE = "branchlog.oversized"

/** What an oversized row's value holds: its own type, id and parent when its head tells them. */
export interface Value {
  readonly [key: string]: unknown
  readonly type: typeof TYPE
  readonly originalType?: string
  readonly id?: string
  readonly parentId?: string | null
}

/** An oversized line as an opaque row: where its bytes are, its head, and the fields its head tells. */
export class OversizedRow implements ParsedLines.OversizedLine {
  /** An opaque row to every reader of rows. */
  readonly _tag = "Opaque" as const
  /** What `Line.isOversized` recognises. */
  readonly oversized = true as const
  constructor(
    /** The file it was read from. */
    readonly path: string,
    readonly line: number,
    readonly offset: number,
    /** Its length in bytes, without the `\n`. */
    readonly byteLength: number,
    /** `false` when it is the file's last line, without `\n`. */
    readonly terminated: boolean,
    /** Its first bytes (at most 64 KiB). */
    readonly head: Uint8Array,
    readonly value: Value,
    /** The service that read it, to copy its bytes into a rewrite. */
    readonly source?: TranscriptFile.TranscriptFileShape
  ) {}

  /** Its text cannot be a string: throws `OversizedLineError` (copy its {@link bytes} instead). */
  get raw(): string {
    throw new OversizedLineError({
      path: this.path,
      line: this.line,
      offset: this.offset,
      byteLength: this.byteLength,
      detail: "the line is too long to be a string; its bytes are copied, never its text"
    })
  }
}

/** `true` for an oversized row. */
export const is = (line: ParsedLines.ParsedLine): line is OversizedRow => line instanceof OversizedRow

/**
 * Parses a line read by `TranscriptFile` (from `path`): `Line.parse` of its text, or an
 * {@link OversizedRow} (that copies its bytes through `source` when a rewrite needs them).
 */
export const parse = (
  line: TranscriptFile.Line,
  path: string,
  source?: TranscriptFile.TranscriptFileShape
): ParsedLines.ParsedLine =>
  line.oversized === undefined
    ? Line.parse(line.text, line.line, line.offset)
    : new OversizedRow(
      path,
      line.line,
      line.offset,
      line.byteLength,
      line.terminated,
      line.oversized.head,
      valueOf(line.oversized.head),
      source
    )

/** The value of an oversized row: the top-level `type`, `id` and `parentId` that its head shows. */
export const valueOf = (head: Uint8Array): Value => {
  const fields = topLevelFields(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("utf8"))
  return {
    type: TYPE,
    ...(typeof fields.type === "string" ? { originalType: fields.type } : {}),
    ...(typeof fields.id === "string" && fields.id.trim() !== "" ? { id: fields.id } : {}),
    ...(fields.parentId === null || typeof fields.parentId === "string" ? { parentId: fields.parentId } : {})
  }
}

const WANTED = new Set(["type", "id", "parentId"])

/**
 * The top-level string and null values of `type`, `id` and `parentId` in the beginning of a JSON
 * object (the references write them first); stops at the end of the text or when all are found.
 */
const topLevelFields = (text: string): Record<string, string | null | undefined> => {
  const out: Record<string, string | null | undefined> = {}
  let i = 0
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++
  }
  const string = (): string | undefined => {
    const start = i
    i++
    while (i < text.length && text[i] !== "\"") i += text[i] === "\\" ? 2 : 1
    if (i >= text.length) return undefined
    i++
    try {
      return JSON.parse(text.slice(start, i)) as string
    } catch {
      return undefined
    }
  }
  /** Skips a value; `false` when the text ends inside it. */
  const skip = (): boolean => {
    let depth = 0
    while (i < text.length) {
      const c = text[i]!
      if (c === "\"") {
        if (string() === undefined) return false
        if (depth === 0) return true
        continue
      }
      if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        if (depth === 0) return true
        depth--
        if (depth === 0) {
          i++
          return true
        }
      } else if (depth === 0 && (c === "," || " \t\r\n".includes(c))) return true
      i++
    }
    return false
  }
  ws()
  if (text[i] !== "{") return out
  i++
  for (let found = 0; found < WANTED.size;) {
    ws()
    if (text[i] !== "\"") return out
    const key = string()
    ws()
    if (key === undefined || text[i] !== ":") return out
    i++
    ws()
    if (WANTED.has(key) && !(key in out)) {
      if (text[i] === "\"") {
        const value = string()
        if (value === undefined) return out
        out[key] = value
        found++
      } else if (text.startsWith("null", i)) {
        out[key] = null
        i += 4
        found++
      } else if (!skip()) return out
    } else if (!skip()) return out
    ws()
    if (text[i] !== ",") return out
    i++
  }
  return out
}

const NEWLINE = new Uint8Array([0x0a])

/**
 * The bytes of an oversized row as a rewrite writes them: copied from its file, followed by `\n`.
 * Its first bytes must still be its head and a `\n` must still end it; if the file changed under
 * it, the stream fails with `OversizedLineError` (the rewrite is then abandoned, nothing lost).
 */
export const bytes = (
  files: TranscriptFile.TranscriptFileShape,
  row: OversizedRow
): Stream.Stream<Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError | OversizedLineError> => {
  const changed = (detail: string) =>
    new OversizedLineError({
      path: row.path,
      line: row.line,
      offset: row.offset,
      byteLength: row.byteLength,
      detail: `the file changed since the line was read (${detail}); nothing was written`
    })
  const expected = row.byteLength + (row.terminated ? 1 : 0)
  let seen = 0
  return files.bytes(row.path, row.offset, expected).pipe(
    Stream.mapEffect((piece) => {
      const at = seen
      seen += piece.length
      for (let k = at; k < Math.min(seen, row.head.length); k++) {
        if (piece[k - at] !== row.head[k]) return Effect.fail(changed("its first bytes differ"))
      }
      if (row.terminated && seen === expected && piece[piece.length - 1] !== 0x0a) {
        return Effect.fail(changed("it no longer ends where it did"))
      }
      return Effect.succeed(piece)
    }),
    Stream.concat(Stream.suspend(() =>
      seen !== expected
        ? Stream.fail(changed("it is shorter"))
        : row.terminated
        ? Stream.empty
        : Stream.succeed(NEWLINE)
    ))
  )
}

/**
 * The content of a rewrite of `lines`, streamed: each line serialised and ended by `\n`, in
 * batches of 2,048 lines joined into one string, and the bytes of each oversized row copied from
 * the file it was read from (through its `source`). An oversized row that cannot be copied fails
 * the stream with a `FileSystemError` naming its line and offset: the rewrite is abandoned.
 */
export const content = (
  lines: Iterable<ParsedLines.ParsedLine>
): Stream.Stream<string | Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError> =>
  Stream.fromIterable(lines).pipe(
    Stream.grouped(2048),
    Stream.flatMap((chunk) => {
      const pieces: Array<
        Stream.Stream<string | Uint8Array, FileNotFoundError | FileSystemError | NotRegularFileError>
      > = []
      let text: Array<string> = []
      for (const line of chunk) {
        if (!is(line)) {
          text.push(Line.serialize(line) + "\n")
          continue
        }
        if (text.length > 0) pieces.push(Stream.succeed(text.join("")))
        text = []
        pieces.push(copy(line))
      }
      if (text.length > 0) pieces.push(Stream.succeed(text.join("")))
      return pieces.length === 1 ? pieces[0]! : Stream.concatAll(Chunk.unsafeFromArray(pieces))
    })
  )

const copy = (row: OversizedRow) =>
  row.source === undefined
    ? Stream.fail(
      new FileSystemError({
        path: row.path,
        operation: "copy oversized line",
        offset: row.offset,
        detail: `line ${row.line} (${row.byteLength} bytes) was read without a source to copy it from`
      })
    )
    : bytes(row.source, row).pipe(
      Stream.catchTag("OversizedLineError", (error) =>
        Stream.fail(
          new FileSystemError({
            path: error.path,
            operation: "copy oversized line",
            offset: error.offset,
            detail: error.message
          })
        ))
    )
