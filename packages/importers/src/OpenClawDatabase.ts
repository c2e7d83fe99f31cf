/**
 * Reading an OpenClaw agent database (`openclaw-agent.sqlite`; spec §15) read-only: its sessions,
 * each with its `transcript_events` in `seq` order (`event_json`, or `event_zstd` decompressed and
 * checked against `event_utf8_bytes`), the end of its active path (`session_transcript_active_events`)
 * and the leaf of `session_transcript_index_state`. The
 * database is opened read-only and never written. The conversion itself is `OpenClaw.convert`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { decompress } from "fzstd"
import { OpenClawDatabaseError } from "./ImportError.js"
import { openReadOnly } from "./internal/sqlite.js"
import type { EventRow } from "./OpenClaw.js"

/** The first bytes of every SQLite database file. */
export const SQLITE_MAGIC = "SQLite format 3\u0000"

/** One session of the database. */
export interface DatabaseSession {
  readonly sessionId: string
  readonly leafEventId: string | null | undefined
  /** The `seq` of the last event of `session_transcript_active_events` (the visible leaf), when the table has the session. */
  readonly activeLeafSeq: number | undefined
  readonly rows: ReadonlyArray<EventRow>
}

const decoder = new TextDecoder("utf-8", { fatal: true })

/** Decodes one `transcript_events` row; a row that cannot be read says why (its `seq` names it). */
export const decodeRow = (row: Record<string, unknown>): EventRow => {
  const seq = Number(row.seq)
  try {
    let text: string
    if (typeof row.event_json === "string") text = row.event_json
    else if (row.event_zstd instanceof Uint8Array) {
      const bytes = decompress(row.event_zstd)
      if (typeof row.event_utf8_bytes === "number" && bytes.length !== row.event_utf8_bytes) {
        return {
          seq,
          error: `event_zstd decompresses to ${bytes.length} bytes, event_utf8_bytes says ${row.event_utf8_bytes}`
        }
      }
      text = decoder.decode(bytes)
    } else return { seq, error: "neither event_json nor event_zstd" }
    return { seq, event: JSON.parse(text) }
  } catch (error) {
    return { seq, error: `unreadable event: ${(error as Error).message}` }
  }
}

/** Reads every session of the database at `path` (ordered by session id). */
export const read = (path: string): Effect.Effect<Array<DatabaseSession>, OpenClawDatabaseError> =>
  Effect.try({
    try: () => {
      const db = openReadOnly(path)
      try {
        const tables = new Set(
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => String(r.name))
        )
        if (!tables.has("transcript_events")) {
          throw new Error("no transcript_events table: not an OpenClaw agent database")
        }
        const leaves = new Map<string, string | null>()
        if (tables.has("session_transcript_index_state")) {
          for (const r of db.prepare("SELECT session_id, leaf_event_id FROM session_transcript_index_state").all()) {
            leaves.set(String(r.session_id), typeof r.leaf_event_id === "string" ? r.leaf_event_id : null)
          }
        }
        const active = new Map<string, number>()
        if (tables.has("session_transcript_active_events")) {
          const last = db.prepare(
            "SELECT a.session_id, a.event_seq FROM session_transcript_active_events a WHERE a.active_position = (SELECT max(b.active_position) FROM session_transcript_active_events b WHERE b.session_id = a.session_id)"
          )
          for (const r of last.all()) active.set(String(r.session_id), Number(r.event_seq))
        }
        const sessions: Array<DatabaseSession> = []
        let current: { sessionId: string; rows: Array<EventRow> } | undefined
        const statement = db.prepare(
          "SELECT session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events ORDER BY session_id, seq"
        )
        const close = () => {
          if (current !== undefined) {
            sessions.push({
              sessionId: current.sessionId,
              leafEventId: leaves.get(current.sessionId),
              activeLeafSeq: active.get(current.sessionId),
              rows: current.rows
            })
          }
        }
        for (const r of statement.iterate()) {
          const sessionId = String(r.session_id)
          if (current?.sessionId !== sessionId) {
            close()
            current = { sessionId, rows: [] }
          }
          current.rows.push(decodeRow(r))
        }
        close()
        return sessions
      } finally {
        db.close()
      }
    },
    catch: (error) => new OpenClawDatabaseError({ path, reason: (error as Error).message ?? String(error) })
  })
