/**
 * The commands across stores: `copy` (a session, or a folder of them, from any store to any other)
 * and `search` (messages by text, in a store that indexes it). Both reach the stores only through
 * session-store's `TranscriptStore` (the router over the backends present), never a backend.
 */
import { SessionCopy, SessionRef, TranscriptStore } from "@branchlog/session-store"
import { Repair } from "@branchlog/store-jsonl"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { statSync } from "node:fs"
import { ProblemsFound, UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { progressBar } from "../internal/progress.js"
import { requireFile } from "../internal/session.js"
import * as StdoutFile from "../internal/stdoutFile.js"
import { oneLine } from "../internal/summary.js"
import * as Width from "../internal/width.js"

const isFolder = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The store `--store` names, else `$BRANCHLOG_STORE`, else `undefined` (the default: the files of the agent folder). */
export const storeOption = Options.text("store").pipe(
  Options.withDescription("the store: a session folder, sqlite:PATH, postgres://… (default: $BRANCHLOG_STORE)"),
  Options.optional,
  Options.map((store) => Option.isSome(store) ? store.value : process.env["BRANCHLOG_STORE"] || undefined)
)

/**
 * After a copy from a file: a note naming its lines of bytes that are not UTF-8, which the copy
 * holds as U+FFFD (every store keeps text; the source keeps the bytes).
 */
const noteInvalidUtf8 = (from: SessionRef.SessionRef) =>
  from._tag !== "File" ? Effect.void : Effect.flatMap(
    Repair.invalidUtf8(from.path).pipe(Effect.orElseSucceed(() => [])),
    (lines) => {
      const first = lines[0]
      return first === undefined ? Effect.void : Output.note(
        `branchlog: ${from.path}: ${lines.length} line(s) hold bytes that are not UTF-8 (the first: line ${first.line}, ` +
          `offset ${first.at}); the copy holds U+FFFD there, the source keeps the bytes (\`branchlog fsck\` lists them)`
      )
    }
  )

/** `branchlog copy SRC DEST [--json]`. */
export const copy: CliCommand = Command.make(
  "copy",
  {
    src: Args.text({ name: "SRC" }).pipe(
      Args.withDescription("a session (a file, sqlite:PATH#ID, postgres://…#ID) or a folder of session files")
    ),
    dest: Args.text({ name: "DEST" }).pipe(
      Args.withDescription(
        "a file path, a session folder, a store (sqlite:PATH, postgres://host/db) in which the session keeps its id, or - for stdout"
      )
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON: {\"from\":…,\"to\":…}"))
  },
  ({ dest, json, src }) =>
    Effect.gen(function*() {
      const to = yield* Either.match(SessionCopy.destination(dest, isFolder(dest)), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
      if (isFolder(src)) {
        if (to._tag !== "Location") {
          return yield* Effect.fail(
            new SessionRef.InvalidSessionRefError({
              input: dest,
              reason: "a folder is copied into a folder or a store"
            })
          )
        }
        const bar = progressBar("copying")
        const result = yield* SessionCopy.copyAll(src, to.location, { onProgress: bar.update }).pipe(
          Effect.ensuring(Effect.sync(bar.end))
        )
        const pairs = result.copied.map((c) => ({ from: SessionRef.format(c.from), to: SessionRef.format(c.to) }))
        if (json) yield* Output.json(pairs)
        else yield* Output.lines(pairs.map((p) => `${p.from} → ${p.to}`))
        for (const c of result.copied) yield* noteInvalidUtf8(c.from)
        for (const f of result.failed) yield* Output.note(`branchlog: ${f.ref}: ${f.error.message}`)
        if (result.failed.length > 0) {
          return yield* new ProblemsFound({ files: result.failed.length, problems: result.failed.length })
        }
        return
      }
      yield* requireFile(src)
      if (StdoutFile.isStdout(dest)) {
        // `-`: the session's lines on stdout, byte for byte what a copy to a file writes
        if (json) {
          return yield* new UsageError({
            detail: "copy SRC - prints the session on stdout: --json cannot go there too"
          })
        }
        return yield* StdoutFile.withTemporaryFolder((dir) =>
          Effect.gen(function*() {
            const copied = yield* SessionCopy.copy(src, { _tag: "Location", location: dir }, { cwd: process.cwd() })
            yield* StdoutFile.copyToStdout(SessionRef.format(copied.to))
            yield* Output.note(`${SessionRef.format(copied.from)} → stdout (${copied.rows} rows)`)
            yield* noteInvalidUtf8(copied.from)
          })
        )
      }
      const copied = yield* SessionCopy.copy(src, to, { cwd: process.cwd() })
      const result = { from: SessionRef.format(copied.from), to: SessionRef.format(copied.to) }
      if (json) yield* Output.json(result)
      else yield* Output.lines([`${result.from} → ${result.to} (${copied.rows} rows)`])
      yield* noteInvalidUtf8(copied.from)
    })
).pipe(
  Command.withDescription(
    "Copy a session (or every session of a folder) between stores, row for row: file → database → file is byte-identical (bytes that are not UTF-8 become U+FFFD, and are named)."
  )
)

/** `branchlog search QUERY [--store …] [--limit N] [--json]`. */
export const search: CliCommand = Command.make(
  "search",
  {
    query: Args.text({ name: "QUERY" }).pipe(Args.withDescription("the words to find")),
    store: storeOption,
    limit: Options.integer("limit").pipe(Options.withDescription("at most this many hits"), Options.withDefault(20)),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON"))
  },
  ({ json, limit, query, store }) =>
    Effect.gen(function*() {
      const stores = yield* TranscriptStore.TranscriptStore
      if (stores.search === undefined) {
        return yield* new TranscriptStore.SearchUnsupportedError({ store: stores.name, location: store ?? "(all)" })
      }
      const hits = yield* stores.search({ text: query, limit, ...(store === undefined ? {} : { location: store }) })
      if (json) {
        return yield* Output.json(hits.map((h) => ({
          session: SessionRef.format(h.ref),
          entryId: h.entryId,
          role: h.role,
          timestamp: h.timestamp ?? null,
          snippet: h.snippet,
          score: h.score
        })))
      }
      if (hits.length === 0) return yield* Output.note("no matches")
      const style = Output.stdoutStyle()
      yield* Output.lines(hits.map((h) =>
        `${style.dim(SessionRef.format(h.ref))} ${style.bold(h.entryId)} ${h.role}\n  ${
          oneLine(h.snippet, Width.remaining(2))
        }`
      ))
    })
).pipe(
  Command.withDescription("Find messages by text in a store that indexes it (ranked: session, entry id, snippet).")
)
