/**
 * A folder's catalog index (`.branchlog-catalog.json`, `SessionFiles.CATALOG_NAME`): the
 * listing's summary of every session file of the folder, each with the watermark of the file it
 * was read from. A listing reads it once, stats every session file (the readdir it does anyway),
 * and re-reads only the files whose watermark is not the one recorded. Never needed for
 * correctness: a missing, damaged or foreign catalog is ignored (and rebuilt by the next writing
 * listing).
 *
 * Format (version 2): UTF-8 JSON `{format: "branchlog-catalog", version: 2, sessions: [row, …]}`,
 * one flat array per file (one `JSON.parse`, no object per session): `[name, size, mtimeNs, dev,
 * ino, at]` for a file that is no session (its first row is no header), `[name, size, mtimeNs,
 * dev, ino, at, id, cwd, sessionName, parentSessionPath, created, modified, messageCount,
 * firstMessage, allMessagesText]` for a session; `mtimeNs`, `dev`, `ino` are decimal strings, `at`
 * is the wall-clock time (ms) taken before the stat that the summary was read after; `null` for an
 * absent name or parent, and for a text longer than {@link MAX_STORED_TEXT} (read again on
 * demand). Version 1 (an object keyed by name, `info` nested) is not read: it is rebuilt.
 *
 * An entry is trusted only when size, mtime (ns), device and inode are all the ones recorded AND
 * the mtime is more than {@link RACY_MS} before `at`: a write in the same clock tick as the stat
 * could keep the mtime (file timestamps are coarse), so a file modified shortly before it was
 * read is read again at every listing until it is older (git's "racily clean" rule).
 */

/** The watermark of one file as the listing's stat sees it (`mtimeMs` for the racy check only). */
export interface Stamp {
  readonly size: number
  readonly mtimeMs: number
  readonly mtimeNs: string
  readonly dev: string
  readonly ino: string
}

/** A row of a file that is no session: name and watermark. */
export type NoSessionRow = readonly [name: string, size: number, mtimeNs: string, dev: string, ino: string, at: number]

/** A row of a session: name, watermark and the summary fields (`SessionCatalog.SessionInfo` without its path). */
export type SessionRow = readonly [
  name: string,
  size: number,
  mtimeNs: string,
  dev: string,
  ino: string,
  at: number,
  id: string,
  cwd: string,
  sessionName: string | null,
  parentSessionPath: string | null,
  created: number,
  modified: number,
  messageCount: number,
  firstMessage: string,
  /** `null`: longer than {@link MAX_STORED_TEXT}, read again from the file when asked for. */
  allMessagesText: string | null
]

/** One file of the catalog. */
export type Row = NoSessionRow | SessionRow

/** The rows by file name. */
export type Catalog = Map<string, Row>

/** The longest `allMessagesText` a catalog keeps (longer ones are read again on demand). */
export const MAX_STORED_TEXT = 2048

/** How long before its read a file's mtime must be for its entry to be trusted. */
export const RACY_MS = 2000

const FORMAT = "branchlog-catalog"
const VERSION = 2

const isStr = (u: unknown): u is string => typeof u === "string"
const isNum = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)
const optStr = (u: unknown): boolean => u === null || typeof u === "string"

/** `true` for a well-formed row. */
const isRow = (r: unknown): r is Row => {
  if (!Array.isArray(r)) return false
  if (r.length !== 6 && r.length !== 15) return false
  if (!isStr(r[0]) || !isNum(r[1]) || !isStr(r[2]) || !isStr(r[3]) || !isStr(r[4]) || !isNum(r[5])) return false
  return r.length === 6 || (
    isStr(r[6]) && isStr(r[7]) && optStr(r[8]) && optStr(r[9]) && isNum(r[10]) && isNum(r[11]) && isNum(r[12]) &&
    isStr(r[13]) && optStr(r[14])
  )
}

/** `true` for the row of a session (one with summary fields). */
export const isSession = (row: Row): row is SessionRow => row.length === 15

/** The catalog in `text`; `undefined` for anything that is not a well-formed catalog of this version. */
export const decode = (text: string): Catalog | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof json !== "object" || json === null) return undefined
  const o = json as Record<string, unknown>
  if (o.format !== FORMAT || o.version !== VERSION || !Array.isArray(o.sessions)) return undefined
  const out: Catalog = new Map()
  for (const row of o.sessions as ReadonlyArray<unknown>) {
    if (!isRow(row)) return undefined
    out.set(row[0], row)
  }
  return out
}

/** The text of a catalog of these rows. */
export const encode = (rows: ReadonlyArray<Row>): string =>
  JSON.stringify({ format: FORMAT, version: VERSION, sessions: rows }) + "\n"

/**
 * `true` when the row describes the file as stamped now and was read long enough after its last
 * write (`mtimeMs` is a float of the nanoseconds: 1 ms of margin makes its rounding harmless).
 */
export const trusted = (row: Row, stamp: Stamp): boolean =>
  row[1] === stamp.size && row[2] === stamp.mtimeNs && row[4] === stamp.ino && row[3] === stamp.dev &&
  stamp.mtimeMs < row[5] - RACY_MS - 1
