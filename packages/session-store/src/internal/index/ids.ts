/**
 * The id questions of a bounded open and a catch-up, answered from a sidecar index without reading
 * its id set whole: the id filter (read once), then the one bucket of the id set a hash may be in
 * (one read for a batch of hashes, each bucket checked against its crc32), plus the ids the update
 * log added. Anything unreadable or damaged answers "maybe".
 */
import type { Line } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type { Env } from "../jsonl/env.js"
import * as Format from "./format.js"
import type { Head } from "./format.js"

/**
 * Whether the indexed session may hold an id (by its 52-bit hash): the id filter first (read once,
 * on the first question), then, for a hash it may hold, that hash's one bucket of the id set (a
 * read of a few hundred bytes, checked against its crc32). Anything unreadable or damaged: "maybe".
 */
export const lazyIds = (env: Env, index: string, head: Head, logIds: ReadonlyArray<number>) => {
  const logged = new Set(logIds)
  let ids: Float64Array | undefined | null = null
  let filter: ReturnType<typeof Format.decodeFilter> | null = null
  const section = <A>(at: number, length: number, decode: (bytes: Uint8Array) => A | undefined) =>
    Effect.runSync(
      env.files.readRanges(index, [[at, length]]).pipe(
        Effect.map((chunks) => decode(chunks[0]!)),
        Effect.catchAll(() => Effect.succeed(undefined))
      )
    )
  const set = (): Float64Array | undefined => {
    if (ids === null) ids = section(head.idsAt, head.idCount * 8, (bytes) => Format.decodeIds(head, bytes))
    return ids
  }
  const answers = new Map<number, boolean>()
  const loadFilter = () => {
    if (filter === null) {
      filter = section(head.filterAt, head.baseEnd - head.filterAt, (bytes) => Format.decodeFilter(head, bytes))
    }
    return filter
  }
  /** Answers for these hashes, their buckets read in one pass (near buckets in one read). */
  const prefetch = (hashes: ReadonlyArray<number>): void => {
    const f = loadFilter()
    if (f === undefined) return
    const wanted = new Map<number, Array<number>>()
    for (const h of hashes) {
      if (answers.has(h) || logged.has(h)) continue
      if (!Format.probe(f.filter, h)) {
        answers.set(h, false)
        continue
      }
      const b = Format.bucketOf(h, head.bucketCount)
      const start = f.buckets[b * 2]!
      const end = f.buckets[b * 2 + 2]!
      if (start > end || end > head.idCount) answers.set(h, true)
      else if (start === end) answers.set(h, f.buckets[b * 2 + 1] !== 0)
      else {
        const list = wanted.get(b)
        if (list === undefined) wanted.set(b, [h])
        else list.push(h)
      }
    }
    if (wanted.size === 0) return
    const buckets = [...wanted.keys()].sort((a, b) => a - b)
    const chunks = Effect.runSync(
      env.files.readRanges(
        index,
        buckets.map((b) => {
          const start = f.buckets[b * 2]!
          return [head.idsAt + start * 8, (f.buckets[b * 2 + 2]! - start) * 8] as const
        })
      ).pipe(Effect.orElseSucceed(() => undefined))
    )
    buckets.forEach((b, i) => {
      for (const h of wanted.get(b)!) {
        const chunk = chunks?.[i]
        answers.set(h, chunk === undefined ? true : Format.bucketHas(chunk, f.buckets[b * 2 + 1]!, h) ?? true)
      }
    })
  }
  return {
    set,
    prefetch,
    mayHave: (h: number): boolean => {
      if (logged.has(h)) return true
      const known = answers.get(h)
      if (known !== undefined) return known
      if (loadFilter() === undefined) {
        const all = set()
        return all === undefined || Format.hasHash(all, h)
      }
      prefetch([h])
      return answers.get(h) ?? true
    }
  }
}

/** The ids a catch-up of these rows may ask about: each row's id and each compaction's kept entry. */
export const idsOf = (parsed: ReadonlyArray<Line.ParsedLine>): Array<string> => {
  const out: Array<string> = []
  for (const p of parsed) {
    if (p._tag === "Entry") {
      out.push(p.entry.id)
      if (p.entry.type === "compaction" && typeof p.entry.firstKeptEntryId === "string") {
        out.push(p.entry.firstKeptEntryId)
      }
    } else if (p._tag === "LeafControl") out.push(p.control.id)
  }
  return out
}

/** Merges two sorted id sets. */
export const mergeIds = (a: Float64Array, b: Float64Array): Float64Array => {
  const out = new Float64Array(a.length + b.length)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.length || j < b.length) {
    const v = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!
    if (n === 0 || out[n - 1] !== v) out[n++] = v
  }
  return out.slice(0, n)
}
