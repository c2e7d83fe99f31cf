/**
 * The `SessionInfo` side of the catalog index (see `catalogIndex.ts`): reading a folder's index,
 * and converting between `SessionInfo` and what the index keeps.
 */
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import type { SessionInfo } from "../SessionCatalog.js"
import * as SessionFiles from "../SessionFiles.js"
import { TranscriptFile } from "../TranscriptFile.js"
import * as CatalogIndex from "./catalogIndex.js"

/** A session file as a listing found it. */
export interface FoundFile {
  readonly path: string
  readonly name: string
  readonly mtimeMs: number
  readonly size: number
  readonly stamp: CatalogIndex.Stamp | undefined
}

/** A folder as a listing found it: its session files, and its catalog index's size. */
export interface Folder {
  readonly dir: string
  readonly files: ReadonlyArray<FoundFile>
  /** The catalog index's size, when the folder holds one. */
  readonly catalogSize: number | undefined
}

/** A folder's catalog index (an empty one when it has none or it cannot be read or decoded). */
export const readCatalog = (folder: Folder): Effect.Effect<CatalogIndex.Catalog, never, TranscriptFile> =>
  folder.catalogSize === undefined
    ? Effect.succeed(new Map())
    : Effect.flatMap(
      TranscriptFile,
      (files) =>
        files.readRanges(nodePath.join(folder.dir, SessionFiles.CATALOG_NAME), [[0, folder.catalogSize!]]).pipe(
          Effect.map((chunks) => CatalogIndex.decode(new TextDecoder().decode(chunks[0])) ?? new Map()),
          Effect.orElseSucceed((): CatalogIndex.Catalog => new Map())
        )
    )

/** The `SessionInfo` a catalog entry holds (a long text read on demand through `readText`). */
export const fromStored = (
  path: string,
  stored: CatalogIndex.StoredInfo,
  readText: () => string
): SessionInfo => {
  const info = {
    path,
    id: stored.id,
    cwd: stored.cwd,
    ...(stored.name === undefined ? {} : { name: stored.name }),
    ...(stored.parentSessionPath === undefined ? {} : { parentSessionPath: stored.parentSessionPath }),
    created: new Date(stored.created),
    modified: new Date(stored.modified),
    messageCount: stored.messageCount,
    firstMessage: stored.firstMessage
  }
  if (stored.allMessagesText !== undefined) return { ...info, allMessagesText: stored.allMessagesText }
  let text: string | undefined
  return Object.defineProperty(info, "allMessagesText", {
    enumerable: true,
    get: () => text ??= readText()
  }) as SessionInfo
}

/** What a catalog keeps of a `SessionInfo`. */
export const toStored = (info: SessionInfo): CatalogIndex.StoredInfo => ({
  id: info.id,
  cwd: info.cwd,
  name: info.name,
  parentSessionPath: info.parentSessionPath,
  created: info.created.getTime(),
  modified: info.modified.getTime(),
  messageCount: info.messageCount,
  firstMessage: info.firstMessage,
  allMessagesText: info.allMessagesText.length <= CatalogIndex.MAX_STORED_TEXT ? info.allMessagesText : undefined
})
