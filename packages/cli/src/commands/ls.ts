/** `branchlog ls`: the sessions of a folder, newest first. */
import { SessionCatalog } from "@branchlog/session-store"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { progressBar } from "../internal/progress.js"
import { oneLine } from "../internal/summary.js"

/** `branchlog ls [--cwd DIR | --dir SESSION_DIR | --all] [--json]`. */
export const ls: CliCommand = Command.make(
  "ls",
  {
    cwd: Options.text("cwd").pipe(
      Options.withDescription("the sessions of this working folder (default: the current one)"),
      Options.optional
    ),
    dir: Options.text("dir").pipe(Options.withDescription("the sessions in this folder"), Options.optional),
    all: Options.boolean("all").pipe(
      Options.withDescription("every session under the agent folder ($BRANCHLOG_AGENT_DIR, default ~/.branchlog/agent)")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON"))
  },
  ({ all, cwd, dir, json }) =>
    Effect.gen(function*() {
      const bar = progressBar("reading sessions")
      const sessions = yield* (all
        ? SessionCatalog.listAll(bar.update)
        : SessionCatalog.list(Option.getOrElse(cwd, () => process.cwd()), Option.getOrUndefined(dir), bar.update)).pipe(
          Effect.ensuring(Effect.sync(bar.end))
        )
      if (json) {
        return yield* Output.json(sessions.map(({ allMessagesText: _, ...info }) => ({
          ...info,
          created: info.created.toISOString(),
          modified: info.modified.toISOString()
        })))
      }
      if (sessions.length === 0) return yield* Output.note("no sessions")
      const style = Output.stdoutStyle()
      yield* Output.lines(sessions.map((s) =>
        `${style.dim(s.modified.toISOString().slice(0, 16).replace("T", " "))}  ${
          String(s.messageCount).padStart(5)
        } msgs  ${s.id.slice(0, 13)}  ${s.name === undefined ? "" : `${style.bold(s.name)}  `}${
          oneLine(s.firstMessage, 60)
        }\n${style.dim(`  ${s.path}`)}`
      ))
    })
).pipe(Command.withDescription("List sessions, newest first: modified, message count, id, name, first message, path."))
