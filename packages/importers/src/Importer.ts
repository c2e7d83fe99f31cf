/**
 * `import SRC [--format] [--out DEST]` as a library: reads a source (a file, a folder of them, an
 * OpenClaw agent database) through session-store's `TranscriptFile` (the database through the
 * SQLite driver, read-only), converts it with the pure per-format modules, and writes each session
 * through `SessionManager` (so any store the manager is given will do). The source is never written.
 * Importing the same source into the same destination again writes nothing twice: entry ids are
 * derived from the source's ids, and entries already there are passed over.
 *
 * @since 0.1.0
 */
import type { SessionStore } from "@branchlog/store-jsonl"
import { FileSnapshot, SessionCatalog, TranscriptFile } from "@branchlog/store-jsonl"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as nodePath from "node:path"
import * as ClaudeCode from "./ClaudeCode.js"
import * as Codex from "./Codex.js"
import * as Detect from "./Detect.js"
import type { Format, ImportedSession } from "./ImportedSession.js"
import { DestinationError, type ImportError, SourceNotFound, SourceReadError, UnknownFormat } from "./ImportError.js"
import { splitLines } from "./internal/jsonl.js"
import { type Target, write } from "./internal/writer.js"
import * as OpenClaw from "./OpenClaw.js"
import * as OpenClawDatabase from "./OpenClawDatabase.js"

/** Options of {@link importSource}. */
export interface Options {
  /** The source's format (default `"auto"`: detected per file). */
  readonly format?: Format | "auto"
  /**
   * Where to write: a `.jsonl` file (a source of one session; its subagents go beside it), or a
   * session folder. Default: branchlog's session folder for each session's cwd.
   */
  readonly out?: string
  /** Called after each source file of a folder (done, total). */
  readonly onProgress?: (done: number, total: number) => void
}

/** What importing one session did (what `branchlog import --json` prints). */
export interface Report {
  readonly format: Format
  /** The source file (or database). */
  readonly from: string
  /** The session file written. */
  readonly to: string
  readonly sessionId: string
  /** The session's entries from the source (the provenance entry not counted). */
  readonly entries: number
  /** Source records not imported (`line`: the line number; an OpenClaw event's `seq`). */
  readonly skipped: ReadonlyArray<{ readonly line: number; readonly reason: string }>
  readonly warnings: ReadonlyArray<string>
  /** The `sessionId` of the session this one is a subagent of. */
  readonly parentSessionId?: string
}

/** A source file of a folder that could not be imported. */
export interface Failure {
  readonly path: string
  readonly error: ImportError
}

/** What an import did: a report per session (a main session before its subagents), and the files that failed. */
export interface Outcome {
  readonly reports: ReadonlyArray<Report>
  readonly failures: ReadonlyArray<Failure>
}

/** The services an import needs: session-store's. */
export type Requirements = SessionStore.Services

const readAll = (path: string, length = Number.MAX_SAFE_INTEGER) =>
  Effect.flatMap(TranscriptFile.TranscriptFile, (files) =>
    Stream.runCollect(files.bytes(path, 0, length)).pipe(
      Effect.map((chunks) => {
        const parts = Chunk.toReadonlyArray(chunks)
        if (parts.length === 1) return parts[0]!
        const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
        let at = 0
        for (const p of parts) {
          out.set(p, at)
          at += p.length
        }
        return out
      }),
      Effect.mapError((error) =>
        error._tag === "FileNotFoundError"
          ? new SourceNotFound({ path })
          : new SourceReadError({ path, reason: error.message })
      )
    ))

