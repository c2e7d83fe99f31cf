/**
 * The stored snapshot of a database's listing (table `listing_snapshot`, migration 5): the
 * summaries of every listed session in listing order (newest first), as of the database's
 * `max(touched)` and removal count when it was made, so that a fresh connection reads ONE row
 * instead of every session's, then catches up the sessions of a larger `touched` (`listing.ts`; of
 * another removal count than the database's, over the removals too: `listingRemovals.ts`).
 *
 * Built for a fast read, not for size: the strings of every summary are concatenated into ONE
 * text value, the rest is a BLOB of little-endian doubles, {@link STRIDE} per session:
 * `sid, listed (listed_ms; -Infinity: none), touched, created (ms), modified (ms), messageCount`,
 * then the lengths (UTF-16 code units) of its strings in the text, in this order: the session's id
 * in the database, the header's id (`-2`: the same as the session's, not repeated), `cwd`, `name`
 * and `parentSessionPath` (`-1`: absent), `firstMessage` (`-2 - k`: not in the text, the first `k`
 * characters of `allMessagesText`, as it most often is), `allMessagesText`. A read makes each
 * string a slice of the one text (V8 keeps a
 * slice of 13 characters or more as a view of it, no copy), and a view of the BLOB (copied only
 * when not aligned). Nothing of the database's path is stored: the references are made from the
 * connection's path when read.
 *
 * {@link decode} trusts nothing: another format number, a BLOB of another length than `count`
 * sessions, a string running past the text or a text longer than its strings, a length or number
 * that is not an integer where one is due, two entries of one session, entries out of listing
 * order or of a `touched` above the snapshot's, a string that cannot be a session's (an id cut
 * inside a surrogate pair): the snapshot is refused (`undefined`) and the listing read from the rows.
 */
import type { SqliteRef } from "@branchlog/session-store/SessionRef"
import type { Entry } from "./listedSummary.js"
import * as ListedSummary from "./listedSummary.js"

/**
 * The format this code writes and reads (any other is ignored). 2: `allMessagesText` is the stored
 * `all_text` (whole, or the prefix of a text read on demand); format 1 held the first 200 characters.
 */
export const FORMAT = 2

/** Numbers per session in the BLOB. */
export const STRIDE = 13

/** The stored row, as `SELECT format, touched, removals, count, numbers, texts` gives it. */
export type Stored = readonly [
  format: unknown,
  touched: unknown,
  removals: unknown,
  count: unknown,
  numbers: unknown,
  texts: unknown
]

/** A decoded snapshot: its entries in listing order, as of `touched` and `removals`. */
export interface Decoded {
  readonly touched: number
  readonly removals: number
  readonly entries: Array<Entry>
  readonly bySid: Map<number, Entry>
}

/** Whether this machine stores doubles little-endian (the BLOB's order); if not, no snapshot is read or written. */
export const supported = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f

const isInt = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n)

/** The snapshot of `entries` (in listing order): the BLOB of numbers and the one text. */
export const encode = (entries: ReadonlyArray<Entry>): { readonly numbers: Buffer; readonly texts: string } => {
  const numbers = new Float64Array(entries.length * STRIDE)
  const parts: Array<string> = []
  let o = 0
  const text = (value: string | undefined) => {
    if (value === undefined) return -1
    parts.push(value)
    return value.length
  }
  for (const { listed, sid, summary, touched } of entries) {
    numbers[o] = sid
    numbers[o + 1] = listed
    numbers[o + 2] = touched
    numbers[o + 3] = summary.created.getTime()
    numbers[o + 4] = summary.modified.getTime()
    numbers[o + 5] = summary.messageCount
    const refId = (summary.ref as SqliteRef).id
    numbers[o + 6] = text(refId)
    numbers[o + 7] = summary.id === refId ? -2 : text(summary.id)
    numbers[o + 8] = text(summary.cwd)
    numbers[o + 9] = text(summary.name)
    numbers[o + 10] = text(summary.parentSessionPath)
    const first = summary.firstMessage
    const all = ListedSummary.storedText(summary)
    const prefix = first.length > 0 && all.startsWith(first)
    numbers[o + 11] = prefix ? -2 - first.length : text(first)
    numbers[o + 12] = text(all)
    o += STRIDE
  }
  return { numbers: Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength), texts: parts.join("") }
}

