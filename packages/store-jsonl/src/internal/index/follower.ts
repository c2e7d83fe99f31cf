/**
 * Keeping a sidecar index current after a writer's own appends (`TranscriptStore.IndexFollower`):
 * the writer that opened the session through its index notes each write of its own (the rows'
 * texts and where they landed); when its hold ends, the rows noted are folded into the summary
 * (`catchUp`, the ids being the writer's own, fresh by construction) and ONE record is appended to
 * the index's update log (`log.ts`), from the watermark the index reached to the one after the
 * writer's rows. Anything unusual (rows that do not follow on from what the index covers: another
 * writer's rows caught up first, a rewrite, a torn tail; a row the summary cannot fold; a failed
 * write) stops the following for good: the next resume catches up from the transcript, as after a
 * foreign append. A record that would take the log past its bound is written as a new base
 * instead (the index rewritten whole, the log folded in), so that a long-lived writer keeps the
 * index covering the file however much it writes. Never fails, never needed for correctness.
 */
import { Line } from "@branchlog/session-core"
import { catchUp } from "@branchlog/session-store/PathIndex"
import type { Cursor, Position } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import { fromCursor } from "../jsonl/cursor.js"
import type { Env } from "../jsonl/env.js"
import * as File from "./file.js"
import type { Summary } from "./format.js"
import { lazyIds } from "./ids.js"
import * as Log from "./log.js"
import * as Watermark from "./watermark.js"

/** What a follower starts from. */
export interface Start {
  readonly env: Env
  /** The transcript. */
  readonly path: string
  /** Its index. */
  readonly index: string
  /** The summary as of the end of the index's chain on disk (base and log). */
  readonly written: Summary
  /** The summary as of what this open knows (rows caught up in memory included). */
  readonly current: Summary
  /** Ids and row records of what `current` holds beyond `written`. */
  readonly ids: ReadonlyArray<number>
  readonly rows: ReadonlyArray<Uint8Array>
  /** Bytes of update log the index holds. */
  readonly logBytes: number
  /** The most update log to append up to. */
  readonly maxLogBytes: number
}

/** A follower (the store's `IndexFollower`). */
export interface Follower {
  readonly appended: (texts: ReadonlyArray<string>, positions: ReadonlyArray<Position>) => void
  readonly write: (cursor: Cursor | undefined) => Effect.Effect<void>
  /** `false` once it has stopped following. */
  readonly following: () => boolean
}

/** A follower from what an open of the index found. */
export const make = (start: Start): Follower => {
  const { env, index, path } = start
  let written = start.written
  let current = start.current
  let ids: Array<number> = [...start.ids]
  let rows: Array<Uint8Array> = [...start.rows]
  let logBytes = start.logBytes
  let alive = current.bounded
  let end = current.watermark.size
  let line = current.lineCount
  let texts: Array<string> = []
  let at: Array<Position> = []
  const appended = (more: ReadonlyArray<string>, positions: ReadonlyArray<Position>): void => {
    if (!alive) return
    for (let i = 0; i < more.length; i++) {
      const p = positions[i]
      if (p === undefined || p.offset !== end || p.line !== line + 1) {
        alive = false
        return
      }
      texts.push(more[i]!)
      at.push(p)
      end += Buffer.byteLength(more[i]!) + 1
      line += 1
    }
  }
  const stop = () => {
    alive = false
  }
  /** The watermark as of `end`: from the writer's cursor when it is current there, else captured. */
  const watermarkAt = (cursor: Cursor | undefined) => {
    const c = cursor === undefined ? undefined : fromCursor(cursor)
    const known = c !== undefined && !c.stale && c.snapshot !== undefined && c.snapshot.size === end &&
        c.end.offset === end
      ? Watermark.following(c.snapshot, current.watermark)
      : undefined
    return known === undefined ? Watermark.capture(env, path, end) : Effect.succeed(known)
  }
  /**
   * Rewrites the index whole with `current` as its summary, when the index on disk (its base and
   * every record of its log that follows on) is still exactly what this follower extends
   * (`written`): its rows and ids, and this follower's (`table`, `ids`). `false` when it is not.
   */
  const rebase = (table: Uint8Array) =>
    Effect.gen(function*() {
      const read = yield* File.readIndex(env, index)
      if (read === undefined) return false
      const log = File.applyLog(read.head, read.log)
      if (!Log.sameWatermark(log.summary.watermark, written.watermark)) return false
      const set = lazyIds(env, index, read.head, []).set()
      if (set === undefined) return false
      return yield* File.rewrite(env, index, read.head, set, current, {
        ids: [...log.ids, ...ids],
        rows: [...log.rows, table]
      })
    })
  const write = (cursor: Cursor | undefined) =>
    Effect.suspend(() => {
      if (!alive || (texts.length === 0 && Log.sameWatermark(written.watermark, current.watermark))) return Effect.void
      return Effect.gen(function*() {
        if (texts.length > 0) {
          const lines = texts.map((text, i) => ({
            text,
            line: at[i]!.line,
            offset: at[i]!.offset,
            byteLength: Buffer.byteLength(text),
            terminated: true
          }))
          const parsed = lines.map((l) => Line.parse(l.text, l.line, l.offset))
          // the writer's own ids are unique in the session (minted against everything it knows)
          const own = new Set<string>()
          for (const p of parsed) {
            const id = Line.rowId(p)
            if (id !== undefined) own.add(id)
          }
          const caught = catchUp(current, lines as never, parsed, (id) => !own.has(id))
          if (caught === undefined) return stop()
          const wm = yield* watermarkAt(cursor)
          if (
            wm === undefined || wm.size !== end || wm.dev !== current.watermark.dev || wm.ino !== current.watermark.ino
          ) return stop()
          current = { ...caught.summary, watermark: wm }
          for (const h of caught.tables.ids.subarray(0, caught.tables.idCount)) ids.push(h)
          rows.push(caught.tables.rowBytes().slice())
          texts = []
          at = []
        }
        let size = 0
        for (const r of rows) size += r.length
        const table = new Uint8Array(size)
        let o = 0
        for (const r of rows) {
          table.set(r, o)
          o += r.length
        }
        const record = Log.encode(Log.diff(written, current, ids, table))
        const bytes = Buffer.byteLength(record) + 1
        if (logBytes + bytes > start.maxLogBytes) {
          // the log would pass its bound: the base, the log and these rows folded into a new base
          if (!(yield* rebase(table))) return stop()
          logBytes = 0
        } else {
          yield* env.files.append(index, [record], { create: false })
          logBytes += bytes
        }
        written = current
        ids = []
        rows = []
      }).pipe(Effect.catchAllCause(() => Effect.sync(stop)))
    })
  return { appended, write, following: () => alive }
}
