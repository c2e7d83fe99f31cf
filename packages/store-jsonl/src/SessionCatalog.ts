/**
 * Finding sessions on disk (spec §6): the default folders under branchlog's agent folder
 * (`BRANCHLOG_AGENT_DIR`, default `~/.branchlog/agent`; pi's `~/.pi/agent` on request),
 * `list` / `listAll` with the `SessionInfo` of each file (newest first), and `findMostRecent`.
 * Every file is read line by line in chunks, at most 8 at a time; what is a session file and what
 * is a side file (backups, temporary files, locks) is decided by `SessionFiles.isSessionFile`.
 *
 * @since 0.1.0
 */
import type { Line } from "@branchlog/session-core"
import * as SessionListing from "@branchlog/session-store/SessionListing"
import type { FileSystemError } from "@branchlog/session-store/StoreError"
import type {
  ListQuery,
  OnProgress as StoreOnProgress,
  SessionInfo as StoreSessionInfo,
  SessionSummary,
  StoreFailure
} from "@branchlog/session-store/TranscriptStore"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as CatalogIndex from "./internal/catalogIndex.js"
import * as CatalogInfo from "./internal/catalogInfo.js"
import * as OversizedLine from "./OversizedLine.js"
import * as SessionFiles from "./SessionFiles.js"
import type { Line as TranscriptFileLine } from "./TranscriptFile.js"
import { TranscriptFile } from "./TranscriptFile.js"

/** What `list` tells about one session file: the storage interface's `SessionInfo`. */
export type SessionInfo = StoreSessionInfo

/** Progress of a listing: files done so far, of how many (those the catalog index vouches for in one step). */
export type OnProgress = StoreOnProgress

/** Options of the listing functions: the agent folder to use (default {@link agentDir}). */
export interface CatalogOptions {
  readonly agentDir?: string
  /** Files read at once (default 8). */
  readonly concurrency?: number
  /**
   * The folders' catalog indexes (`.branchlog-catalog.json`): `"write"` (default) uses them and
   * rewrites one whose folder changed, `"read"` uses them and writes none, `"off"` reads every file.
   */
  readonly index?: "write" | "read" | "off"
}

const expandHome = (path: string): string =>
  path === "~" ? os.homedir() : path.startsWith("~/") ? nodePath.join(os.homedir(), path.slice(2)) : path

/** branchlog's agent folder: `$BRANCHLOG_AGENT_DIR` (with `~` expanded), else `~/.branchlog/agent`. */
export const agentDir: Effect.Effect<string> = Config.string("BRANCHLOG_AGENT_DIR").pipe(
  Config.option,
  Effect.map(Option.match({ onNone: () => nodePath.join(os.homedir(), ".branchlog", "agent"), onSome: expandHome })),
  Effect.orElseSucceed(() => nodePath.join(os.homedir(), ".branchlog", "agent"))
)

/** pi's agent folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (pass it as `agentDir` to read pi's sessions). */
export const piAgentDir: Effect.Effect<string> = Config.string("PI_CODING_AGENT_DIR").pipe(
  Config.option,
  Effect.map(Option.match({ onNone: () => nodePath.join(os.homedir(), ".pi", "agent"), onSome: expandHome })),
  Effect.orElseSucceed(() => nodePath.join(os.homedir(), ".pi", "agent"))
)

