/**
 * What a listing holds of one session (an {@link Entry}: its number, listing order and frozen
 * summary) and how a summary is made, the same way from a `sessions` row (`listing.ts`) and from
 * the stored snapshot of the listing (`listingSnapshot.ts`): the keys in the JSONL catalog's
 * order, its optional fields absent, frozen, its dates {@link ListedDate}s.
 */
import type { SessionSummary } from "@branchlog/session-store/TranscriptStore"
import { isWhole, LEGACY_FIRST_MESSAGE, LEGACY_TEXT } from "./summary.js"
import * as WholeText from "./wholeText.js"

/** A `Date` whose setters throw: the dates of cached summaries, shared by every listing. */
export class ListedDate extends Date {}
for (const name of Object.getOwnPropertyNames(Date.prototype)) {
  if (!name.startsWith("set")) continue
  Object.defineProperty(ListedDate.prototype, name, {
    value: function() {
      throw new TypeError(`a listed session's date is read-only (Date.prototype.${name})`)
    }
  })
}

/** One listed session: its number (`sid`), its listing order (`listed`, `touched`) and its summary. */
export interface Entry {
  readonly sid: number
  /** `listed_ms`, `-Infinity` when there is none (listed last). */
  readonly listed: number
  readonly touched: number
  readonly summary: SessionSummary
}

/** The listing's order: newest first (`listed_ms DESC`, a missing one last), then last written. */
export const newestFirst = (a: Entry, b: Entry): number => b.listed - a.listed || b.touched - a.touched

/** The stored `all_text` of each summary whose `allMessagesText` is read on demand (what a snapshot stores). */
const prefixes = new WeakMap<SessionSummary, string>()

/** The `all_text` a summary was made from: its `allMessagesText`, or the prefix of a text read on demand (never reads). */
export const storedText = (summary: SessionSummary): string => prefixes.get(summary) ?? summary.allMessagesText

/**
 * A frozen summary (`path`: the database's absolute path; `prefix`: its sessions' reference before
 * the id; `refId`: the session's id in the database, `id`: the header's). `name` and
 * `parentSessionPath` absent when `undefined`. `allText` is the stored `all_text`: when it is only
 * the prefix of a longer text (`summary.ts`), `allMessagesText` reads the whole from the database
 * when first asked for (once), so a listing of long sessions reads none of their rows. `legacy`: the
 * row is of a database of schema 5 or older, read-only (not migrated), whose texts were cut at
 * {@link LEGACY_TEXT} and {@link LEGACY_FIRST_MESSAGE} characters: either one that long is read whole too.
 */
export const make = (
  path: string,
  prefix: string,
  refId: string,
  id: string,
  cwd: string,
  name: string | undefined,
  parentSessionPath: string | undefined,
  created: number,
  modified: number,
  messageCount: number,
  firstMessage: string,
  allText: string,
  legacy = false
): SessionSummary => {
  // no spreads: 10,000 sessions are one listing
  const summary: { -readonly [K in keyof SessionSummary]?: SessionSummary[K] } = {
    ref: Object.freeze({ _tag: "Sqlite", path, id: refId }),
    path: prefix + encodeURIComponent(refId),
    id,
    cwd
  }
  if (name !== undefined) summary.name = name
  if (parentSessionPath !== undefined) summary.parentSessionPath = parentSessionPath
  summary.created = new ListedDate(created)
  summary.modified = new ListedDate(modified)
  summary.messageCount = messageCount
  const cutFirst = legacy && firstMessage.length >= LEGACY_FIRST_MESSAGE
  if (!cutFirst) summary.firstMessage = firstMessage
  if (!cutFirst && (legacy ? allText.length < LEGACY_TEXT : isWhole(allText))) {
    summary.allMessagesText = allText
    return Object.freeze(summary) as SessionSummary
  }
  let whole: WholeText.Texts | undefined
  const texts = () => whole ??= WholeText.read(path, refId, { firstMessage, allMessagesText: allText })
  if (cutFirst) Object.defineProperty(summary, "firstMessage", { enumerable: true, get: () => texts().firstMessage })
  Object.defineProperty(summary, "allMessagesText", { enumerable: true, get: () => texts().allMessagesText })
  const frozen = Object.freeze(summary) as SessionSummary
  prefixes.set(frozen, allText)
  return frozen
}
