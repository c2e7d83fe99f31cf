/**
 * The fingerprint of a transcript as a reader last saw it, and the classification of the file
 * against it: unchanged, appended (same inode, larger, the old tail bytes still hash the same),
 * replaced (new inode, shrunk, rewritten in place) or missing. It is a cache, not the truth:
 * writers re-check it under the lock.
 *
 * @since 0.1.0
 */
import type { FileSystemError, NotRegularFileError } from "@branchlog/session-store/StoreError"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { FileBackend } from "./internal/backend.js"
import * as NodeBackend from "./internal/nodeBackend.js"
import * as TailWindow from "./internal/tailWindow.js"
import type { MemoryFileSystem } from "./MemoryFileSystem.js"
import { backendLayer } from "./MemoryFileSystem.js"

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

/** A snapshot with the bytes its hash covers (`[size - tailLength, size)`), to extend after an append. */
export interface Tailed {
  readonly snapshot: Snapshot
  readonly tail: Uint8Array
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
  /** `capture`, with the bytes the hash covers. */
  readonly captureTailed: (
    path: string,
    options?: CaptureOptions
  ) => Effect.Effect<Option.Option<Tailed>, FileSystemError | NotRegularFileError>
  /** Compares the file at `path` now with a snapshot taken of it earlier. */
  readonly classify: (path: string, snapshot: Snapshot) => Effect.Effect<Change, FileSystemError | NotRegularFileError>
}

/** The FileSnapshot service tag. */
export class FileSnapshot
  extends Context.Tag("@branchlog/session-store/FileSnapshot")<FileSnapshot, FileSnapshotShape>()
{}

/** The hex sha256 of some bytes. */
export const hashBytes = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/** What the file looked like right after a write, from its stat then (`fstat` of the descriptor written through). */
export interface StatAfterWrite {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: number
  readonly mtimeNs: bigint
}

/**
 * The snapshot of a file after `written` was appended at its end, without reading it back: the
 * hashed window is the last bytes of `before`'s tail and `written` (a string: its UTF-8 bytes;
 * `before` `undefined`: the file was empty). `undefined` unless `after` proves that the write
 * landed right at `before`'s end of the same file and nothing else did (same dev and inode, size
 * grown by exactly `written`), and unless `before`'s tail covers its whole window; the caller then
 * captures the file instead.
 */
export const afterAppend = (
  path: string,
  before: Tailed | undefined,
  written: Uint8Array | string,
  after: StatAfterWrite,
  tailBytes: number = DEFAULT_TAIL_BYTES
): Tailed | undefined => {
  const sizeBefore = before === undefined ? 0 : before.snapshot.size
  const length = TailWindow.lengthOf(written)
  if (after.size !== sizeBefore + length) return undefined
  if (before !== undefined) {
    const s = before.snapshot
    if (after.dev !== s.dev || after.ino !== s.ino) return undefined
    if (s.tailLength !== before.tail.length || s.tailLength !== Math.min(tailBytes, s.size)) return undefined
  }
  const tail = TailWindow.extend(before?.tail, written, length, Math.min(tailBytes, after.size))
  return {
    snapshot: withLazyHash({
      path,
      dev: after.dev,
      ino: after.ino,
      size: after.size,
      mtimeNs: after.mtimeNs,
      tailLength: tail.length
    }, tail),
    tail
  }
}

/**
 * A snapshot whose `tailHash` is the hash of `tail`, worked out when first read (an enumerable
 * property like any other): a writer that takes the lock for each append derives a snapshot per
 * write, and only a later check that finds the file grown reads its hash.
 */
const withLazyHash = (fields: Omit<Snapshot, "tailHash">, tail: Uint8Array): Snapshot => {
  let hash: string | undefined
  return {
    path: fields.path,
    dev: fields.dev,
    ino: fields.ino,
    size: fields.size,
    mtimeNs: fields.mtimeNs,
    get tailHash() {
      return (hash ??= hashBytes(tail))
    },
    tailLength: fields.tailLength
  }
}

/** Builds the service over the primitive backend in context. */
export const make: Effect.Effect<FileSnapshotShape, never, FileBackend> = Effect.gen(function*() {
  const backend = yield* FileBackend

  const captureTailed = (path: string, options: CaptureOptions = {}) => {
    const abs = backend.resolve(path)
    return backend.readTail(abs, options.tailBytes ?? DEFAULT_TAIL_BYTES, options.upTo).pipe(
      Effect.map(({ bytes, stat }) =>
        Option.some<Tailed>({
          snapshot: withLazyHash({
            path: abs,
            dev: stat.dev,
            ino: stat.ino,
            size: options.upTo === undefined ? stat.size : Math.min(options.upTo, stat.size),
            mtimeNs: stat.mtimeNs,
            tailLength: bytes.length
          }, bytes),
          tail: bytes
        })
      ),
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(Option.none<Tailed>()))
    )
  }

  const capture = (path: string, options: CaptureOptions = {}) =>
    Effect.map(captureTailed(path, options), Option.map((tailed) => tailed.snapshot))

  /** The tail check of a file found grown: its old window must still hash the same. */
  const grown = (abs: string, snapshot: Snapshot) =>
    backend.readTail(abs, snapshot.tailLength, snapshot.size).pipe(
      Effect.map((tail): Change =>
        tail.stat.ino !== snapshot.ino
          ? Change.Replaced({ reason: "new-inode" })
          : hashBytes(tail.bytes) === snapshot.tailHash
          ? Change.Appended({ fromOffset: snapshot.size, size: tail.stat.size })
          : Change.Replaced({ reason: "rewritten" })
      ),
      Effect.catchTag("FileNotFoundError", () => Effect.succeed(Change.Missing()))
    )

  // plain code around one stat (no generator: a writer that takes the lock per append runs this every time)
  const classify = (path: string, snapshot: Snapshot): Effect.Effect<Change, FileSystemError | NotRegularFileError> =>
    Effect.suspend(() => {
      const abs = backend.resolve(path)
      return Effect.flatMap(
        backend.stat(abs),
        (current): Effect.Effect<Change, FileSystemError | NotRegularFileError> => {
          if (Option.isNone(current)) return Effect.succeed(Change.Missing())
          const stat = current.value
          if (stat.dev !== snapshot.dev || stat.ino !== snapshot.ino) {
            return Effect.succeed(Change.Replaced({ reason: "new-inode" }))
          }
          if (stat.size < snapshot.size) return Effect.succeed(Change.Replaced({ reason: "shrunk" }))
          if (stat.size === snapshot.size) {
            return Effect.succeed(
              stat.mtimeNs === snapshot.mtimeNs ? Change.Unchanged() : Change.Replaced({ reason: "rewritten" })
            )
          }
          return grown(abs, snapshot)
        }
      )
    })

  return { capture, captureTailed, classify } satisfies FileSnapshotShape
})

/** The Node layer (bigint stat through node:fs). */
export const layer: Layer.Layer<FileSnapshot> = Layer.effect(FileSnapshot, make).pipe(Layer.provide(NodeBackend.layer))

/** The in-memory layer over the `MemoryFileSystem` in context. */
export const layerMemory: Layer.Layer<FileSnapshot, never, MemoryFileSystem> = Layer.effect(FileSnapshot, make).pipe(
  Layer.provide(backendLayer)
)