/** The sessions of one source file, converted (a Claude Code file with its subagents' files). */
export const convertFile = (
  path: string,
  format: Format | "auto" = "auto"
): Effect.Effect<Array<ImportedSession>, ImportError, TranscriptFile.TranscriptFile> =>
  Effect.gen(function*() {
    const head = yield* readAll(path, Detect.HEAD_BYTES)
    // a first record longer than the head (a pasted image) leaves nothing to detect from: read on
    const found = format !== "auto"
      ? format
      : Detect.detect(head) ?? (head.length >= Detect.HEAD_BYTES ? Detect.detect(yield* readAll(path)) : undefined)
    if (found === undefined) {
      return yield* new UnknownFormat({
        path,
        reason: "not a Claude Code transcript, a Codex rollout or an OpenClaw agent database"
      })
    }
    const base = nodePath.basename(path).replace(/\.jsonl$/, "")
    if (found === "openclaw") {
      if (!Detect.isSqlite(head)) {
        return yield* new UnknownFormat({ path, reason: "not an SQLite database (OpenClaw keeps its sessions in one)" })
      }
      const sessions = yield* OpenClawDatabase.read(path)
      return sessions.map((s) =>
        OpenClaw.convert(s.rows, {
          source: path,
          sessionId: s.sessionId,
          ...(s.leafEventId === undefined ? {} : { leafEventId: s.leafEventId }),
          ...(s.activeLeafSeq === undefined ? {} : { activeLeafSeq: s.activeLeafSeq })
        })
      )
    }
    if (Detect.isSqlite(head)) {
      return yield* new UnknownFormat({ path, reason: `an SQLite database, not a ${found} transcript` })
    }
    const lines = splitLines(head.length < Detect.HEAD_BYTES ? head : yield* readAll(path))
    if (found === "codex") {
      const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(base)?.[1] ?? base
      return [Codex.convert(lines, { source: path, fallbackSessionId: id })]
    }
    const sessions = ClaudeCode.convert(lines, { source: path, fallbackSessionId: base })
    // Claude Code 2.x keeps subagents in <session>/subagents/agent-<id>.jsonl
    const files = yield* TranscriptFile.TranscriptFile
    const dir = nodePath.join(nodePath.dirname(path), base, "subagents")
    const agents = (yield* Effect.orElseSucceed(files.list(dir), () => []))
      .filter((e) => e.isFile && /^agent-.+\.jsonl$/.test(e.name))
      .map((e) => e.name)
      .sort()
    for (const name of agents) {
      const agentPath = nodePath.join(dir, name)
      const agentLines = splitLines(yield* readAll(agentPath))
      sessions.push(...ClaudeCode.convert(agentLines, {
        source: agentPath,
        fallbackSessionId: name.replace(/\.jsonl$/, ""),
        subagentOf: { parentSessionId: sessions[0]!.sessionId, agentId: name.replace(/^agent-|\.jsonl$/g, "") }
      }))
    }
    return sessions
  })

/** The source files of a folder: every `.jsonl` and `.sqlite` file in it and below, except Claude Code's `subagents` folders. */
const sourcesIn = (dir: string): Effect.Effect<Array<string>, ImportError, TranscriptFile.TranscriptFile> =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const out: Array<string> = []
    const stack = [dir]
    while (stack.length > 0) {
      const at = stack.pop()!
      const entries = yield* Effect.mapError(
        files.list(at),
        (e) => new SourceReadError({ path: at, reason: e.message })
      )
      for (const e of entries) {
        const path = nodePath.join(at, e.name)
        if (e.isDirectory && e.name !== "subagents") stack.push(path)
        else if (e.isFile && /\.(jsonl|sqlite)$/.test(e.name)) out.push(path)
      }
    }
    return out.sort()
  })

/** The target of a session: the file asked for (the session of its own), else a folder (its subagents). */
const targetOf = (session: ImportedSession, out: string | undefined, main: boolean) =>
  out !== undefined && out.endsWith(".jsonl")
    ? Effect.succeed<Target>(main ? { _tag: "File", path: out } : { _tag: "Folder", dir: nodePath.dirname(out) })
    : out !== undefined
    ? Effect.succeed<Target>({ _tag: "Folder", dir: out })
    : Effect.map(
      SessionCatalog.defaultSessionDir(session.cwd === "" ? process.cwd() : session.cwd),
      (dir): Target => ({ _tag: "Folder", dir })
    )

