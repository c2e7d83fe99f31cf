/**
 * The layers that give `SessionManager` and `SessionCatalog` their file-level services:
 * `layerNode` (real files through node:fs) and `layerMemory` (an in-memory volume, for tests; the
 * volume itself comes from `@branchlog/session-store/testing`).
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as FileSnapshot from "./FileSnapshot.js"
import * as MemoryFileSystem from "./MemoryFileSystem.js"
import * as TranscriptFile from "./TranscriptFile.js"
import * as TranscriptLock from "./TranscriptLock.js"

/** The services a store needs. */
export type Services = TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot | TranscriptLock.TranscriptLock

/** Every file-level service over node:fs. */
export const layerNode: Layer.Layer<Services> = Layer.mergeAll(
  TranscriptFile.layer,
  FileSnapshot.layer,
  TranscriptLock.layer
)

/** Every file-level service over the `MemoryFileSystem` in context. */
export const layerServicesMemory: Layer.Layer<Services, never, MemoryFileSystem.MemoryFileSystem> = Layer.mergeAll(
  TranscriptFile.layerMemory,
  FileSnapshot.layerMemory,
  TranscriptLock.layerMemory
)

/** Every file-level service over one in-memory volume (a given one, or a fresh one per build), plus the volume. */
export const layerMemory = (
  volume?: MemoryFileSystem.MemoryVolume
): Layer.Layer<Services | MemoryFileSystem.MemoryFileSystem> =>
  Layer.provideMerge(layerServicesMemory, MemoryFileSystem.layer(volume))
