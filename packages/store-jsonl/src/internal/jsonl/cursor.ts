/**
 * The JSONL store's cursor: the snapshot of the file as of what was read (or written) and the
 * position after it. Inside an exclusive hold, writes defer their snapshot (`stale`), taken once
 * when the hold ends (or before the next check).
 */
import type { Cursor, Position } from "@branchlog/session-store/TranscriptStore"
import type * as FileSnapshot from "../../FileSnapshot.js"

/** The state behind a JSONL cursor (mutable only by the store that made it). */
export class JsonlCursor {
  constructor(
    /** The fingerprint of the file as of `end`; `undefined` when it could not be taken. */
    public snapshot: FileSnapshot.Snapshot | undefined,
    /** The position after the last row seen (line count, byte offset). */
    readonly end: Position,
    /** The snapshot is behind `end` (deferred inside a hold). */
    public stale: boolean,
    /** The bytes the snapshot's hash covers, when known (to derive the snapshot after an append from it). */
    public tail: Uint8Array | undefined = undefined
  ) {}
}

/** The public view of a JSONL cursor. */
export const toCursor = (cursor: JsonlCursor): Cursor => cursor as unknown as Cursor

/** A JSONL cursor from its public view (`undefined` for another store's cursor). */
export const fromCursor = (cursor: Cursor): JsonlCursor | undefined =>
  (cursor as unknown) instanceof JsonlCursor ? cursor as unknown as JsonlCursor : undefined
