/**
 * The sidecar index file as a whole: reading its head, summary and update log in one open (the log
 * applied to the base), and rewriting it whole with the log and later rows folded into a new base.
 * Shared by the bounded open (a writable resume that caught up, or found a long log) and the
 * index follower (a writer whose log would pass its bound).
 */
import * as Effect from "effect/Effect"
import type { Env } from "../jsonl/env.js"
import * as Format from "./format.js"
import type { Head, Summary } from "./format.js"
import { mergeIds } from "./ids.js"
import * as Log from "./log.js"

/** The most update log a reader reads. */
export const MAX_LOG_BYTES = 8 * 1024 * 1024

/** Bytes of the update log read at first (more when it is longer). */
const LOG_FIRST_READ = 16 * 1024

/** The head, summary and update log of an index (`undefined`: missing, unreadable or damaged). */
export const readIndex = (env: Pick<Env, "files">, index: string) =>
  Effect.gen(function*() {
    const [first] = yield* env.files.readRanges(index, [[0, Format.HEAD_BYTES]])
    const length = Format.summaryLength(first!)
    if (length === undefined) return undefined
    // the head says where the base ends: the summary and the start of the log in one open
    const baseEnd = Format.baseEndOf(first!)
    const [summary, start] = yield* env.files.readRanges(index, [
      [Format.HEAD_BYTES, length],
      ...(baseEnd === undefined ? [] : [[baseEnd, LOG_FIRST_READ] as const])
    ])
    const head = Format.decodeHead(first!, summary!)
    if (head === undefined) return undefined
    let log = start ?? new Uint8Array(0)
    while (log.length > 0 && log.length % LOG_FIRST_READ === 0 && log.length < MAX_LOG_BYTES) {
      const [more] = yield* env.files.readRanges(index, [[head.baseEnd + log.length, log.length]])
      if (more!.length === 0) break
      const next = new Uint8Array(log.length + more!.length)
      next.set(log, 0)
      next.set(more!, log.length)
      log = next
    }
    return { head, log }
  }).pipe(Effect.catchAll(() => Effect.succeed(undefined)))

/** The base summary with the log's records applied in order (each one that follows on), their ids and rows. */
export const applyLog = (head: Head, bytes: Uint8Array) => {
  const { applied, summary } = Log.applyAll(head.summary, Log.decode(bytes))
  const ids: Array<number> = []
  const rows: Array<Uint8Array> = []
  for (const { record, rows: table } of applied) {
    for (const h of record.ids) ids.push(h)
    rows.push(table)
  }
  return { summary, ids, rows, bytes: bytes.length }
}

/** Rewrites the index whole: the base's rows and ids with those of the log and of the catch-up, the new summary. */
export const rewrite = (
  env: Env,
  index: string,
  head: Head,
  ids: Float64Array,
  summary: Summary,
  added: { readonly ids: ReadonlyArray<number>; readonly rows: ReadonlyArray<Uint8Array> }
) =>
  Effect.gen(function*() {
    const [rows] = yield* env.files.readRanges(index, [[head.rowsAt, head.rowCount * Format.ROW_BYTES]])
    const old = Format.decodeRows(head, rows!)
    if (old === undefined) return
    let size = old.length
    for (const r of added.rows) size += r.length
    const all = new Uint8Array(size)
    all.set(old, 0)
    let at = old.length
    for (const r of added.rows) {
      all.set(r, at)
      at += r.length
    }
    const more = Float64Array.from(added.ids).sort()
    yield* env.files.writeSideFile(index, Format.encode(summary, all, mergeIds(ids, more)))
    return true
  }).pipe(Effect.orElseSucceed(() => false))
