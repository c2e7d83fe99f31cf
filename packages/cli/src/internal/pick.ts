/**
 * Which session a read command opens: a file or a reference as given; else a session-id prefix,
 * looked up in `--dir` or in every default folder (branchlog's, pi's, OpenClaw's; see `folders.ts`)
 * and in `$BRANCHLOG_STORE` when it is set; or, with `--last`, the most recent session of the
 * working folder (the first that `ls` lists).
 */
import { SessionRef, TranscriptStore } from "@branchlog/session-store"
import { FileSnapshot, SessionCatalog } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { join } from "node:path"
import { AmbiguousSession, NoRecentSession, NoSuchSession, UsageError } from "../CliError.js"
import * as Folders from "./folders.js"

/** A found session: what to open, and its id. */
interface Found {
  readonly ref: string
  readonly id: string
}

/** The folders searched, as named in errors. */
const searchedFolders = (dir: string | undefined) =>
  dir !== undefined ? Effect.succeed([dir]) : Effect.map(
    Effect.all([Folders.agentDirs, Folders.gatewayDirs]),
    ([agents, gateway]) => [
      ...agents.map((agent) => join(agent, "sessions")),
      ...gateway,
      ...(process.env["BRANCHLOG_STORE"] ? [process.env["BRANCHLOG_STORE"]] : [])
    ]
  )

/** Every session that can be looked up by id: `dir`'s, or every default folder's and the store's. */
const candidates = (dir: string | undefined) =>
  Effect.gen(function*() {
    if (dir !== undefined) {
      return (yield* SessionCatalog.list("", dir, undefined, { index: "read" })).map((info): Found => ({
        ref: info.path,
        id: info.id
      }))
    }
    const files = (yield* Folders.listEverything()).map((info): Found => ({ ref: info.path, id: info.id }))
    const location = process.env["BRANCHLOG_STORE"]
    if (!location) return files
    const stores = yield* TranscriptStore.TranscriptStore
    const inStore = yield* stores.list({ location })
    return [...files, ...inStore.map((info): Found => ({ ref: SessionRef.format(info.ref), id: info.id }))]
  })

/** Whether `arg` names a session as it is: a reference of a store, a file that exists, or a path. */
const isDirect = (arg: string) =>
  Effect.gen(function*() {
    const ref = SessionRef.parse(arg)
    if (Either.isLeft(ref) || ref.right._tag !== "File") return true
    if (/[/\\]/.test(arg) || arg.endsWith(".jsonl") || arg === "." || arg === "..") return true
    const snapshots = yield* FileSnapshot.FileSnapshot
    return Option.isSome(yield* snapshots.capture(arg).pipe(Effect.orElseSucceed(() => Option.some(null))))
  })

/**
 * The session `arg` names: itself when it is a reference, a path or an existing file; else the one
 * session whose id starts with it (an exact id wins). Several: `AmbiguousSession` listing them;
 * none: `NoSuchSession` naming the folders searched.
 */
export const byIdPrefix = (arg: string, dir: string | undefined) =>
  Effect.gen(function*() {
    if (yield* isDirect(arg)) return arg
    const all = yield* candidates(dir)
    const prefix = arg.toLowerCase()
    const matches = all.filter((found) => found.id.toLowerCase().startsWith(prefix))
    const exact = matches.filter((found) => found.id.toLowerCase() === prefix)
    const unique = [...new Map((exact.length > 0 ? exact : matches).map((f) => [f.ref, f])).values()]
    if (unique.length === 1) return unique[0]!.ref
    if (unique.length > 1) {
      return yield* new AmbiguousSession({
        prefix: arg,
        candidates: unique.map((f) => ({ id: f.id, path: f.ref }))
      })
    }
    return yield* new NoSuchSession({ prefix: arg, searched: yield* searchedFolders(dir) })
  })

/** The most recent session of `cwd` (in `dir`, else every default folder for it), as `ls` lists them. */
export const mostRecent = (cwd: string, dir: string | undefined) =>
  Effect.gen(function*() {
    const found = dir !== undefined
      ? yield* SessionCatalog.list(cwd, dir, undefined, { index: "read" })
      : yield* Folders.listCwd(cwd)
    if (found.length > 0) return found[0]!.path
    const searched = dir !== undefined ? [dir] : yield* Effect.map(
      Effect.all([Folders.agentDirs, Folders.gatewayDirs]),
      ([agents, gateway]) => [...agents.map((a) => join(a, "sessions", SessionCatalog.encodeCwd(cwd))), ...gateway]
    )
    return yield* new NoRecentSession({ cwd, searched })
  })

/**
 * The session a read command opens: `FILE` (or an id prefix), or with `last` the most recent of
 * the working folder; one of them is needed, not both.
 */
export const target = (
  file: Option.Option<string>,
  options: { readonly last: boolean; readonly dir: Option.Option<string> }
) =>
  Effect.gen(function*() {
    const dir = Option.getOrUndefined(options.dir)
    if (options.last) {
      if (Option.isSome(file)) return yield* new UsageError({ detail: "give either FILE or --last, not both" })
      return yield* mostRecent(process.cwd(), dir)
    }
    if (Option.isNone(file)) {
      return yield* new UsageError({ detail: "a session is needed: FILE, a session id (prefix), or --last" })
    }
    return yield* byIdPrefix(file.value, dir)
  })
