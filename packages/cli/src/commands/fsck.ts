/** `fsck`, `repair` and `migrate`: what is wrong with session files, and fixing what can be fixed without losing data. */
import { Diagnostics, Entry, Line } from "@branchlog/session-core"
import { OversizedLine, SessionFiles, SessionManager, TranscriptFile, TranscriptLock } from "@branchlog/session-store"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import { basename, dirname, join } from "node:path"
import { ProblemsFound } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { type Scan, scan } from "../internal/scan.js"

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

/** The findings of one scan: session-core's diagnostics, a torn tail, an old version. */
export const findings = (found: Scan): Array<Finding> => {
  const lastLine = found.lines.filter((line) => line._tag !== "Blank").at(-1)
  const out: Array<Finding> = Diagnostics.diagnose(found.state).map((problem) => {
    const torn = problem._tag === "CorruptLine" && !found.endsWithNewline && problem.line === lastLine?.line
    return {
      file: found.path,
      severity: Diagnostics.severity(problem),
      kind: torn ? "TornTail" : problem._tag,
      ...(problem.line === undefined ? {} : { line: problem.line, offset: problem.offset! }),
      message: torn
        ? `torn last line (no newline at the end): ${(problem as { reason: string }).reason}`
        : Diagnostics.describe(problem)
    }
  })
  if (!found.endsWithNewline && lastLine !== undefined && lastLine._tag !== "Corrupt") {
    out.push({
      file: found.path,
      severity: "warning",
      kind: "NoFinalNewline",
      line: lastLine.line,
      offset: lastLine.offset,
      message: "the file does not end with a newline"
    })
  }
  for (const line of found.lines) {
    if (!OversizedLine.is(line)) continue
    out.push({
      file: found.path,
      severity: "warning",
      kind: "OversizedLine",
      line: line.line,
      offset: line.offset,
      message: `a line of ${line.byteLength} bytes is longer than the line ceiling: kept byte for byte, not read${
        line.value.id === undefined ? "" : ` (id ${line.value.id})`
      }`
    })
  }
  if (found.version !== undefined && found.version < Entry.CURRENT_SESSION_VERSION) {
    out.push({
      file: found.path,
      severity: "warning",
      kind: "OldVersion",
      message: `version ${found.version}: \`branchlog migrate\` brings it to ${Entry.CURRENT_SESSION_VERSION}`
    })
  }
  return out
}

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
    Effect.map((found): { readonly found: Scan } | { readonly passedOver: Finding } => ({ found })),
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
        all.push(...("found" in scanned ? findings(scanned.found) : [scanned.passedOver]))
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

/**
 * What repair does with each line of a scan, by line number: every line is kept byte for byte
 * (never decoded and re-encoded: invalid UTF-8 survives) except blank lines (dropped), corrupt
 * lines and extra headers (moved to a sidecar, byte for byte), and a header that is not the first
 * line (moved to the top). A file without a header gets a new one.
 */
const repairPlan = (found: Scan) => {
  const { state } = found
  const keep = new Set<number>()
  const moved = new Set<number>()
  let headerText: string | undefined
  for (const line of found.lines) {
    if (line._tag === "Blank") continue
    if (line._tag === "Corrupt" || (line._tag === "Header" && line.header !== state.header)) moved.add(line.line)
    else if (line._tag === "Header" && line.line !== 1) headerText = Line.serialize(line)
    else keep.add(line.line)
  }
  if (state.header === undefined) {
    headerText = Line.stringify({
      type: "session" as const,
      version: Entry.CURRENT_SESSION_VERSION,
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      cwd: process.cwd()
    })
  }
  return { keep, moved, headerText, recreatedHeader: state.header === undefined }
}

const newline = new Uint8Array([0x0a])

