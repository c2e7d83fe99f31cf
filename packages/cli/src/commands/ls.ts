/** `branchlog ls`: the sessions of a folder, newest first. */
import { SessionRef, TranscriptStore } from "@branchlog/session-store"
import type { TranscriptFile } from "@branchlog/store-jsonl"
import { SessionCatalog } from "@branchlog/store-jsonl"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CliCommand } from "../internal/command.js"
import * as Folders from "../internal/folders.js"
import * as Output from "../internal/output.js"
import { progressBar } from "../internal/progress.js"
import { oneLine } from "../internal/summary.js"
import * as Width from "../internal/width.js"
import { storeOption } from "./stores.js"

/** `branchlog ls [--cwd DIR | --dir SESSION_DIR | --all | --store STORE] [--json]`. */
export const ls: CliCommand = Command.make(
  "ls",
  {
    cwd: Options.text("cwd").pipe(
      Options.withDescription(
        "the sessions of this working folder (default: the current one) in branchlog's, pi's and OpenClaw's folders"
      ),
      Options.optional
    ),
    dir: Options.text("dir").pipe(Options.withDescription("the sessions in this folder"), Options.optional),
    all: Options.boolean("all").pipe(
      Options.withDescription(
        "every session of branchlog's, pi's and OpenClaw's folders ($BRANCHLOG_AGENT_DIR, $PI_CODING_AGENT_DIR, ~/.openclaw)"
      )
    ),
    store: storeOption,
    json: Options.boolean("json").pipe(Options.withDescription("print JSON"))
  },
  ({ all, cwd, dir, json, store }) =>
    Effect.gen(function*() {
      const bar = progressBar("reading sessions")
      // a store given (or $BRANCHLOG_STORE) and no folder asked for: every session of that store
      const fromStore = store !== undefined && !all && Option.isNone(cwd) && Option.isNone(dir)
      // each summary as listed (no copy per session: a long text from the catalog index stays
      // unread) with the reference to print
      const listing: Effect.Effect<
        ReadonlyArray<{ readonly info: SessionCatalog.SessionInfo; readonly ref: string }>,
        unknown,
        TranscriptStore.TranscriptStore | TranscriptFile.TranscriptFile
      > = fromStore
        ? Effect.flatMap(TranscriptStore.TranscriptStore, (stores) =>
          Effect.map(
            stores.list({ location: store, onProgress: bar.update }),
            (found) => found.map((info) => ({ info, ref: SessionRef.format(info.ref) }))
          ))
        : Effect.map(
          all
            ? Folders.listEverything(bar.update)
            : Option.isSome(dir)
            ? SessionCatalog.list(Option.getOrElse(cwd, () => process.cwd()), dir.value, bar.update)
            : Folders.listCwd(Option.getOrElse(cwd, () => process.cwd()), bar.update),
          (found) => found.map((info) => ({ info, ref: info.path }))
        )
      const sessions = yield* listing.pipe(Effect.ensuring(Effect.sync(bar.end)))
      if (json) {
        return yield* Output.json(sessions.map(({ info, ref }) => {
          // every field but `allMessagesText` (never read: it may be read from the file on demand)
          const out: Record<string, unknown> = {}
          for (const key of Object.keys(info)) {
            if (key !== "allMessagesText") out[key] = info[key as keyof typeof info]
          }
          out.ref = ref
          return { ...out, created: info.created.toISOString(), modified: info.modified.toISOString() }
        }))
      }
      if (sessions.length === 0) return yield* Output.note("no sessions")
      const style = Output.stdoutStyle()
      const width = Width.remaining(16 + 2 + 10 + 2 + 13 + 2)
      yield* Output.lines(sessions.map(({ info: s, ref }) =>
        `${style.dim(s.modified.toISOString().slice(0, 16).replace("T", " "))}  ${
          String(s.messageCount).padStart(5)
        } msgs  ${s.id.slice(0, 13).padEnd(13)}  ${s.name === undefined ? "" : `${style.bold(s.name)}  `}${
          oneLine(s.firstMessage, Math.max(10, width - (s.name === undefined ? 0 : s.name.length + 2)))
        }\n${style.dim(`  ${ref}`)}`
      ))
    })
).pipe(Command.withDescription("List sessions, newest first: modified, message count, id, name, first message, path."))
