/**
 * What changed in a JSONL file since a cursor (its snapshot against the file, and the rows
 * appended since, read from the cursor's end), and where written lines land.
 */
import type { Line } from "@branchlog/session-core"
import type { Changes, Position, StoreFailure } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as FileSnapshot from "../../FileSnapshot.js"
import * as OversizedLine from "../../OversizedLine.js"
import { JsonlCursor, toCursor } from "./cursor.js"
import type { Env } from "./env.js"

/** The position after a line of `text` at `position`: its UTF-8 bytes plus the newline. */
export const positionAfter = (position: Position, text: string): Position => ({
  line: position.line + 1,
  offset: position.offset + Buffer.byteLength(text) + 1
})

export const positionsOf = (start: Position, texts: ReadonlyArray<string>, lastBytes?: number) => {
  const positions: Array<Position> = []
  let line = start.line
  let offset = start.offset
  for (let i = 0; i < texts.length; i++) {
    line += 1
    positions.push({ line, offset })
    offset += i === texts.length - 1 && lastBytes !== undefined ? lastBytes : Buffer.byteLength(texts[i]!) + 1
  }
  return { positions, end: { line, offset } }
}

/** Takes a cursor's deferred snapshot now (as of its end). */
export const settle = (env: Env, path: string, cursor: JsonlCursor): Effect.Effect<void, StoreFailure> =>
  !cursor.stale ? Effect.void : Effect.map(env.snapshots.captureTailed(path, { upTo: cursor.end.offset }), (found) => {
    const tailed = Option.getOrUndefined(found)
    cursor.snapshot = tailed?.snapshot
    cursor.tail = tailed?.tail
    cursor.stale = false
  })

const unchanged: Changes = { _tag: "Unchanged" }
const replaced: Changes = { _tag: "Replaced" }
const missing: Changes = { _tag: "Missing" }

/**
 * Whether the byte before `offset` is a newline (what `cursor`'s tail holds, else one byte read):
 * `false` when the file as the cursor saw it ended in a torn line.
 */
const endsLine = (env: Env, path: string, cursor: JsonlCursor, offset: number) => {
  const tail = cursor.tail
  if (offset === 0) return Effect.succeed(true)
  if (tail !== undefined && tail.length > 0 && cursor.snapshot?.size === offset) {
    return Effect.succeed(tail[tail.length - 1] === 0x0a)
  }
  return Effect.map(env.files.readRanges(path, [[offset - 1, 1]]), (chunks) => chunks[0]?.[0] === 0x0a)
}

/**
 * Reads the rows appended since `cursor` (from its end, where the file's old tail still hashes the
 * same). After a torn last line the appended bytes continue that line (pi appends without a
 * newline first), so the file is re-read whole (`Replaced`) instead.
 */
const appendedSince = (env: Env, path: string, cursor: JsonlCursor, fromOffset: number) =>
  Effect.gen(function*() {
    if (!(yield* endsLine(env, path, cursor, fromOffset))) return replaced
    const tail = yield* env.files.readFrom(path, fromOffset, { firstLine: cursor.end.line + 1 })
    const rows: Array<Line.ParsedLine> = tail.lines.map((l) => OversizedLine.parse(l, path, env.files))
    const end = { line: cursor.end.line + tail.lines.length, offset: tail.endOffset }
    const tailed = Option.getOrUndefined(yield* env.snapshots.captureTailed(path, { upTo: tail.endOffset }))
    const next = new JsonlCursor(tailed?.snapshot, end, false, tailed?.tail)
    return { _tag: "Appended", rows, cursor: toCursor(next), end } satisfies Changes
  })

/** The file against a settled cursor's snapshot (plain code around the classification: this runs before every write). */
const classified = (env: Env, path: string, cursor: JsonlCursor): Effect.Effect<Changes, StoreFailure> => {
  const snapshot = cursor.snapshot
  if (snapshot === undefined) return Effect.succeed(replaced)
  return Effect.flatMap(env.snapshots.classify(path, snapshot), (change): Effect.Effect<Changes, StoreFailure> => {
    switch (change._tag) {
      case "Unchanged":
        return Effect.succeed(unchanged)
      case "Replaced":
        return Effect.succeed(replaced)
      case "Missing":
        return Effect.succeed(missing)
      case "Appended":
        return appendedSince(env, path, cursor, change.fromOffset)
    }
  })
}

/** What changed in the file since `cursor` (rows appended since are read from its end). */
export const changesOf = (env: Env, path: string, cursor: JsonlCursor): Effect.Effect<Changes, StoreFailure> =>
  cursor.stale
    ? Effect.flatMap(settle(env, path, cursor), () => classified(env, path, cursor))
    : Effect.suspend(() => classified(env, path, cursor))

/**
 * The file as `from` verified it, when its snapshot is current and its tail ends with `\n` (the
 * append then skips the read-back of the last byte if the file it opens is still exactly that).
 */
export const knownEnd = (from: JsonlCursor | undefined): FileSnapshot.Snapshot | undefined => {
  const snapshot = from?.snapshot
  const tail = from?.tail
  return from === undefined || from.stale || snapshot === undefined || tail === undefined || tail.length === 0 ||
      snapshot.size !== from.end.offset || tail[tail.length - 1] !== 0x0a
    ? undefined
    : snapshot
}
