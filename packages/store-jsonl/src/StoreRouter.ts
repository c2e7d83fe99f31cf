/**
 * `@branchlog/session-store`'s `StoreRouter` (one `TranscriptStore` over several backends, a
 * driver per kind of `SessionRef`), re-exported with the layers whose default store is the JSONL
 * files: {@link layerNode} over `node:fs`, {@link layerWith} over the file-level services in
 * context (the memory volume's, in tests).
 *
 * ```ts
 * import { StoreRouter } from "@branchlog/store-jsonl"
 * import { driver as sqlite } from "@branchlog/store-sqlite"
 *
 * const layer = StoreRouter.layerNode([sqlite]) // files, and sqlite:PATH#ID
 * ```
 *
 * @since 0.2.0
 */
import { layer } from "@branchlog/session-store/StoreRouter"
import type { Driver } from "@branchlog/session-store/StoreRouter"
import type { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as Layer from "effect/Layer"
import type { FileSnapshot } from "./FileSnapshot.js"
import * as JsonlStore from "./JsonlStore.js"
import * as SessionStore from "./SessionStore.js"
import type { TranscriptFile } from "./TranscriptFile.js"
import type { TranscriptLock } from "./TranscriptLock.js"

export * from "@branchlog/session-store/StoreRouter"

/** JSONL files over node:fs (with the file-level services) and every reference the `drivers` serve. */
export const layerNode = (
  drivers: ReadonlyArray<Driver>,
  options: JsonlStore.Options = {}
): Layer.Layer<SessionStore.Services> =>
  Layer.provideMerge(layer(drivers), SessionStore.layerNodeWith(options)) as Layer.Layer<SessionStore.Services>

/** The same over the file-level services in context (the memory volume's, in tests). */
export const layerWith = (
  drivers: ReadonlyArray<Driver>,
  options: JsonlStore.Options = {}
): Layer.Layer<TranscriptStore, never, TranscriptFile | FileSnapshot | TranscriptLock> =>
  Layer.provide(layer(drivers), JsonlStore.layer(options))
