/**
 * The state of one JSONL store (one per layer build): the file-level services, the cache of
 * loaded transcripts, and which cursor each file was last written to through this store (so a
 * hold that wrote last can append without re-reading the file's tail).
 */
import type * as FileSnapshot from "../../FileSnapshot.js"
import type * as TranscriptFile from "../../TranscriptFile.js"
import type * as TranscriptLock from "../../TranscriptLock.js"
import type { Cache } from "./cache.js"
import type { JsonlCursor } from "./cursor.js"

/** The store's services and state. */
export interface Env {
  readonly files: TranscriptFile.TranscriptFileShape
  readonly snapshots: FileSnapshot.FileSnapshotShape
  readonly locks: TranscriptLock.TranscriptLockShape
  readonly cache: Cache
  /** The cursor of the last write through this store, by canonical file. */
  readonly lastWrite: Map<string, JsonlCursor>
  /** The canonical key of a path (symlinks followed), remembered. */
  readonly keyOf: (path: string) => string
}

/** A fresh state over these services. */
export const make = (
  services: Pick<Env, "files" | "snapshots" | "locks" | "cache">
): Env => {
  const keys = new Map<string, string>()
  return {
    ...services,
    lastWrite: new Map(),
    keyOf: (path) => {
      let key = keys.get(path)
      if (key === undefined) {
        key = services.files.canonical(path)
        if (keys.size > 4096) keys.clear()
        keys.set(path, key)
      }
      return key
    }
  }
}
