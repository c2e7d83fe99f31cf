/**
 * The `SessionInfo` side of the catalog index (see `catalogIndex.ts`): reading a folder's index,
 * and converting between `SessionInfo` and the index's rows.
 */
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import type { SessionInfo } from "../SessionCatalog.js"
import * as SessionFiles from "../SessionFiles.js"
import { TranscriptFile } from "../TranscriptFile.js"
import * as CatalogIndex from "./catalogIndex.js"

/** A session file as a listing found it: its path and name, and its watermark (`stamped`: the backend gave one). */
export interface FoundFile extends CatalogIndex.Stamp {
  readonly path: string
  readonly name: string
  /** `false` when the backend gave no mtime (ns), device and inode: the file is always read. */
  readonly stamped: boolean
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

/** Where a lazily read `allMessagesText` comes from (shared by an info and its copies: one read). */
interface LazyText {
  readonly path: string
  readonly read: (path: string) => string
  text?: string
}

/** The key of an info's {@link LazyText} (non-enumerable: spreads, `Object.keys` and JSON skip it). */
const LAZY: unique symbol = Symbol.for("@branchlog/session-store/lazyText")

/**
 * One getter for every lazy `allMessagesText` (a closure per info would give each its own hidden
 * class: several times slower to build), reading the text through the info's {@link LazyText}.
 */
function lazyText(this: { readonly [LAZY]?: LazyText }): string {
  const lazy = this[LAZY]
  if (lazy === undefined) throw new TypeError("allMessagesText: a lazy text copied without its source")
  return lazy.text ??= lazy.read(lazy.path)
}

const textProperty: PropertyDescriptor = { enumerable: true, configurable: true, get: lazyText }

/**
 * A copy of an info with more fields whose lazy `allMessagesText` stays lazy (a spread would
 * read it); `undefined` when the info has no lazy text (a spread is then the copy).
 */
export const copyLazy = (info: SessionInfo): Record<string, unknown> | undefined => {
  const lazy = (info as { readonly [LAZY]?: LazyText })[LAZY]
  if (lazy === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(info)) {
    if (key === "allMessagesText") Object.defineProperty(out, key, textProperty)
    else out[key] = info[key as keyof SessionInfo]
  }
  Object.defineProperty(out, LAZY, { value: lazy })
  return out
}

/**
 * The `SessionInfo` a catalog row holds, built in one literal (the fields in the order a read of
 * the file gives them); a long text is read on demand through `readText(path)` (a getter, memoised).
 */
export const fromRow = (
  path: string,
  row: CatalogIndex.SessionRow,
  readText: (path: string) => string
): SessionInfo => {
  const info: { -readonly [K in keyof SessionInfo]?: SessionInfo[K] } = { path, id: row[6], cwd: row[7] }
  if (row[8] !== null) info.name = row[8]
  if (row[9] !== null) info.parentSessionPath = row[9]
  info.created = new Date(row[10])
  info.modified = new Date(row[11])
  info.messageCount = row[12]
  info.firstMessage = row[13]
  if (row[14] !== null) info.allMessagesText = row[14]
  else {
    Object.defineProperty(info, "allMessagesText", textProperty)
    Object.defineProperty(info, LAZY, { value: { path, read: readText } satisfies LazyText })
  }
  return info as SessionInfo
}

/** The row of a file (`info`: its summary, `undefined` for a file that is no session). */
export const toRow = (file: FoundFile, at: number, info: SessionInfo | undefined): CatalogIndex.Row =>
  info === undefined
    ? [file.name, file.size, file.mtimeNs, file.dev, file.ino, at]
    : [
      file.name,
      file.size,
      file.mtimeNs,
      file.dev,
      file.ino,
      at,
      info.id,
      info.cwd,
      info.name ?? null,
      info.parentSessionPath ?? null,
      info.created.getTime(),
      info.modified.getTime(),
      info.messageCount,
      info.firstMessage,
      info.allMessagesText.length <= CatalogIndex.MAX_STORED_TEXT ? info.allMessagesText : null
    ]