/** `--<cwd without its leading separator, with / \ : replaced by ->--`. */
export const encodeCwd = (cwd: string): string => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`

/** `<agentDir>/sessions/--<enc>--`. */
export const defaultSessionDir = (cwd: string, agent?: string): Effect.Effect<string> =>
  Effect.map(
    agent === undefined ? agentDir : Effect.succeed(agent),
    (dir) => nodePath.join(dir, "sessions", encodeCwd(cwd))
  )

/** `true` for a session file name (not a backup, a lock, or a temporary file): {@link SessionFiles.isSessionFile}. */
export const isSessionFileName = (name: string): boolean => SessionFiles.isSessionFile(name)

/** How much of the messages' text `allMessagesText` keeps: {@link SessionListing.MAX_ALL_MESSAGES_TEXT}. */
export const MAX_ALL_MESSAGES_TEXT = SessionListing.MAX_ALL_MESSAGES_TEXT

/** Reads rows one by one into a `SessionInfo`: {@link SessionListing.InfoReader}. */
export type InfoReader = SessionListing.InfoReader

/** A fresh {@link InfoReader}: {@link SessionListing.infoReader}. */
export const infoReader = SessionListing.infoReader

/** A fold of one file's lines into its `SessionInfo`: `onLines` for `forEachChunk`, then `result`. */
const infoFold = (path: string) => {
  const reader = infoReader()
  return {
    onLines: (chunk: ReadonlyArray<TranscriptFileLine>): boolean => {
      for (const l of chunk) {
        if (!reader.push(OversizedLine.parse(l, path))) return false
      }
      return true
    },
    result: (mtimeMs: number) => reader.result(path, mtimeMs)
  }
}

/** The `SessionInfo` of one file, streamed; `None` when its first row is not a session header. */
export const readInfo = (
  path: string,
  mtimeMs = 0,
  size?: number
): Effect.Effect<Option.Option<SessionInfo>, never, TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const fold = infoFold(path)
    const chunkSize = size === undefined ? undefined : Math.min(1024 * 1024, Math.max(4096, size + 1))
    const read = yield* Effect.either(
      files.forEachChunk(path, fold.onLines, chunkSize === undefined ? {} : { chunkSize })
    )
    return Either.isLeft(read) ? Option.none() : fold.result(mtimeMs)
  })

/** `true` for the names a listing stats: session files and the catalog index. */
const listed = (name: string): boolean => name === SessionFiles.CATALOG_NAME || SessionFiles.isSessionFile(name)

/** The session files of a folder with their watermarks, and whether it holds a catalog index. */
const sessionFiles = (dir: string) =>
  Effect.flatMap(TranscriptFile, (files) =>
    Effect.map(files.list(dir, listed), (entries): CatalogInfo.Folder => {
      const resolved = files.resolve(dir)
      const prefix = resolved.endsWith(nodePath.sep) ? resolved : resolved + nodePath.sep
      const found: Array<CatalogInfo.FoundFile> = []
      let catalogSize: number | undefined
      for (const e of entries) {
        if (!e.isFile) continue
        if (e.name === SessionFiles.CATALOG_NAME) {
          catalogSize = e.size
          continue
        }
        const stamped = e.mtimeNs !== undefined && e.dev !== undefined && e.ino !== undefined
        found.push({
          path: prefix + e.name,
          name: e.name,
          size: e.size,
          mtimeMs: e.mtimeMs,
          mtimeNs: e.mtimeNs ?? "",
          dev: e.dev ?? "",
          ino: e.ino ?? "",
          stamped
        })
      }
      return { dir: resolved, catalogSize, files: found }
    }))

/**
 * A copy of a `SessionInfo` with more fields, keeping a lazily read `allMessagesText` lazy (a
 * spread would read it): what listings that add a field (a reference) use.
 */
export const extend = <A extends object>(info: SessionInfo, more: A): SessionInfo & A => {
  const lazy = CatalogInfo.copyLazy(info)
  if (lazy !== undefined) return Object.assign(lazy, more) as SessionInfo & A
  const text = Object.getOwnPropertyDescriptor(info, "allMessagesText")
  if (text?.get === undefined) return { ...info, ...more }
  // another getter (not the catalog's): every descriptor copied
  return Object.defineProperties({}, {
    ...Object.getOwnPropertyDescriptors(info),
    ...Object.getOwnPropertyDescriptors(more)
  }) as SessionInfo & A
}

/** The long text of a session whose summary came from the catalog: read from the file (`""` if it no longer is a session). */
const longText = (files: TranscriptFile["Type"]) => (path: string): string => {
  // a getter answers synchronously: the file service's synchronous read
  const fold = infoFold(path)
  if (Either.isLeft(files.unsafeForEachChunk(path, fold.onLines))) return ""
  return Option.match(fold.result(0), { onNone: () => "", onSome: (info) => info.allMessagesText })
}

/**
 * The infos of one folder through its catalog index, in the folder's order: the files the index
 * vouches for in one plain loop (no fiber, no Effect per file), only the others read; the index
 * rewritten only when something changed.
 */
const folderInfos = (
  folder: CatalogInfo.Folder,
  at: number,
  mode: "write" | "read" | "off",
  progress: (n: number) => void,
  concurrency: number
) =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const readText = longText(files)
    const catalog = mode === "off" ? undefined : yield* CatalogInfo.readCatalog(folder)
    const n = folder.files.length
    const results = new Array<SessionInfo | undefined>(n)
    const rows = new Array<CatalogIndex.Row | undefined>(n)
    const misses: Array<number> = []
    for (let i = 0; i < n; i++) {
      const file = folder.files[i]!
      const row = catalog?.get(file.name)
      if (row !== undefined && file.stamped && CatalogIndex.trusted(row, file)) {
        rows[i] = row
        if (CatalogIndex.isSession(row)) {
          results[i] = CatalogInfo.fromRow(file.path, row, readText)
        }
      } else misses.push(i)
    }
    progress(n - misses.length)
    yield* Effect.forEach(misses, (i) => {
      const file = folder.files[i]!
      return Effect.map(readInfo(file.path, file.mtimeMs, file.size), (info) => {
        const value = Option.getOrUndefined(info)
        if (file.stamped) rows[i] = CatalogInfo.toRow(file, at, value)
        results[i] = value
        progress(1)
      })
    }, { concurrency, discard: true })
    const changed = catalog === undefined || misses.length > 0 || catalog.size !== n
    if (mode === "write" && changed && (n > 0 || folder.catalogSize !== undefined)) {
      const kept = rows.filter((row) => row !== undefined)
      yield* files.writeSideFile(nodePath.join(folder.dir, SessionFiles.CATALOG_NAME), [
        new TextEncoder().encode(CatalogIndex.encode(kept))
      ]).pipe(Effect.ignore)
    }
    return results
  })

const infos = (
  folders: ReadonlyArray<CatalogInfo.Folder>,
  at: number,
  onProgress: OnProgress | undefined,
  options: CatalogOptions
) =>
  Effect.gen(function*() {
    const total = folders.reduce((n, f) => n + f.files.length, 0)
    let loaded = 0
    const progress = (n: number) => {
      if (n === 0) return
      loaded += n
      onProgress?.(loaded, total)
    }
    const out: Array<SessionInfo> = []
    for (const folder of folders) {
      const found = yield* folderInfos(folder, at, options.index ?? "write", progress, options.concurrency ?? 8)
      for (const info of found) if (info !== undefined) out.push(info)
    }
    return out.sort((a, b) => b.modified.getTime() - a.modified.getTime())
  })

/** The sessions of `cwd` (in `sessionDir`, default its folder under the agent folder), newest first. */
export const list = (
  cwd: string,
  sessionDir?: string,
  onProgress?: OnProgress,
  options: CatalogOptions = {}
): Effect.Effect<Array<SessionInfo>, FileSystemError, TranscriptFile> =>
  Effect.gen(function*() {
    const dir = sessionDir ?? (yield* defaultSessionDir(cwd, options.agentDir))
    const at = yield* Clock.currentTimeMillis
    return yield* infos([yield* sessionFiles(dir)], at, onProgress, options)
  })

/** Every session under `<agentDir>/sessions/*`, newest first. */
export const listAll = (
  onProgress?: OnProgress,
  options: CatalogOptions = {}
): Effect.Effect<Array<SessionInfo>, FileSystemError, TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const root = nodePath.join(options.agentDir ?? (yield* agentDir), "sessions")
    const at = yield* Clock.currentTimeMillis
    const dirs = (yield* files.list(root)).filter((e) => e.isDirectory)
    const folders = yield* Effect.forEach(dirs, (d) => sessionFiles(nodePath.join(root, d.name)))
    return yield* infos(folders, at, onProgress, options)
  })

