/**
 * The pure half of a check: the rows of a session in (every line as parsed, blank lines included,
 * and whether the last one was ended by a newline), the findings out. No I/O: a store of rows
 * (SQL) runs it over its rows as the file backend runs it over a file's lines. Byte offsets are
 * only reported, never used.
 */
import type { Migration as MigrationTypes } from "@branchlog/session-core"
import { Diagnostics, Entry, Line, Migration, SessionState } from "@branchlog/session-core"
import type { DiagnoseOptions, Diagnosis, Finding, Kind, Rows, Scanned, StoreFinding } from "../../Repair.js"

export type { DiagnoseOptions, Diagnosis, Finding, Kind, Rows, Scanned, StoreFinding }

/** Ids for an in-memory migration when none are given: a hex counter, skipping ids taken. */
export const counterMint = (): MigrationTypes.MintId => {
  let n = 0
  return (taken) => {
    for (;;) {
      n += 1
      const id = n.toString(16).padStart(8, "0")
      if (!taken.has(id)) return id
    }
  }
}

/** The severity of a finding: corrupt, torn, missing or misplaced rows and broken trees are errors. */
export const severity = (finding: Finding): Diagnostics.Severity => {
  switch (finding._tag) {
    case "TornTail":
      return "error"
    case "NoFinalNewline":
    case "OversizedLine":
    case "OldVersion":
    case "InvalidUtf8":
      return "warning"
    default:
      return Diagnostics.severity(finding)
  }
}

/** One line of text that says what a finding is (what `fsck` prints). */
export const describe = (finding: Finding): string => {
  switch (finding._tag) {
    case "TornTail":
      return `torn last line (no newline at the end): ${finding.reason}`
    case "NoFinalNewline":
      return "the file does not end with a newline"
    case "OversizedLine":
      return `a line of ${finding.byteLength} bytes is longer than the line ceiling: kept byte for byte, not read${
        finding.id === undefined ? "" : ` (id ${finding.id})`
      }`
    case "OldVersion":
      return `version ${finding.version}: \`branchlog migrate\` brings it to ${Entry.CURRENT_SESSION_VERSION}`
    case "InvalidUtf8":
      return `bytes that are not UTF-8 at offset ${finding.at}: read as U+FFFD, and a copy to another store or a rewrite as text writes U+FFFD there (the file keeps them)`
    default:
      return Diagnostics.describe(finding)
  }
}

/** Where a finding applies (1-based line and byte offset), or `undefined` for the whole session. */
export const position = (finding: Finding): Line.Position | undefined =>
  "line" in finding && finding.line !== undefined ? { line: finding.line, offset: finding.offset ?? 0 } : undefined

/** The kinds `repair` fixes: corrupt lines and a torn tail, a missing, late or duplicate header, a missing final newline, a byte-order mark. */
export const repairableKinds: ReadonlySet<Kind> = new Set<Kind>([
  "CorruptLine",
  "TornTail",
  "MissingHeader",
  "HeaderNotFirst",
  "DuplicateHeader",
  "NoFinalNewline",
  "ByteOrderMark"
])

/** `true` for a finding `repair` fixes. */
export const isRepairable = (finding: Finding): boolean => repairableKinds.has(finding._tag)

/** Every finding of the rows, with the state they fold into. O(rows). */
export const diagnose = (rows: Rows, options: DiagnoseOptions = {}): Diagnosis => {
  const { lines, terminated } = rows
  const migration = Migration.migrate(lines, options.mintId ?? counterMint())
  const state = SessionState.fromRecords(migration.lines)
  const version = migration.fromVersion
  let lastLine: Line.ParsedLine | undefined
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!._tag !== "Blank") {
      lastLine = lines[i]
      break
    }
  }
  const oversized: Array<Finding> = []
  for (const line of lines) {
    const found = oversizedFinding(line)
    if (found !== undefined) oversized.push(found)
  }
  const findings = storeFindings(Diagnostics.diagnose(state), { lastLine, terminated, oversized, version })
  return { lines, terminated, state, version, findings }
}

/** The `OversizedLine` finding of a line over the ceiling, else `undefined`. */
export const oversizedFinding = (line: Line.ParsedLine): Finding | undefined =>
  Line.isOversized(line)
    ? {
      _tag: "OversizedLine",
      line: line.line,
      offset: line.offset,
      byteLength: line.byteLength,
      ...(typeof line.value.id === "string" ? { id: line.value.id } : {})
    }
    : undefined

/**
 * session-core's findings with the store's: a corrupt last line that no newline ends is a torn
 * tail; then a missing final newline, the oversized lines, an old version.
 */
export const storeFindings = (
  problems: ReadonlyArray<Diagnostics.Problem>,
  rows: {
    /** The last line that is not blank. */
    readonly lastLine: Line.ParsedLine | undefined
    readonly terminated: boolean
    readonly oversized: ReadonlyArray<Finding>
    readonly version: number | undefined
  }
): Array<Finding> => {
  const { lastLine, terminated, version } = rows
  const findings: Array<Finding> = problems.map((problem): Finding =>
    problem._tag === "CorruptLine" && !terminated && problem.line !== undefined && problem.line === lastLine?.line
      ? { _tag: "TornTail", reason: problem.reason, line: problem.line, offset: problem.offset! }
      : problem
  )
  if (!terminated && lastLine !== undefined && lastLine._tag !== "Corrupt") {
    findings.push({ _tag: "NoFinalNewline", line: lastLine.line, offset: lastLine.offset })
  }
  findings.push(...rows.oversized)
  if (version !== undefined && version < Entry.CURRENT_SESSION_VERSION) findings.push({ _tag: "OldVersion", version })
  return findings
}
