/**
 * `@branchlog/session-store/testing`: the in-memory filesystem and the memory layers of the
 * file-level services, for this package's suites and for users' own tests.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as FileSnapshot from "./FileSnapshot.js"
import * as MemoryFileSystem from "./MemoryFileSystem.js"
import * as TranscriptFile from "./TranscriptFile.js"
import * as TranscriptLock from "./TranscriptLock.js"

/** The in-memory volume, its tag and layers. */
export * as MemoryFileSystem from "./MemoryFileSystem.js"

/** Every file-level service over the `MemoryFileSystem` in context. */
export const layerServicesMemory: Layer.Layer<
  TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot | TranscriptLock.TranscriptLock,
  never,
  MemoryFileSystem.MemoryFileSystem
> = Layer.mergeAll(TranscriptFile.layerMemory, FileSnapshot.layerMemory, TranscriptLock.layerMemory)

/** Every file-level service over one in-memory volume (a given one, or a fresh one per build), plus the volume. */
export const layerMemory = (
  volume?: MemoryFileSystem.MemoryVolume
): Layer.Layer<
  | TranscriptFile.TranscriptFile
  | FileSnapshot.FileSnapshot
  | TranscriptLock.TranscriptLock
  | MemoryFileSystem.MemoryFileSystem
> => Layer.provideMerge(layerServicesMemory, MemoryFileSystem.layer(volume))

/** Every file-level service over node:fs (real files). */
export const layerNode: Layer.Layer<
  TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot | TranscriptLock.TranscriptLock
> = Layer.mergeAll(TranscriptFile.layer, FileSnapshot.layer, TranscriptLock.layer)
