/**
 * `branchlog follow SESSION`: prints the entries others append to a session as they arrive, in
 * order, none twice (session-store's `SessionFollow`: the store's live signals where it has them,
 * PostgreSQL's LISTEN, with a poll beside them; a poll alone for files). Runs until interrupted,
 * or until `--count` entries were printed.
 */
import { SessionFollow } from "@branchlog/session-store"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { requireFile } from "../internal/session.js"
import { entryLine } from "../internal/summary.js"

/** One entry as one line of JSON (JSONL, for scripts reading as it comes), C1 controls escaped as `json` does. */
const jsonLine = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** `branchlog follow SESSION [--json] [--from-start] [--count N]`. */
export const follow: CliCommand = Command.make(
  "follow",
  {
    session: Args.text({ name: "SESSION" }).pipe(
      Args.withDescription("a session (a file, sqlite:PATH#ID, postgres://…#ID)")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print each entry as one line of JSON (JSONL)")),
    fromStart: Options.boolean("from-start").pipe(
      Options.withDescription("print the entries already there first (default: only new ones)")
    ),
    count: Options.integer("count").pipe(
      Options.withDescription("stop after this many entries (default: run until interrupted)"),
      Options.optional
    )
  },
  ({ count, fromStart, json, session }) =>
    Effect.gen(function*() {
      yield* requireFile(session)
      const entries = SessionFollow.follow(session, { from: fromStart ? "start" : "end", cwd: process.cwd() }).pipe(
        Stream.filterMap((row) => row._tag === "Entry" ? Option.some(row.entry) : Option.none())
      )
      const limited = Option.isSome(count) ? Stream.take(entries, Math.max(0, count.value)) : entries
      yield* Stream.runForEach(limited, (entry) =>
        json ? Console.log(jsonLine(entry)) : Output.lines([`${entry.id} ${entryLine(entry, 120)}`]))
    })
).pipe(
  Command.withDescription(
    "Print the entries appended to a session as they arrive (live from PostgreSQL, polled otherwise), until interrupted."
  )
)