/** The pieces of a line, without the UTF-8 byte-order mark that may start the file (repair removes it). */
const withoutByteOrderMark = (line: { readonly offset: number; readonly pieces: ReadonlyArray<Uint8Array> }) => {
  const first = line.pieces[0]
  return line.offset === 0 && first !== undefined && first.length >= 3 && first[0] === 0xef && first[1] === 0xbb &&
      first[2] === 0xbf
    ? [first.subarray(3), ...line.pieces.slice(1)]
    : line.pieces
}

/** A side file as printed: its name when it is in the folder of `file` (absolute), else its full path. */
const beside = (file: string, path: string) => (dirname(path) === dirname(file) ? basename(path) : path)

/** `branchlog repair FILE`: backup, then fix what can be fixed without losing data. */
export const repair: CliCommand = Command.make(
  "repair",
  { file: Args.text({ name: "FILE" }) },
  ({ file }) =>
    TranscriptLock.TranscriptLock.pipe(
      Effect.flatMap((lock) =>
        lock.withLock(
          file,
          Effect.gen(function*() {
            const found = yield* scan(file)
            const before = findings(found).filter((f) =>
              [
                "CorruptLine",
                "TornTail",
                "MissingHeader",
                "HeaderNotFirst",
                "DuplicateHeader",
                "NoFinalNewline",
                "ByteOrderMark"
              ].includes(f.kind)
            )
            if (before.length === 0) return yield* Output.lines([`${file}: nothing to repair`])
            const files = yield* TranscriptFile.TranscriptFile
            const plan = repairPlan(found)
            // the lines stream through as bytes (the file may be larger than a string can be); the
            // store's one rewrite keeps a backup, the owner and mode, and leaves nothing on failure
            const removed: Array<Uint8Array> = []
            const content = Stream.concat(
              Stream.fromIterable(plan.headerText === undefined ? [] : [plan.headerText + "\n"]),
              files.rawLines(file).pipe(
                Stream.mapConcat((line): ReadonlyArray<Uint8Array> => {
                  if (plan.keep.has(line.line)) return [...withoutByteOrderMark(line), newline]
                  if (plan.moved.has(line.line)) removed.push(...withoutByteOrderMark(line), newline)
                  return []
                })
              )
            )
            const replaced = yield* files.replace(file, content, { backup: "repair" })
            const here = files.resolve(file)
            let sidecar: string | undefined
            if (removed.length > 0) {
              sidecar = SessionFiles.removedLinesName(replaced.path, Date.now())
              yield* files.rewrite(sidecar, Stream.fromIterable(removed))
            }
            yield* Output.lines([
              `${file}: repaired (the original bytes are in ${
                replaced.backup === undefined ? "no backup: the file was empty" : beside(here, replaced.backup)
              })`,
              ...before.map((f) => `  fixed: ${format(f)}`),
              ...(plan.recreatedHeader ? ["  wrote a new session header (there was none)"] : []),
              ...(sidecar === undefined ? [] : [`  ${plan.moved.size} line(s) moved to ${beside(here, sidecar)}`])
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

/** `branchlog migrate FILE|DIR...`: older versions to the current one, with backups. */
export const migrate: CliCommand = Command.make("migrate", { paths }, ({ paths }) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const { files, inFolder } = yield* expand(paths)
    for (const file of files) {
      const scanned = yield* scanExpanded(file, inFolder)
      if (!("found" in scanned)) {
        out.push(`${file}: ${scanned.passedOver.message}`)
        continue
      }
      const { found } = scanned
      if (found.version === undefined || found.version >= Entry.CURRENT_SESSION_VERSION) {
        out.push(`${file}: version ${found.version ?? "?"}, nothing to do`)
        continue
      }
      const session = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const report = session.loadReport()
      out.push(
        `${file}: migrated from version ${found.version} to ${Entry.CURRENT_SESSION_VERSION}${
          report.backups.length > 0 ? ` (backup: ${report.backups.map((b) => basename(b)).join(", ")})` : ""
        }`
      )
    }
    yield* Output.lines(out)
  })).pipe(
    Command.withDescription("Migrate session files of older versions to the current one, keeping a backup of each.")
  )
