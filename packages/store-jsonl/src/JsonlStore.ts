/**
 * The JSONL file backend of `TranscriptStore`, built on the file layer (`TranscriptFile`,
 * `FileSnapshot`, `TranscriptLock`): a session is a `.jsonl` file, a cursor is the file's
 * snapshot with the line count and byte offset read, a hold is the transcript lock (with one
 * O_APPEND descriptor kept open for the hold's writes), a replace is an atomic rewrite after a
 * backup, and a load keeps a cache of transcripts read (tail-only re-reads of files that grew).
 * Migration and header recovery are rewrites on writable loads. Its state (the cache, the last
 * writer of each file) belongs to one layer build.
 *
 * @since 0.1.0
 */
import type { Entry } from "@branchlog/session-core"
import { Line } from "@branchlog/session-core"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import type { Changes, TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import { SessionNotFoundError, TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as nodePath from "node:path"
import { FileSnapshot } from "./FileSnapshot.js"
import { loadActive } from "./internal/jsonl/active.js"
import * as Cache from "./internal/jsonl/cache.js"
import { changesOf, positionAfter } from "./internal/jsonl/changes.js"
import { fromCursor } from "./internal/jsonl/cursor.js"
import * as Env from "./internal/jsonl/env.js"
import { appendLocked, exclusive } from "./internal/jsonl/held.js"
import { load } from "./internal/jsonl/load.js"
import { search } from "./internal/jsonl/search.js"
import * as OversizedLine from "./OversizedLine.js"
import * as SessionCatalog from "./SessionCatalog.js"
import * as SessionFiles from "./SessionFiles.js"
import { TranscriptFile } from "./TranscriptFile.js"
import { TranscriptLock } from "./TranscriptLock.js"

/** Bounds of the cache of loaded transcripts: files kept (default 8; 0: no cache) and their total bytes (256 MiB). */
export type CacheLimits = Cache.CacheLimits

/** Options of the store. */
export interface Options {
  readonly cache?: Partial<CacheLimits>
  /**
   * The agent folder: a listing without a location covers `<agentDir>/sessions/*`, and a session
   * created without a location goes to `<agentDir>/sessions/--<cwd>--` (default:
   * `SessionCatalog.agentDir`, `$BRANCHLOG_AGENT_DIR` or `~/.branchlog/agent`).
   */
  readonly agentDir?: string
}

/** The file name of a session: `<timestamp with : and . → ->_<sessionId>.jsonl`. */
export const fileNameOf = (header: Entry.SessionHeader): string =>
  `${(header.timestamp ?? new Date(0).toISOString()).replace(/[:.]/g, "-")}_${header.id}.jsonl`

const unsupported = (ref: SessionRef.SessionRef) =>
  new SessionRef.UnsupportedSessionRefError({ ref: SessionRef.format(ref), store: "jsonl" })

const fileOf = (ref: SessionRef.SessionRef): Effect.Effect<SessionRef.FileRef, SessionRef.UnsupportedSessionRefError> =>
  ref._tag === "File" ? Effect.succeed(ref) : Effect.fail(unsupported(ref))

/** The store over the file-level services in context. */
export const make = (options: Options = {}): Effect.Effect<
  TranscriptStoreShape,
  never,
  TranscriptFile | FileSnapshot | TranscriptLock
> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile
    const env = Env.make({
      files,
      snapshots: yield* FileSnapshot,
      locks: yield* TranscriptLock,
      cache: Cache.make(options.cache)
    })
    const withFiles = Effect.provideService(TranscriptFile, files)
    // (`extend`, not a spread: a long `allMessagesText` from the catalog index stays lazy)
    const summary = (info: SessionCatalog.SessionInfo) =>
      SessionCatalog.extend(info, { ref: SessionRef.file(info.path) })
    const list: TranscriptStoreShape["list"] = (query) =>
      Effect.map(
        query.location === undefined
          ? withFiles(SessionCatalog.listAll(query.onProgress, {
            ...(options.agentDir === undefined ? {} : { agentDir: options.agentDir }),
            ...(query.concurrency === undefined ? {} : { concurrency: query.concurrency })
          }))
          : withFiles(SessionCatalog.list("", query.location, query.onProgress, {
            ...(query.concurrency === undefined ? {} : { concurrency: query.concurrency })
          })),
        (infos) => infos.map(summary)
      )
    return {
      name: "jsonl",
      resolve: (ref) => Effect.map(fileOf(ref), (f) => SessionRef.file(files.resolve(f.path))),
      defaultLocation: (cwd) => SessionCatalog.defaultSessionDir(cwd, options.agentDir),
      resolveLocation: (location) => files.resolve(location),
      locationOf: (ref) => ref._tag === "File" ? nodePath.dirname(files.resolve(ref.path)) : "",
      refFor: (location, header) => SessionRef.file(nodePath.join(files.resolve(location), fileNameOf(header))),
      positionAfter,
      load: (ref, loadOptions) => Effect.flatMap(fileOf(ref), (f) => load(env, files.resolve(f.path), loadOptions)),
      loadActive: (ref, activeOptions) =>
        Effect.flatMap(fileOf(ref), (f) => loadActive(env, files.resolve(f.path), activeOptions)),
      streamRows: (ref) =>
        Stream.unwrap(Effect.map(fileOf(ref), (f) => {
          const path = files.resolve(f.path)
          return files.lines(path).pipe(Stream.map((line) => ({
            text: Line.serialize(OversizedLine.parse(line, path, files)),
            terminated: line.terminated
          })))
        })),
      changes: (ref, cursor) =>
        Effect.flatMap(fileOf(ref), (f) => {
          const jc = fromCursor(cursor)
          return jc === undefined ? Effect.succeed<Changes>({ _tag: "Replaced" }) : changesOf(env, f.path, jc)
        }),
      exclusive: (ref, use, exclusiveOptions) =>
        Effect.flatMap(fileOf(ref), (f) => exclusive(env, f, use, exclusiveOptions)),
      unsafeAppendLocked: (fiber, ref, cursor, rows, writeOptions) =>
        appendLocked(env, fiber, ref, cursor, rows, writeOptions),
      list,
      search: (query) => search(env, list(query.location === undefined ? {} : { location: query.location }), query),
      mostRecent: (location) =>
        Effect.map(withFiles(SessionCatalog.findMostRecent(location)), Option.map((path) => SessionRef.file(path))),
      remove: (ref) =>
        Effect.flatMap(Effect.zip(fileOf(ref), env.locks), ([f, locks]) =>
          locks.withLock(
            f.path,
            Effect.gen(function*() {
              const exists = yield* env.snapshots.capture(f.path)
              if (Option.isNone(exists)) return yield* new SessionNotFoundError({ ref: SessionRef.format(f) })
              yield* files.remove(f.path)
              yield* files.remove(SessionFiles.indexName(env.keyOf(f.path))).pipe(Effect.ignore)
              env.cache.remove(env.keyOf(f.path))
              env.lastWrite.delete(env.keyOf(f.path))
            })
          ))
    } satisfies TranscriptStoreShape
  })

/** The store as a layer over the file-level services in context (a fresh cache per build). */
export const layer = (options: Options = {}): Layer.Layer<
  TranscriptStore,
  never,
  TranscriptFile | FileSnapshot | TranscriptLock
> => Layer.effect(TranscriptStore, make(options))
