/**
 * The one rule of what, in a folder of sessions, is a session file and what is a side file of
 * branchlog's (or of the tools it shares the folder with): backups, temporary files of rewrites,
 * locks, the lines `repair` moved aside, indexes. Every listing (the catalog, `continueRecent`,
 * `fsck DIR`, `migrate DIR`, `ls`) goes through {@link isSessionFile}, and every side file's name
 * is built here, so that the names written and the names skipped cannot drift apart.
 *
 * A session file is a name ending in `.jsonl` that does not start with `.` and is no side file:
 * pi's `<timestamp>_<uuid>.jsonl`, OpenClaw's `<sessionId>.jsonl` and
 * `<sessionId>-topic-<topic>.jsonl` (spec §6) all are. Side files are recognised by their exact
 * shapes (a backup's ISO time stamp and 8 hex digits, a temporary file's pid, counter and hex),
 * not by a word anywhere in the name, so a session named `notes.backup.jsonl` is still listed.
 *
 * @since 0.1.0
 */

/** The kinds of side files. */
export type SideFileKind =
  /** `<file>.<label>-<time stamp>-<8 hex>.jsonl`: the exact bytes kept before a rewrite (labels: backup, corrupt, reset, repair); OpenClaw's `<file>.bak-<pid>-<ms>`. */
  | "backup"
  /** `.<file name>.<pid>.<counter>.<8 hex>.tmp`: a rewrite's temporary file (left behind by a killed process). */
  | "temporary"
  /** `<file>.lock`: the transcript's lock. */
  | "lock"
  /** `<file>.lock.stale-<8 hex>`: a stale lock moved aside by a takeover. */
  | "stale-lock"
  /** `<file>.removed-<time stamp>.txt`: the lines `repair` took out of a file. */
  | "removed-lines"
  /** `<file>.index`: a session's sidecar index (see {@link indexName}). */
  | "index"
  /** `sessions.json` and `sessions.json.bak`: OpenClaw's session index (`SessionIndex`) and its backup. */
  | "session-index"
  /** `.branchlog-catalog.json`: a folder's catalog index, the listing's summaries (see {@link CATALOG_NAME}). */
  | "catalog"

/** A side file: its kind, the name of the file it belongs to, and a backup's label. */
export interface SideFile {
  readonly kind: SideFileKind
  /** The name (or path) of the file it belongs to, as far as the name tells. */
  readonly of: string
  /** A backup's label (`backup`, `corrupt`, `reset`, `repair`; `bak` for OpenClaw's backups). */
  readonly label?: string
  /** A temporary file's process id (the process that was rewriting). */
  readonly pid?: number
}

/** The labels a backup's name may carry: a lower-case word. */
export const BACKUP_LABEL = /^[a-z][a-z0-9]*$/

const STAMP = String.raw`(?:\d{4}|[+-]\d{6})-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z`
const HEX8 = "[0-9a-f]{8}"

const shapes: ReadonlyArray<
  { readonly kind: SideFileKind; readonly pattern: RegExp; readonly labelled?: true; readonly withPid?: true }
> = [
  { kind: "backup", pattern: new RegExp(`^(.+)\\.([a-z][a-z0-9]*)-${STAMP}-${HEX8}\\.jsonl$`), labelled: true },
  { kind: "backup", pattern: /^(.+)\.(bak)-\d+-\d+$/, labelled: true },
  { kind: "temporary", pattern: new RegExp(`^\\.(.+)\\.(\\d+)\\.\\d+\\.${HEX8}\\.tmp$`), withPid: true },
  { kind: "stale-lock", pattern: new RegExp(`^(.+)\\.lock\\.stale-${HEX8}$`) },
  { kind: "lock", pattern: /^(.+)\.lock$/ },
  { kind: "removed-lines", pattern: new RegExp(`^(.+)\\.removed-${STAMP}\\.txt$`) },
  { kind: "index", pattern: /^(.+)\.index$/ },
  { kind: "session-index", pattern: /^(sessions\.json)(?:\.bak)?$/ },
  { kind: "catalog", pattern: /^()\.branchlog-catalog\.json$/ }
]

const baseName = (name: string): string => name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1)

/** What side file a name (or path: its last part is looked at) is, or `undefined` for any other name. */
export const sideFile = (name: string): SideFile | undefined => {
  const base = baseName(name)
  for (const shape of shapes) {
    const match = shape.pattern.exec(base)
    if (match === null) continue
    return shape.labelled === true
      ? { kind: shape.kind, of: match[1]!, label: match[2]! }
      : shape.withPid === true
      ? { kind: shape.kind, of: match[1]!, pid: Number(match[2]) }
      : { kind: shape.kind, of: match[1]! }
  }
  return undefined
}

/** The side files whose names end in `.jsonl` (only backups): the others cannot match a session's name. */
const jsonlShapes = shapes.filter((shape) => shape.pattern.source.endsWith("\\.jsonl$"))

/** `true` for the name (or path) of a session file: `*.jsonl`, not hidden, and no side file. */
export const isSessionFile = (name: string): boolean => {
  const base = baseName(name)
  return base.endsWith(".jsonl") && base.length > ".jsonl".length && !base.startsWith(".") &&
    !jsonlShapes.some((shape) => shape.pattern.test(base))
}

/** The time stamp in side files' names: the ISO time with `:` and `.` replaced by `-`. */
export const stampOf = (millis: number): string => new Date(millis).toISOString().replace(/[:.]/g, "-")

/** `<path>.<label>-<time stamp>-<hex8>.jsonl`: a backup's name (the label must match {@link BACKUP_LABEL}). */
export const backupName = (path: string, label: string, millis: number, hex8: string): string => {
  if (!BACKUP_LABEL.test(label)) {
    throw new TypeError(`a backup label is a lower-case word, not ${JSON.stringify(label)}`)
  }
  return `${path}.${label}-${stampOf(millis)}-${hex8}.jsonl`
}

/** `.<file name>.<pid>.<counter>.<hex8>.tmp`: the temporary file of a rewrite of `fileName`, in the same folder. */
export const temporaryName = (fileName: string, pid: number, counter: number, hex8: string): string =>
  `.${fileName}.${pid}.${counter}.${hex8}.tmp`

/** `<path>.lock`: the lock of a transcript. */
export const lockName = (path: string): string => `${path}.lock`

/** `<path>.removed-<time stamp>.txt`: where `repair` keeps the lines it took out. */
export const removedLinesName = (path: string, millis: number): string => `${path}.removed-${stampOf(millis)}.txt`

/** `<path>.index`: the sidecar index of a transcript (rebuilt from it whenever it cannot be trusted). */
export const indexName = (path: string): string => `${path}.index`

/** The name of a folder's catalog index (a hidden file, not `*.jsonl`: pi and OpenClaw ignore it). */
export const CATALOG_NAME = ".branchlog-catalog.json"
