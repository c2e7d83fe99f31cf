/**
 * What a listing holds of one session (an {@link Entry}: its number, listing order and frozen
 * summary) and how a summary is made, the same way from a `sessions` row (`listing.ts`) and from
 * the stored snapshot of the listing (`listingSnapshot.ts`): the keys in the JSONL catalog's
 * order, its optional fields absent, frozen, its dates {@link ListedDate}s.
 */
import type { SessionSummary } from "@branchlog/session-store/TranscriptStore"

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

/**
 * A frozen summary (`path`: the database's absolute path; `prefix`: its sessions' reference before
 * the id; `refId`: the session's id in the database, `id`: the header's). `name` and
 * `parentSessionPath` absent when `undefined`.
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
  allMessagesText: string
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
  summary.firstMessage = firstMessage
  summary.allMessagesText = allMessagesText
  return Object.freeze(summary) as SessionSummary
}
