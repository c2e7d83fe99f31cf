/**
 * The child sessions `branchlog tree` prints after the tree: the sessions of the file's folder
 * whose header's `parentSession` names it, and theirs below them. Only each file's header is read
 * to find them (a session of 700 MB is not read whole to learn that it is nobody's child); the
 * sessions found are then summarised as `SessionCatalog.list` does (their first message, and their
 * order: latest activity first), so the lines are those of a listing of the whole folder.
 */
import { OversizedLine, SessionCatalog, SessionFiles, TranscriptFile } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { dirname, resolve, sep } from "node:path"
import { oneLine } from "./summary.js"
import * as Width from "./width.js"

/** The header of a file as a listing reads it: `undefined` when it is no session, else its `parentSession` (`null`: none). */
const parentOf = (files: TranscriptFile.TranscriptFileShape, path: string) =>
  Effect.gen(function*() {
    let found: string | null | undefined
    yield* files.forEachChunk(path, (chunk) => {
      for (const l of chunk) {
        const parsed = OversizedLine.parse(l, path)
        if (parsed._tag === "Blank" || parsed._tag === "Corrupt") continue
        if (parsed._tag === "Header") {
          const header = parsed.header as Record<string, unknown>
          if (typeof header.id === "string") {
            found = typeof header.parentSession === "string" ? header.parentSession : null
          }
        }
        return false
      }
      return true
    }, { chunkSize: 4096 })
    return found
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * The lines of the sessions below `file` (indented, at most 8 levels): the path and the first user
 * message of each, as a listing of the folder would give them.
 */
export const childLines = (file: string) =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const folder = dirname(resolve(file))
    const entries = yield* files.list(folder, SessionFiles.isSessionFile).pipe(
      Effect.orElseSucceed(() => [] as ReadonlyArray<TranscriptFile.DirectoryEntry>)
    )
    const resolved = files.resolve(folder)
    const prefix = resolved.endsWith(sep) ? resolved : resolved + sep
    const found: Array<{ readonly path: string; readonly mtimeMs: number; readonly size: number; parent: string }> = []
    for (const e of entries) {
      if (!e.isFile) continue
      const path = prefix + e.name
      const parent = yield* parentOf(files, path)
      if (typeof parent === "string") {
        found.push({ path, mtimeMs: e.mtimeMs, size: e.size, parent: resolve(folder, parent) })
      }
    }
    // the sessions the walk can reach: those whose parent is the file or one of them
    const reach = new Set([resolve(file)])
    const needed = new Set<(typeof found)[number]>()
    for (let grew = true; grew;) {
      grew = false
      for (const f of found) {
        if (needed.has(f) || !reach.has(f.parent)) continue
        needed.add(f)
        reach.add(resolve(f.path))
        grew = true
      }
    }
    // their summaries, in the listing's order (latest activity first; the sort is stable)
    const infos: Array<SessionCatalog.SessionInfo & { readonly parent: string }> = []
    for (const f of found) {
      if (!needed.has(f)) continue
      const info = yield* SessionCatalog.readInfo(f.path, f.mtimeMs, f.size)
      if (Option.isSome(info) && info.value.parentSessionPath !== undefined) {
        infos.push({ ...info.value, parent: resolve(folder, info.value.parentSessionPath) })
      }
    }
    infos.sort((a, b) => b.modified.getTime() - a.modified.getTime())
    const byParent = new Map<string, Array<(typeof infos)[number]>>()
    for (const info of infos) byParent.set(info.parent, [...(byParent.get(info.parent) ?? []), info])
    const out: Array<string> = []
    const seen = new Set<string>()
    const walk = (parent: string, depth: number) => {
      if (depth > 8) return
      for (const child of byParent.get(parent) ?? []) {
        const path = resolve(child.path)
        if (seen.has(path)) continue
        seen.add(path)
        out.push(
          `${"  ".repeat(depth)}${child.path}  (${
            oneLine(child.firstMessage, Width.remaining(child.path.length + 4 + depth * 2))
          })`
        )
        walk(path, depth + 1)
      }
    }
    walk(resolve(file), 1)
    return out
  })
