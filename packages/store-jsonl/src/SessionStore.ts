/**
 * The layers that give `SessionManager` and `SessionCatalog` their services: `layerNode` (the
 * JSONL `TranscriptStore` over real files through node:fs, plus the file-level services) and
 * `layerMemory` (the same over an in-memory volume, for tests; the volume itself comes from
 * `@branchlog/store-jsonl/testing`). For a store of rows in memory, see session-store's `MemoryStore`.
 *
 * @since 0.1.0
 */
import type * as TranscriptStore from "@branchlog/session-store/TranscriptStore"
import * as Layer from "effect/Layer"
import * as FileSnapshot from "./FileSnapshot.js"
import * as JsonlStore from "./JsonlStore.js"
import * as MemoryFileSystem from "./MemoryFileSystem.js"
import * as TranscriptFile from "./TranscriptFile.js"
import * as TranscriptLock from "./TranscriptLock.js"

/** The file-level services. */
export type FileServices = TranscriptFile.TranscriptFile | FileSnapshot.FileSnapshot | TranscriptLock.TranscriptLock

/** The services a store layer gives: the `TranscriptStore` and the file-level services under it. */
export type Services = FileServices | TranscriptStore.TranscriptStore

/** Every file-level service over node:fs. */
export const layerFilesNode: Layer.Layer<FileServices> = Layer.mergeAll(
  TranscriptFile.layer,
  FileSnapshot.layer,
  TranscriptLock.layer
)

/** The JSONL store over node:fs, with the file-level services (options: the cache's bounds). */
export const layerNodeWith = (options: JsonlStore.Options = {}): Layer.Layer<Services> =>
  Layer.provideMerge(JsonlStore.layer(options), layerFilesNode)

/** The JSONL store over node:fs, with the file-level services. */
export const layerNode: Layer.Layer<Services> = layerNodeWith()

/** Every file-level service over the `MemoryFileSystem` in context, and the JSONL store over them. */
export const layerServicesMemory: Layer.Layer<Services, never, MemoryFileSystem.MemoryFileSystem> = Layer
  .provideMerge(
    JsonlStore.layer(),
    Layer.mergeAll(
      TranscriptFile.layerMemory,
      FileSnapshot.layerMemory,
      TranscriptLock.layerMemory
    )
  )

/** Every service over one in-memory volume (a given one, or a fresh one per build), plus the volume. */
export const layerMemory = (
  volume?: MemoryFileSystem.MemoryVolume
): Layer.Layer<Services | MemoryFileSystem.MemoryFileSystem> =>
  Layer.provideMerge(layerServicesMemory, MemoryFileSystem.layer(volume))
