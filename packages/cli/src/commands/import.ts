/** `branchlog import SRC [--format auto|claude-code|codex|openclaw] [--out DEST] [--json]`. */
import { Importer } from "@branchlog/importers"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { ProblemsFound, UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Globals from "../internal/globals.js"
import * as Output from "../internal/output.js"
import { progressBar } from "../internal/progress.js"
import * as StdoutFile from "../internal/stdoutFile.js"

/** What `--json` prints for one session: exactly the issue's shape. */
const jsonOf = (r: Importer.Report) => ({
  format: r.format,
  from: r.from,
  to: r.to,
  sessionId: r.sessionId,
  entries: r.entries,
  skipped: r.skipped,
  warnings: r.warnings
})

/**
 * One line for what a session's import skipped and left out ("3 skipped, 12 records left out on
 * purpose: --verbose lists them"), or `undefined` when there is nothing to say.
 */
export const noticeOf = (r: Importer.Report): string | undefined => {
  const left = r.warnings.reduce((n, w) => n + Number(/^dropped (\d+) /.exec(w)?.[1] ?? 0), 0)
  const others = r.warnings.filter((w) => !/^dropped \d+ /.test(w)).length
  const parts = [
    ...(r.skipped.length > 0 ? [`${r.skipped.length} skipped`] : []),
    ...(left > 0 ? [`${left} records left out on purpose`] : []),
    ...(others > 0 ? [`${others} warning${others === 1 ? "" : "s"}`] : [])
  ]
  return parts.length === 0 ? undefined : `${r.from}: ${parts.join(", ")} (--verbose lists them)`
}

/** What was skipped and left out of each session: one line each, or every one with `--verbose`. */
const notices = (reports: ReadonlyArray<Importer.Report>) =>
  Effect.gen(function*() {
    const verbose = yield* FiberRef.get(Globals.verbose)
    for (const r of reports) {
      if (!verbose) {
        const notice = noticeOf(r)
        if (notice !== undefined) yield* Output.note(notice)
        continue
      }
      for (const s of r.skipped) yield* Output.note(`${r.from}:${s.line}: skipped: ${s.reason}`)
      for (const w of r.warnings) yield* Output.note(`${r.from}: ${w}`)
    }
  })

/** `branchlog import SRC [--format …] [--out DEST] [--json]`. */
export const importCommand: CliCommand = Command.make(
  "import",
  {
    src: Args.text({ name: "SRC" }).pipe(
      Args.withDescription("a transcript file, a folder of them, or an OpenClaw agent database")
    ),
    format: Options.choice("format", ["auto", "claude-code", "codex", "openclaw"]).pipe(
      Options.withDescription("the source's format (default: detected per file)"),
      Options.withDefault("auto" as const)
    ),
    out: Options.text("out").pipe(
      Options.withDescription(
        "a .jsonl file (one session), a session folder, or - for stdout (one session; the report goes to stderr) (default: branchlog's session folder for the source's cwd)"
      ),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON"))
  },
  ({ format, json, out, src }) =>
    StdoutFile.isStdout(Option.getOrUndefined(out))
      ? json
        ? Effect.fail(new UsageError({ detail: "--out - prints the session on stdout: --json cannot go there too" }))
        : StdoutFile.withTemporaryFolder((dir) => importTo(src, format, Option.some(dir), false, true))
      : importTo(src, format, out, json, false)
).pipe(
  Command.withDescription(
    "Import Claude Code transcripts, Codex rollouts or an OpenClaw agent database into branchlog sessions (the source is never modified; importing again writes nothing twice). What was skipped or left out is one line per session; --verbose lists it."
  )
)

/** Imports `src` to `out`; with `toStdout`, the one session written goes to stdout and the report to stderr. */
const importTo = (
  src: string,
  format: "auto" | "claude-code" | "codex" | "openclaw",
  out: Option.Option<string>,
  json: boolean,
  toStdout: boolean
) =>
  Effect.gen(function*() {
    const bar = progressBar("importing")
    const outcome = yield* Importer.importSource(src, {
      format,
      ...(Option.isSome(out) ? { out: out.value } : {}),
      onProgress: bar.update
    }).pipe(Effect.ensuring(Effect.sync(bar.end)))
    // sessions of their own: not a subagent of a session imported with them
    const ids = new Set(outcome.reports.map((r) => r.sessionId))
    const isMain = (r: Importer.Report) => r.parentSessionId === undefined || !ids.has(r.parentSessionId)
    const mains = outcome.reports.filter(isMain)
    if (json) {
      // one session: its object; a source of several (a folder, a database): an array
      const single = mains.length === 1 && outcome.failures.length === 0
      yield* Output.json(single ? jsonOf(mains[0]!) : outcome.reports.map(jsonOf))
      for (const r of outcome.reports) {
        if (single && !isMain(r)) yield* Output.note(`subagent session ${r.sessionId}: ${r.to}`)
      }
    } else if (toStdout) {
      if (mains.length !== 1 || outcome.failures.length > 0) {
        return yield* new UsageError({
          path: src,
          detail: `--out - prints one session, and this source holds ${mains.length + outcome.failures.length}`
        })
      }
      yield* StdoutFile.copyToStdout(mains[0]!.to)
      for (const r of outcome.reports) {
        yield* Output.note(
          isMain(r)
            ? `${r.format} ${r.sessionId}: ${r.entries} entries → stdout`
            : `${r.format} ${r.sessionId}: subagent of ${r.parentSessionId}, not printed (import it to a folder)`
        )
      }
      yield* notices(outcome.reports)
    } else {
      yield* Output.lines(outcome.reports.map((r) =>
        `${r.format} ${r.sessionId}: ${r.entries} entries → ${r.to}${
          r.skipped.length > 0 ? ` (${r.skipped.length} skipped)` : ""
        }${r.parentSessionId === undefined ? "" : ` (subagent of ${r.parentSessionId})`}`
      ))
      yield* notices(outcome.reports)
    }
    for (const f of outcome.failures) {
      yield* Output.note(`branchlog: ${f.path}: ${f.error.message}`)
    }
    if (outcome.failures.length > 0) {
      return yield* new ProblemsFound({ files: outcome.failures.length, problems: outcome.failures.length })
    }
  })
