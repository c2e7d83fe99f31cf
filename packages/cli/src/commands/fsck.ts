/** `fsck`, `repair` and `migrate`: what is wrong with session files, and fixing what can be fixed without losing data. */
import type { Diagnostics } from "@branchlog/session-core"
import { Entry } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { Repair, SessionFiles, TranscriptFile, TranscriptLock } from "@branchlog/store-jsonl"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { basename, dirname, join } from "node:path"
import { ProblemsFound } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { requireFile } from "../internal/session.js"

const paths = Args.text({ name: "FILE|DIR" }).pipe(
  Args.withDescription("session files, or folders of them"),
  Args.atLeast(1)
)
const json = Options.boolean("json").pipe(Options.withDescription("print JSON"))

/** One finding of a file, as printed. */
export interface Finding {
  readonly file: string
  readonly severity: Diagnostics.Severity
  readonly kind: string
  readonly line?: number
  readonly offset?: number
  readonly message: string
}

/** A library finding of `file`, as printed. */
const printed = (file: string, finding: Repair.Finding): Finding => {
  const at = Repair.position(finding)
  return {
    file,
    severity: Repair.severity(finding),
    kind: finding._tag,
    ...(at === undefined ? {} : { line: at.line, offset: at.offset }),
    message: Repair.describe(finding)
  }
}

/** The findings of one check, as printed. */
export const findings = (file: string, diagnosis: Repair.Scanned): Array<Finding> =>
  diagnosis.findings.map((finding) => printed(file, finding))

/** The streamed check of one file (the library's), after the CLI's own test that the file exists. */
const scan = (file: string) => requireFile(file).pipe(Effect.zipRight(Repair.scan(file)))

/**
 * The session files named: files as they are, folders by their session files (recursively), as
 * `SessionFiles.isSessionFile` tells them from backups, temporary files and other side files. A
 * session-named entry of a folder that is neither a file nor a folder (a symlink, a FIFO) is kept
 * too, and listed in `inFolder`: reading decides, and a FIFO there is passed over with a finding.
 */
export const expand = (inputs: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const files = yield* TranscriptFile.TranscriptFile
    const out: Array<string> = []
    const inFolder = new Set<string>()
    const pending = [...inputs]
    while (pending.length > 0) {
      const path = pending.shift()!
      const siblings = yield* files.list(dirname(path)).pipe(Effect.orElseSucceed(() => []))
      if (siblings.find((entry) => entry.name === basename(path))?.isDirectory !== true) {
        out.push(path)
        continue
      }
      for (const entry of [...(yield* files.list(path))].sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.isDirectory) pending.push(join(path, entry.name))
        else if (SessionFiles.isSessionFile(entry.name)) {
          out.push(join(path, entry.name))
          if (!entry.isFile) inFolder.add(join(path, entry.name))
        }
      }
    }
    return { files: out, inFolder }
  })

/**
 * The scan of one expanded file; a FIFO, socket or device found in a folder is a warning, not a
 * failure of the whole run (named as FILE, it fails as every command does).
 */
const scanExpanded = (file: string, inFolder: ReadonlySet<string>) =>
  scan(file).pipe(
    Effect.map((found): { readonly found: Repair.Scanned } | { readonly passedOver: Finding } => ({ found })),
    Effect.catchTag("NotRegularFileError", (error) =>
      inFolder.has(file)
        ? Effect.succeed({
          passedOver: {
            file,
            severity: "warning" as const,
            kind: "NotRegularFile",
            message: `${error.message}; passed over`
          } satisfies Finding
        })
        : Effect.fail(error))
  )

const format = (finding: Finding) =>
  `${finding.file}${
    finding.line === undefined ? "" : `:${finding.line} (offset ${finding.offset})`
  }: ${finding.severity}: ${finding.message}`

/** `branchlog fsck FILE|DIR... [--json] [--strict]`. */
export const fsck: CliCommand = Command.make(
  "fsck",
  { paths, json, strict: Options.boolean("strict").pipe(Options.withDescription("count warnings as problems too")) },
  ({ json, paths, strict }) =>
    Effect.gen(function*() {
      const { files, inFolder } = yield* expand(paths)
      const all: Array<Finding> = []
      for (const [i, file] of files.entries()) {
        if (files.length > 1 && process.stderr.isTTY) process.stderr.write(`\rfsck ${i + 1}/${files.length} `)
        const scanned = yield* scanExpanded(file, inFolder)
        all.push(...("found" in scanned ? findings(file, scanned.found) : [scanned.passedOver]))
      }
      if (files.length > 1 && process.stderr.isTTY) process.stderr.write("\r\u001b[K")
      if (json) yield* Output.json(files.map((file) => ({ file, findings: all.filter((f) => f.file === file) })))
      else yield* Output.lines(all.length === 0 ? [`${files.length} file(s) checked: clean`] : all.map(format))
      const counted = all.filter((f) => strict || f.severity === "error")
      if (counted.length > 0) {
        return yield* new ProblemsFound({ files: new Set(counted.map((f) => f.file)).size, problems: counted.length })
      }
    })
).pipe(
  Command.withDescription(
    "Check session files: corrupt lines and torn tails, missing, late or duplicate headers, orphans, cycles, duplicate ids, rows of an entry type that are not entries (errors); dangling labels and context edits, compactions that keep nothing, leaf controls pointing nowhere, a byte-order mark (warnings). Exit 0 when clean, 1 when errors were found (with --strict, warnings too)."
  )
)