/** Writes converted sessions (mains before their subagents); returns a report per session. */
export const writeSessions = (
  sessions: ReadonlyArray<ImportedSession>,
  out?: string,
  /** The files of sessions written before (a folder's), by session id: a subagent's parent may be among them. */
  fileOf: Map<string, string> = new Map()
): Effect.Effect<Array<Report>, DestinationError, Requirements> =>
  Effect.gen(function*() {
    // a session is one of its own unless its parent is imported with it (a subagent file given
    // alone is one of its own: `out` names its file)
    const ids = new Set(sessions.map((s) => s.sessionId))
    const isRoot = (s: ImportedSession) =>
      s.parentSessionId === undefined || (!ids.has(s.parentSessionId) && !fileOf.has(s.parentSessionId))
    const roots = sessions.filter(isRoot)
    if (out !== undefined && out.endsWith(".jsonl") && roots.length > 1) {
      return yield* new DestinationError({
        path: out,
        reason: `the source holds ${roots.length} sessions: give a folder`
      })
    }
    const reports: Array<Report> = []
    for (const session of sessions) {
      const parentFile = session.parentSessionId === undefined ? undefined : fileOf.get(session.parentSessionId)
      const orphan = session.parentSessionId !== undefined && parentFile === undefined
      const target = yield* targetOf(session, out, isRoot(session))
      const written = yield* write(session, target, parentFile)
      fileOf.set(session.sessionId, written.file)
      reports.push({
        format: session.provenance.format,
        from: session.provenance.source,
        to: written.file,
        sessionId: session.sessionId,
        entries: session.entries.length - 1,
        skipped: session.skipped.map((s) => ({
          line: s.line ?? s.seq ?? 0,
          reason: s.offset === undefined ? s.reason : `${s.reason} (at byte ${s.offset})`
        })),
        warnings: [
          ...session.warnings,
          ...written.warnings,
          ...(written.present > 0
            ? [`${written.present} entries were already in ${written.file} (not written again)`]
            : []),
          ...(orphan
            ? [`its parent session ${session.parentSessionId} was not imported with it: no parentSession in the header`]
            : [])
        ],
        ...(session.parentSessionId === undefined ? {} : { parentSessionId: session.parentSessionId })
      })
    }
    return reports
  })

/**
 * Imports `src` (a file, a folder, an OpenClaw database). A single file's errors fail the import;
 * a folder's files that fail are listed in `failures` and the others are imported.
 */
export const importSource = (src: string, options: Options = {}): Effect.Effect<Outcome, ImportError, Requirements> =>
  Effect.gen(function*() {
    const snapshots = yield* FileSnapshot.FileSnapshot
    const kind = yield* snapshots.capture(src).pipe(
      Effect.map((s) => (Option.isSome(s) ? "file" as const : "missing" as const)),
      Effect.catchTag(
        "NotRegularFileError",
        (e) =>
          e.kind === "directory"
            ? Effect.succeed("folder" as const)
            : Effect.fail(new SourceReadError({ path: src, reason: e.message }))
      ),
      Effect.catchTag("FileSystemError", (e) => Effect.fail(new SourceReadError({ path: src, reason: e.message })))
    )
    if (kind === "missing") return yield* new SourceNotFound({ path: src })
    const format = options.format ?? "auto"
    if (kind === "file") {
      return { reports: yield* writeSessions(yield* convertFile(src, format), options.out), failures: [] }
    }
    if (options.out !== undefined && options.out.endsWith(".jsonl")) {
      return yield* new DestinationError({
        path: options.out,
        reason: "a folder is imported into a folder, not into one file"
      })
    }
    // main sessions before subagents' own files (`agent-*.jsonl`), so these find their parent
    const paths = (yield* sourcesIn(src)).sort((a, b) =>
      Number(nodePath.basename(a).startsWith("agent-")) - Number(nodePath.basename(b).startsWith("agent-")) ||
      (a < b ? -1 : a > b ? 1 : 0)
    )
    const fileOf = new Map<string, string>()
    const reports: Array<Report> = []
    const failures: Array<Failure> = []
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i]!
      const result = yield* Effect.either(
        Effect.flatMap(convertFile(path, format), (s) => writeSessions(s, options.out, fileOf))
      )
      if (result._tag === "Right") reports.push(...result.right)
      else failures.push({ path, error: result.left })
      options.onProgress?.(i + 1, paths.length)
    }
    return { reports, failures }
  })
