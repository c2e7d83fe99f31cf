/** `branchlog export FILE --html OUT | --md OUT`. */
import { TranscriptFile } from "@branchlog/session-store"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Html from "../internal/html.js"
import * as Markdown from "../internal/markdown.js"
import * as Output from "../internal/output.js"
import { openReadOnly } from "../internal/session.js"

/** `branchlog export FILE --html OUT | --md OUT`. */
export const exportCommand: CliCommand = Command.make(
  "export",
  {
    file: Args.text({ name: "FILE" }),
    html: Options.text("html").pipe(
      Options.withDescription("write a self-contained HTML page of the whole tree"),
      Options.optional
    ),
    md: Options.text("md").pipe(Options.withDescription("write Markdown of the current branch"), Options.optional)
  },
  ({ file, html, md }) =>
    Effect.gen(function*() {
      if (Option.isNone(html) && Option.isNone(md)) {
        return yield* new UsageError({ path: file, detail: "say where: --html OUT or --md OUT" })
      }
      const session = yield* openReadOnly(file)
      const title = session.getSessionName() ?? `Session ${session.getSessionId()}`
      const files = yield* TranscriptFile.TranscriptFile
      if (Option.isSome(html)) {
        // written piece by piece as the page is built: a large session's page outgrows a string
        yield* files.rewrite(
          html.value,
          Stream.fromIterable(Html.pieces(session.getState(), title)).pipe(
            Stream.grouped(4096),
            Stream.map((chunk) => Chunk.join(chunk, ""))
          )
        )
        yield* Output.lines([html.value])
      }
      if (Option.isSome(md)) {
        yield* files.rewrite(md.value, Markdown.render(title, session.getBranch()))
        yield* Output.lines([md.value])
      }
    })
).pipe(
  Command.withDescription(
    "Export a session: a self-contained HTML page of the whole tree (--html), or Markdown of the current branch (--md)."
  )
)
