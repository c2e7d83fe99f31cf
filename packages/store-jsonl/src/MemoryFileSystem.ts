/**
 * An in-memory filesystem (and fake process table) behind the `layerMemory` of every file-level
 * service. Tests reach it through the `MemoryFileSystem` tag to play "another process": append,
 * rewrite in place, replace by rename, leave a lock file behind, kill a holder.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FileBackend } from "./internal/backend.js"
import { memoryBackend } from "./internal/memoryBackend.js"
import { MemoryVolume } from "./internal/memoryVolume.js"

/** The in-memory volume: files, folders and a fake process table, with synchronous test helpers. */
export { MemoryVolume }

/** Options of a new volume: this process's pid and hostname, and the working folder. */
export interface Options {
  readonly pid?: number
  readonly hostname?: string
  readonly cwd?: string
}

/** The volume that the memory layers of this context share. */
export class MemoryFileSystem extends Context.Tag("@branchlog/session-store/MemoryFileSystem")<
  MemoryFileSystem,
  MemoryVolume
>() {}

/** A fresh, empty volume. */
export const make = (options: Options = {}): MemoryVolume => new MemoryVolume(options)

/** Provides a given volume (or a fresh one per build of the layer). */
export const layer = (volume?: MemoryVolume): Layer.Layer<MemoryFileSystem> =>
  volume === undefined
    ? Layer.sync(MemoryFileSystem, () => new MemoryVolume())
    : Layer.succeed(MemoryFileSystem, volume)

/** The primitive backend over the volume in context (internal wiring of the `layerMemory`s). */
export const backendLayer: Layer.Layer<FileBackend, never, MemoryFileSystem> = Layer.effect(
  FileBackend,
  Effect.map(MemoryFileSystem, memoryBackend)
)
