/** `branchlog export FILE --html OUT | --md OUT [--json]` (OUT `-`: stdout). */
import { TranscriptFile } from "@branchlog/store-jsonl"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Markdown from "../internal/markdown.js"
import * as Output from "../internal/output.js"
import { openReadOnly } from "../internal/session.js"

/** What `--json` prints for each output written. */
interface Written {
  readonly format: "html" | "md"
  readonly to: string
  readonly bytes: number
}

/**
 * Text on stdout exactly as it is (no line of it changed; the page and the Markdown already show
 * control characters): printed up to each last newline, a piece at a time.
 */
const toStdout = (pieces: Stream.Stream<string>) =>
  Effect.gen(function*() {
    let rest = ""
    yield* Stream.runForEach(pieces, (piece) => {
      const text = rest + piece
      const end = text.lastIndexOf("\n")
      if (end === -1) {
        rest = text
        return Effect.void
      }
      rest = text.slice(end + 1)
      return Console.log(text.slice(0, end))
    })
    if (rest !== "") yield* Console.log(rest)
  })

/** `branchlog export FILE --html OUT | --md OUT [--json]`. */
export const exportCommand: CliCommand = Command.make(
  "export",
  {
    file: Args.text({ name: "FILE" }),
    html: Options.text("html").pipe(
      Options.withDescription("write a self-contained HTML page of the whole tree (- for stdout)"),
      Options.optional
    ),
    md: Options.text("md").pipe(
      Options.withDescription("write Markdown of the current branch (- for stdout)"),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print what was written as JSON"))
  },
  ({ file, html, json, md }) =>
    Effect.gen(function*() {
      if (Option.isNone(html) && Option.isNone(md)) {
        return yield* new UsageError({ path: file, detail: "say where: --html OUT or --md OUT" })
      }
      const toStdoutCount = [html, md].filter((out) => Option.isSome(out) && out.value === "-").length
      if (toStdoutCount > 1) {
        return yield* new UsageError({ path: file, detail: "only one of --html and --md can be - (stdout)" })
      }
      if (toStdoutCount > 0 && json) {
        return yield* new UsageError({ path: file, detail: "--json prints on stdout: write the export to a file" })
      }
      const session = yield* openReadOnly(file)
      // the page holds the whole tree: a bounded session loads the rest
      yield* session.loadFull()
      const title = session.getSessionName() ?? `Session ${session.getSessionId()}`
      const files = yield* TranscriptFile.TranscriptFile
      const written: Array<Written> = []
      const write = (format: Written["format"], to: string, pieces: Stream.Stream<string>) =>
        Effect.gen(function*() {
          let bytes = 0
          const counted = pieces.pipe(Stream.tap((piece) => Effect.sync(() => bytes += Buffer.byteLength(piece))))
          if (to === "-") return yield* toStdout(counted)
          yield* files.rewrite(to, counted)
          written.push({ format, to, bytes })
          // with an export on stdout, stdout holds only that export
          if (!json && toStdoutCount === 0) yield* Output.lines([to])
        })
      if (Option.isSome(html)) {
        // loaded here: the Markdown renderer is evaluated only when a page is made (not by --help)
        const Html = yield* Effect.promise(() => import("../internal/html.js"))
        // written piece by piece as the page is built: a large session's page outgrows a string
        yield* write(
          "html",
          html.value,
          Stream.fromIterable(Html.pieces(session.getState(), title)).pipe(
            Stream.grouped(4096),
            Stream.map((chunk) => Chunk.join(chunk, ""))
          )
        )
      }
      if (Option.isSome(md)) {
        yield* write("md", md.value, Stream.make(Markdown.render(title, session.getBranch())))
      }
      if (json) {
        yield* Output.json({
          sessionId: session.getSessionId(),
          title,
          entries: session.getState().entries.length,
          leafId: session.getState().leafId,
          written
        })
      }
    })
).pipe(
  Command.withDescription(
    "Export a session: a self-contained HTML page of the whole tree (--html), or Markdown of the current branch (--md); OUT - writes to stdout."
  )
)
