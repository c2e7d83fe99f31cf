/**
 * The JSONL store's cache of loaded transcripts, keyed by the file a path names (one cache per
 * store instance, so memory volumes never mix): a private copy of the state plus the snapshot it
 * matches. A hit classifies the file; when it only grew, just the new bytes are parsed into the
 * private copy, and the caller gets a clone (states are mutable and single owner). Only
 * current-version files with the header first and no torn tail are cached. LRU by re-insertion,
 * bounded by entry count and by total file bytes.
 */
import type { Line, SessionState } from "@branchlog/session-core"
import type { CorruptReport } from "@branchlog/session-store/TranscriptStore"
import type * as FileSnapshot from "../../FileSnapshot.js"

/** One cached transcript. */
export interface CacheEntry {
  readonly state: SessionState.SessionState
  snapshot: FileSnapshot.Snapshot
  endOffset: number
  lineCount: number
  tailId: string | null
  hasAssistant: boolean
  corrupt: Array<CorruptReport>
  blanks: Array<Line.BlankLine>
}

/** Bounds of the cache. */
export interface CacheLimits {
  /** Files kept (default 8; 0 turns the cache off). */
  readonly maxEntries: number
  /** Total bytes of the cached files (default 256 MiB); a larger file is never cached. */
  readonly maxBytes: number
}

/** The default bounds. */
export const defaultLimits: CacheLimits = { maxEntries: 8, maxBytes: 256 * 1024 * 1024 }

/** One store's cache. */
export interface Cache {
  /** The entry for a key (moved to the most recent end), if any. */
  readonly get: (key: string) => CacheEntry | undefined
  /** Forgets a key. */
  readonly remove: (key: string) => void
  /** Stores an entry (the caller hands over a private copy of the state) and trims the cache. */
  readonly put: (key: string, entry: CacheEntry) => void
  /** Whether a file of this size would be kept. */
  readonly fits: (size: number) => boolean
}

/** A fresh, empty cache with these bounds. */
export const make = (bounds: Partial<CacheLimits> = {}): Cache => {
  const limits: CacheLimits = { ...defaultLimits, ...bounds }
  const cache = new Map<string, CacheEntry>()
  return {
    get: (key) => {
      const entry = cache.get(key)
      if (entry !== undefined) {
        cache.delete(key)
        cache.set(key, entry)
      }
      return entry
    },
    remove: (key) => {
      cache.delete(key)
    },
    put: (key, entry) => {
      cache.delete(key)
      if (limits.maxEntries <= 0 || entry.snapshot.size > limits.maxBytes) return
      cache.set(key, entry)
      let total = 0
      for (const cached of cache.values()) total += cached.snapshot.size
      for (const [k, cached] of cache) {
        if (cache.size <= limits.maxEntries && total <= limits.maxBytes) break
        cache.delete(k)
        total -= cached.snapshot.size
      }
    },
    fits: (size) => limits.maxEntries > 0 && size <= limits.maxBytes
  }
}
