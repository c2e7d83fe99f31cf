/**
 * The state of one JSONL store (one per layer build): the file-level services, the cache of
 * loaded transcripts, and which cursor each file was last written to through this store (so a
 * hold that wrote last can append without re-reading the file's tail).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as FileSnapshot from "../../FileSnapshot.js"
import type * as TranscriptFile from "../../TranscriptFile.js"
import { TranscriptLock } from "../../TranscriptLock.js"
import type { TranscriptLockShape } from "../../TranscriptLock.js"
import type { Cache } from "./cache.js"
import type { JsonlCursor } from "./cursor.js"

/** The store's services and state. */
export interface Env {
  readonly files: TranscriptFile.TranscriptFileShape
  readonly snapshots: FileSnapshot.FileSnapshotShape
  /**
   * The transcript lock: the one in the caller's context when there is one (so that a caller
   * adjusting the lock service, e.g. the CLI's `--lock-timeout`, reaches the store), else the
   * one the store was built with.
   */
  readonly locks: Effect.Effect<TranscriptLockShape>
  /** `locks`, from a fiber's context (synchronous). */
  readonly locksIn: (context: Context.Context<never>) => TranscriptLockShape
  readonly cache: Cache
  /** The cursor of the last write through this store, by canonical file. */
  readonly lastWrite: Map<string, JsonlCursor>
  /** The canonical key of a path (symlinks followed), remembered. */
  readonly keyOf: (path: string) => string
}

/** A fresh state over these services. */
export const make = (
  services: Pick<Env, "files" | "snapshots" | "cache"> & { readonly locks: TranscriptLockShape }
): Env => {
  const keys = new Map<string, string>()
  const built = services.locks
  return {
    ...services,
    locks: Effect.map(Effect.serviceOption(TranscriptLock), Option.getOrElse(() => built)),
    locksIn: (context) => Option.getOrElse(Context.getOption(context, TranscriptLock), () => built),
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
