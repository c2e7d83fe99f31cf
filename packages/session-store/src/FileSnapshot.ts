/**
 * The fingerprint of a transcript as a reader last saw it, and the classification of the file
 * against it: unchanged, appended (same inode, larger, the old tail bytes still hash the same),
 * replaced (new inode, shrunk, rewritten in place) or missing. It is a cache, not the truth:
 * writers re-check it under the lock.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { FileBackend } from "./internal/backend.js"
import * as NodeBackend from "./internal/nodeBackend.js"
import type { MemoryFileSystem } from "./MemoryFileSystem.js"
import { backendLayer } from "./MemoryFileSystem.js"
import type { FileSystemError, NotRegularFileError } from "./StoreError.js"

/** How many bytes before the snapshot's end are hashed by default. */
export const DEFAULT_TAIL_BYTES = 4096

/** The fingerprint: identity (dev, ino), size, mtime in ns, and a sha256 of the last bytes up to `size`. */
export interface Snapshot {
  readonly path: string
  readonly dev: bigint
  readonly ino: bigint
  readonly size: number
  readonly mtimeNs: bigint
  /** Hex sha256 of the bytes `[size - tailLength, size)`. */
  readonly tailHash: string
  readonly tailLength: number
}

/** Why a file counts as replaced. */
export type ReplacedReason = "new-inode" | "shrunk" | "rewritten"

/** The classification of a file against a snapshot. */
export type Change = Data.TaggedEnum<{
  /** Same inode, same size, same mtime. */
  Unchanged: {}
  /** Same inode, larger, old tail intact: read from `fromOffset` (the snapshot's size) to `size`. */
  Appended: { readonly fromOffset: number; readonly size: number }
  /** Anything else that is still a file: re-read it whole. */
  Replaced: { readonly reason: ReplacedReason }
  /** The file is gone. */
  Missing: {}
}>

/** Constructors and matchers of `Change`. */
export const Change = Data.taggedEnum<Change>()

/** Options of `capture`: hash only up to `upTo` (the end of what was actually read), `tailBytes` to hash. */
export interface CaptureOptions {
  readonly upTo?: number
  readonly tailBytes?: number
}

/** The service. */
export interface FileSnapshotShape {
  /**
   * Fingerprints a file (`None` if it does not exist); with `upTo`, as of that size (the end of
   * what was read). A folder, a FIFO or a device fails with `NotRegularFileError`, unopened.
   */
  readonly capture: (
    path: string,
    options?: CaptureOptions
  ) => Effect.Effect<Option.Option<Snapshot>, FileSystemError | NotRegularFileError>
  /** Compares the file at `path` now with a snapshot taken of it earlier. */
  readonly classify: (path: string, snapshot: Snapshot) => Effect.Effect<Change, FileSystemError | NotRegularFileError>
}

/** The FileSnapshot service tag. */
export class FileSnapshot
  extends Context.Tag("@branchlog/session-store/FileSnapshot")<FileSnapshot, FileSnapshotShape>()
{}

/** The hex sha256 of some bytes. */
export const hashBytes = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<FileSnapshotShape, never, FileBackend> = Effect.gen(function*() {
  const backend = yield* FileBackend

  const capture = (path: string, options: CaptureOptions = {}) => {
    const abs = backend.resolve(path)
    return backend.readTail(abs, options.tailBytes ?? DEFAULT_TAIL_BYTES, options.upTo).pipe(
      Effect.map(({ bytes, stat }) =>
        Option.some<Snapshot>({
          path: abs,
          dev: stat.dev,
          ino: stat.ino,
          size: options.upTo === undefined ? stat.size : Math.min(options.upTo, stat.size),
          mtimeNs: stat.mtimeNs,
          tailHash: hashBytes(bytes),
          tailLength: bytes.length
        })
      ),
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(Option.none<Snapshot>()))
    )
  }

  const classify = (path: string, snapshot: Snapshot): Effect.Effect<Change, FileSystemError | NotRegularFileError> =>
    Effect.gen(function*() {
      const abs = backend.resolve(path)
      const current = yield* backend.stat(abs)
      if (Option.isNone(current)) return Change.Missing()
      const stat = current.value
      if (stat.dev !== snapshot.dev || stat.ino !== snapshot.ino) return Change.Replaced({ reason: "new-inode" })
      if (stat.size < snapshot.size) return Change.Replaced({ reason: "shrunk" })
      if (stat.size === snapshot.size) {
        return stat.mtimeNs === snapshot.mtimeNs ? Change.Unchanged() : Change.Replaced({ reason: "rewritten" })
      }
      const tail = yield* backend.readTail(abs, snapshot.tailLength, snapshot.size).pipe(
        Effect.map(Option.some),
        Effect.catchTag("FileNotFoundError", () => Effect.succeed(Option.none()))
      )
      if (Option.isNone(tail)) return Change.Missing()
      if (tail.value.stat.ino !== snapshot.ino) return Change.Replaced({ reason: "new-inode" })
      return hashBytes(tail.value.bytes) === snapshot.tailHash
        ? Change.Appended({ fromOffset: snapshot.size, size: tail.value.stat.size })
        : Change.Replaced({ reason: "rewritten" })
    })

  return { capture, classify } satisfies FileSnapshotShape
})

/** The Node layer (bigint stat through node:fs). */
export const layer: Layer.Layer<FileSnapshot> = Layer.effect(FileSnapshot, make).pipe(Layer.provide(NodeBackend.layer))

/** The in-memory layer over the `MemoryFileSystem` in context. */
export const layerMemory: Layer.Layer<FileSnapshot, never, MemoryFileSystem> = Layer.effect(FileSnapshot, make).pipe(
  Layer.provide(backendLayer)
)
