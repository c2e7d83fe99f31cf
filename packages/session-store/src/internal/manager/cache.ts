/**
 * The in-process cache of loaded transcripts, keyed by resolved path (one cache per
 * `TranscriptFile` service instance, so memory volumes never mix): a private copy of the state
 * plus the snapshot it matches. A hit classifies the file; when it only grew, just the new bytes
 * are parsed into the private copy, and the caller gets a clone (states are mutable and single
 * owner). Only current-version files with the header first and no torn tail are cached. LRU by
 * re-insertion, bounded by entry count and by total file bytes.
 */
import type { SessionState } from "@branchlog/session-core"
import type * as FileSnapshot from "../../FileSnapshot.js"
import type { CorruptReport } from "./core.js"

/** One cached transcript. */
export interface CacheEntry {
  readonly state: SessionState.SessionState
  snapshot: FileSnapshot.Snapshot
  endOffset: number
  lineCount: number
  tailId: string | null
  hasAssistant: boolean
  corrupt: Array<CorruptReport>
}

/** Bounds of the cache. */
export interface CacheLimits {
  /** Files kept (default 8). */
  readonly maxEntries: number
  /** Total bytes of the cached files (default 256 MiB); a larger file is never cached. */
  readonly maxBytes: number
}

let limits: CacheLimits = { maxEntries: 8, maxBytes: 256 * 1024 * 1024 }
const caches = new WeakMap<object, Map<string, CacheEntry>>()

/** Changes the bounds (and trims every cache on its next use). */
export const configure = (next: Partial<CacheLimits>): void => {
  limits = { ...limits, ...next }
}

/** The current bounds. */
export const currentLimits = (): CacheLimits => limits

const cacheOf = (owner: object): Map<string, CacheEntry> => {
  let cache = caches.get(owner)
  if (cache === undefined) {
    cache = new Map()
    caches.set(owner, cache)
  }
  return cache
}

/** The entry for a path (moved to the most recent end), if any. */
export const get = (owner: object, path: string): CacheEntry | undefined => {
  const cache = cacheOf(owner)
  const entry = cache.get(path)
  if (entry !== undefined) {
    cache.delete(path)
    cache.set(path, entry)
  }
  return entry
}

/** Forgets a path. */
export const remove = (owner: object, path: string): void => {
  cacheOf(owner).delete(path)
}

/** Stores an entry (the caller hands over a private copy of the state) and trims the cache. */
export const put = (owner: object, path: string, entry: CacheEntry): void => {
  const cache = cacheOf(owner)
  cache.delete(path)
  if (limits.maxEntries <= 0 || entry.snapshot.size > limits.maxBytes) return
  cache.set(path, entry)
  let total = 0
  for (const cached of cache.values()) total += cached.snapshot.size
  for (const [key, cached] of cache) {
    if (cache.size <= limits.maxEntries && total <= limits.maxBytes) break
    cache.delete(key)
    total -= cached.snapshot.size
  }
}

/** Whether a file of this size would be kept. */
export const fits = (size: number): boolean => limits.maxEntries > 0 && size <= limits.maxBytes