/**
 * The most recently modified (mtime) file of `dir` whose first row is a session header; `None` on
 * any error. A file the folder's catalog index describes (watermark unchanged) is not read.
 */
export const findMostRecent = (dir: string): Effect.Effect<Option.Option<string>, never, TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const folder = yield* sessionFiles(dir)
    const catalog = yield* CatalogInfo.readCatalog(folder)
    const found = [...folder.files].sort((a, b) => b.mtimeMs - a.mtimeMs)
    for (const file of found) {
      const row = catalog.get(file.name)
      if (row !== undefined && file.stamped && CatalogIndex.trusted(row, file)) {
        if (CatalogIndex.isSession(row)) return Option.some(file.path)
        continue
      }
      let first: Line.ParsedLine | undefined
      yield* files.forEachChunk(file.path, (chunk) => {
        for (const l of chunk) {
          const parsed = OversizedLine.parse(l, file.path)
          if (parsed._tag === "Blank" || parsed._tag === "Corrupt") continue
          first = parsed
          return false
        }
      }, { chunkSize: 64 * 1024 }).pipe(Effect.ignore)
      if (first?._tag === "Header") return Option.some(file.path)
    }
    return Option.none<string>()
  }).pipe(Effect.orElseSucceed(() => Option.none<string>()))

/**
 * The sessions of the `TranscriptStore` in context (any backend): one location's (files: a
 * folder) or all of them, newest first, each with its reference.
 */
export const listStore = (query: ListQuery = {}): Effect.Effect<Array<SessionSummary>, StoreFailure, TranscriptStore> =>
  Effect.flatMap(TranscriptStore, (store) => store.list(query))