/** A side file as printed: its name when it is in the folder of `file` (absolute), else its full path. */
const beside = (file: string, path: string) => (dirname(path) === dirname(file) ? basename(path) : path)

/** `branchlog repair FILE`: backup, then fix what can be fixed without losing data (the library's `Repair.repair`). */
export const repair: CliCommand = Command.make(
  "repair",
  { file: Args.text({ name: "FILE" }).pipe(Args.withDescription("a session file")), json },
  ({ file, json }) =>
    TranscriptLock.TranscriptLock.pipe(
      Effect.flatMap((lock) =>
        // the CLI's test that the file exists runs under the lock, as before; the library's repair re-enters it
        lock.withLock(
          file,
          Effect.gen(function*() {
            yield* requireFile(file)
            const outcome = yield* Repair.repair(file, { cwd: process.cwd() })
            if (json) {
              return yield* Output.json(
                outcome._tag === "NothingToRepair"
                  ? {
                    file,
                    repaired: false,
                    backup: null,
                    fixed: [],
                    headerCreated: false,
                    moved: 0,
                    removedLines: null
                  }
                  : {
                    file,
                    repaired: true,
                    backup: outcome.backup ?? null,
                    fixed: outcome.fixed.map((f) => printed(file, f)),
                    headerCreated: outcome.header._tag === "Created",
                    moved: outcome.moved,
                    removedLines: outcome.removedLines ?? null
                  }
              )
            }
            if (outcome._tag === "NothingToRepair") return yield* Output.lines([`${file}: nothing to repair`])
            const here = (yield* TranscriptFile.TranscriptFile).resolve(file)
            yield* Output.lines([
              `${file}: repaired (the original bytes are in ${
                outcome.backup === undefined ? "no backup: the file was empty" : beside(here, outcome.backup)
              })`,
              ...outcome.fixed.map((f) => `  fixed: ${format(printed(file, f))}`),
              ...(outcome.header._tag === "Created" ? ["  wrote a new session header (there was none)"] : []),
              ...(outcome.removedLines === undefined
                ? []
                : [`  ${outcome.moved} line(s) moved to ${beside(here, outcome.removedLines)}`])
            ])
          })
        )
      )
    )
).pipe(
  Command.withDescription(
    "Repair a session file: keep a backup, then move corrupt lines and a torn tail to a sidecar, drop duplicate headers, recover a missing or late header, remove a byte-order mark; every entry is kept."
  )
)

/** What `migrate --json` prints for each file (an array, one per file). */
export interface MigrateJson {
  readonly file: string
  readonly from: number | null
  readonly to: number | null
  readonly migrated: boolean
  readonly backups: ReadonlyArray<string>
  /** Why the file was passed over (a FIFO in a folder). */
  readonly note?: string
}

/** `branchlog migrate FILE|DIR...`: older versions to the current one, with backups. */
export const migrate: CliCommand = Command.make(
  "migrate",
  { paths, json },
  ({ json, paths }) =>
    Effect.gen(function*() {
      const out: Array<string> = []
      const results: Array<MigrateJson> = []
      const { files, inFolder } = yield* expand(paths)
      for (const file of files) {
        const scanned = yield* scanExpanded(file, inFolder)
        if (!("found" in scanned)) {
          out.push(`${file}: ${scanned.passedOver.message}`)
          results.push({ file, from: null, to: null, migrated: false, backups: [], note: scanned.passedOver.message })
          continue
        }
        const { found } = scanned
        if (found.version === undefined || found.version >= Entry.CURRENT_SESSION_VERSION) {
          out.push(`${file}: version ${found.version ?? "?"}, nothing to do`)
          results.push({ file, from: found.version ?? null, to: found.version ?? null, migrated: false, backups: [] })
          continue
        }
        const session = yield* SessionManager.open(file, undefined, undefined, { cache: false })
        const report = session.loadReport()
        results.push({
          file,
          from: found.version,
          to: Entry.CURRENT_SESSION_VERSION,
          migrated: true,
          backups: [...report.backups]
        })
        out.push(
          `${file}: migrated from version ${found.version} to ${Entry.CURRENT_SESSION_VERSION}${
            report.backups.length > 0 ? ` (backup: ${report.backups.map((b) => basename(b)).join(", ")})` : ""
          }`
        )
      }
      yield* (json ? Output.json(results) : Output.lines(out))
    })
).pipe(
  Command.withDescription("Migrate session files of older versions to the current one, keeping a backup of each.")
)
