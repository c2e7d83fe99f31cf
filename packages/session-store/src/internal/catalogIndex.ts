/**
 * A folder's catalog index (`.branchlog-catalog.json`, `SessionFiles.CATALOG_NAME`): the
 * listing's summary of every session file of the folder, each with the watermark of the file it
 * was read from. A listing reads it once, stats every file (the readdir it does anyway), and
 * re-reads only the files whose watermark is not the one recorded. Never needed for correctness:
 * a missing, damaged or foreign catalog is ignored (and rebuilt by the next writing listing).
 *
 * Format (version 1): UTF-8 JSON `{format: "branchlog-catalog", version: 1, sessions: {<file
 * name>: [size, mtimeNs, dev, ino, at, info | null]}}`; `at` is the wall-clock time (ms) taken
 * before the stat that the summary was read after; `info` is `[id, cwd, name, parentSessionPath,
 * created, modified, messageCount, firstMessage, allMessagesText]` (`null` for an absent name or
 * parent, for a text longer than {@link MAX_STORED_TEXT}, which is then read again on demand),
 * `null` for a file that is no session (its first row is no header).
 *
 * An entry is trusted only when size, mtime (ns), device and inode are all the ones recorded AND
 * the mtime is more than {@link RACY_MS} before `at`: a write in the same clock tick as the stat
 * could keep the mtime (file timestamps are coarse), so a file modified shortly before it was
 * read is read again at every listing until it is older (git's "racily clean" rule).
 */

/** The watermark of one file as the listing's stat sees it. */
export interface Stamp {
  readonly size: number
  readonly mtimeNs: string
  readonly dev: string
  readonly ino: string
}

/** What a catalog keeps of a session's summary (`SessionCatalog.SessionInfo` without its path). */
export interface StoredInfo {
  readonly id: string
  readonly cwd: string
  readonly name: string | undefined
  readonly parentSessionPath: string | undefined
  readonly created: number
  readonly modified: number
  readonly messageCount: number
  readonly firstMessage: string
  /** `undefined`: longer than {@link MAX_STORED_TEXT}, read again from the file when asked for. */
  readonly allMessagesText: string | undefined
}

/** One file of the catalog. */
export interface CatalogEntry {
  readonly stamp: Stamp
  readonly at: number
  readonly info: StoredInfo | null
}

/** The entries by file name. */
export type Catalog = Map<string, CatalogEntry>

/** The longest `allMessagesText` a catalog keeps (longer ones are read again on demand). */
export const MAX_STORED_TEXT = 2048

/** How long before its read a file's mtime must be for its entry to be trusted. */
export const RACY_MS = 2000

const FORMAT = "branchlog-catalog"
const VERSION = 1

const isStr = (u: unknown): u is string => typeof u === "string"
const isNum = (u: unknown): u is number => typeof u === "number" && Number.isFinite(u)
const optStr = (u: unknown): u is string | null => u === null || isStr(u)

const decodeInfo = (u: unknown): StoredInfo | null | undefined => {
  if (u === null) return null
  if (!Array.isArray(u) || u.length !== 9) return undefined
  const [id, cwd, name, parent, created, modified, count, first, text] = u
  if (
    !isStr(id) || !isStr(cwd) || !optStr(name) || !optStr(parent) || !isNum(created) || !isNum(modified) ||
    !isNum(count) || !isStr(first) || !optStr(text)
  ) return undefined
  return {
    id,
    cwd,
    name: name ?? undefined,
    parentSessionPath: parent ?? undefined,
    created,
    modified,
    messageCount: count,
    firstMessage: first,
    allMessagesText: text ?? undefined
  }
}

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
  if (o.format !== FORMAT || o.version !== VERSION || typeof o.sessions !== "object" || o.sessions === null) {
    return undefined
  }
  const out: Catalog = new Map()
  for (const [name, row] of Object.entries(o.sessions as Record<string, unknown>)) {
    if (!Array.isArray(row) || row.length !== 6) return undefined
    const [size, mtimeNs, dev, ino, at, rawInfo] = row
    if (!isNum(size) || !isStr(mtimeNs) || !isStr(dev) || !isStr(ino) || !isNum(at)) return undefined
    const info = decodeInfo(rawInfo)
    if (info === undefined) return undefined
    out.set(name, { stamp: { size, mtimeNs, dev, ino }, at, info })
  }
  return out
}

/** The text of a catalog. */
export const encode = (catalog: Catalog): string => {
  const sessions: Record<string, unknown> = {}
  for (const [name, e] of catalog) {
    const i = e.info
    sessions[name] = [
      e.stamp.size,
      e.stamp.mtimeNs,
      e.stamp.dev,
      e.stamp.ino,
      e.at,
      i === null ? null : [
        i.id,
        i.cwd,
        i.name ?? null,
        i.parentSessionPath ?? null,
        i.created,
        i.modified,
        i.messageCount,
        i.firstMessage,
        i.allMessagesText ?? null
      ]
    ]
  }
  return JSON.stringify({ format: FORMAT, version: VERSION, sessions }) + "\n"
}

/** `true` when the entry describes the file as stamped now and was read long enough after its last write. */
export const trusted = (entry: CatalogEntry, stamp: Stamp): boolean =>
  entry.stamp.size === stamp.size && entry.stamp.mtimeNs === stamp.mtimeNs && entry.stamp.dev === stamp.dev &&
  entry.stamp.ino === stamp.ino && Number(BigInt(stamp.mtimeNs) / 1_000_000n) < entry.at - RACY_MS