/** The doubles of a BLOB (a view when aligned, else a copy). */
const doubles = (blob: Uint8Array): Float64Array =>
  blob.byteOffset % 8 === 0
    ? new Float64Array(blob.buffer, blob.byteOffset, blob.byteLength / 8)
    : new Float64Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength))

/**
 * The entries of a stored snapshot, their summaries made for the database at `path` (`prefix`:
 * its references before the id); `undefined` when anything about it is off (see the module).
 */
export const decode = (stored: Stored | undefined, path: string, prefix: string): Decoded | undefined => {
  try {
    return decodeOrThrow(stored, path, prefix)
  } catch {
    // a length cutting a surrogate pair makes an id that `encodeURIComponent` refuses
    return undefined
  }
}

const decodeOrThrow = (stored: Stored | undefined, path: string, prefix: string): Decoded | undefined => {
  if (stored === undefined || !supported) return undefined
  const [format, touched, removals, count, blob, texts] = stored
  if (format !== FORMAT || !isInt(touched) || !isInt(removals) || !isInt(count) || count < 0) return undefined
  if (!(blob instanceof Uint8Array) || typeof texts !== "string" || blob.byteLength !== count * STRIDE * 8) {
    return undefined
  }
  const n = doubles(blob)
  const entries: Array<Entry> = new Array(count)
  const bySid = new Map<number, Entry>()
  let at = 0
  // the next string of the text (`-1`: absent, when `optional`); `null`: off the text or not a length
  const next = (length: number, optional: boolean): string | undefined | null => {
    if (length === -1 && optional) return undefined
    if (!Number.isInteger(length) || length < 0 || at + length > texts.length) return null
    const value = texts.slice(at, at + length)
    at += length
    return value
  }
  let previous: Entry | undefined
  for (let i = 0, o = 0; i < count; i++, o += STRIDE) {
    const sid = n[o]!
    const listed = n[o + 1]!
    const changed = n[o + 2]!
    const messageCount = n[o + 5]!
    if (!isInt(sid) || Number.isNaN(listed) || !isInt(changed) || changed > touched || bySid.has(sid)) return undefined
    if (!isInt(messageCount) || messageCount < 0) return undefined
    const refId = next(n[o + 6]!, false)
    const id = n[o + 7] === -2 ? refId : next(n[o + 7]!, false)
    const cwd = next(n[o + 8]!, false)
    const name = next(n[o + 9]!, true)
    const parent = next(n[o + 10]!, true)
    const firstLength = n[o + 11]!
    const inText = !(firstLength <= -2)
    const own = inText ? next(firstLength, false) : ""
    const all = next(n[o + 12]!, false)
    if (refId == null || id == null || cwd == null || name === null || parent === null) return undefined
    if (own == null || all == null || (!inText && !(Number.isInteger(firstLength) && -2 - firstLength <= all.length))) {
      return undefined
    }
    const first = inText ? own : all.slice(0, -2 - firstLength)
    const entry: Entry = {
      sid,
      listed,
      touched: changed,
      summary: ListedSummary.make(
        path,
        prefix,
        refId,
        id,
        cwd,
        name,
        parent,
        n[o + 3]!,
        n[o + 4]!,
        messageCount,
        first,
        all
      )
    }
    if (previous !== undefined && ListedSummary.newestFirst(previous, entry) >= 0) return undefined
    entries[i] = previous = entry
    bySid.set(sid, entry)
  }
  return at === texts.length ? { touched, removals, entries, bySid } : undefined
}
