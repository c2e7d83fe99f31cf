/**
 * How a listing made before some sessions were removed (the stored snapshot, or the kept listing
 * of a connection) is caught up without reading every session: from the `(sid, touched)` pairs of
 * every session now (read through the index `sessions_touched`, in the same read transaction as
 * the removal count), {@link plan} tells which of the listing's sessions are gone and which
 * sessions must be read as rows; every other session of the listing is as it was.
 *
 * Why it is exact. Let the listing be as of `touched` T (at least the database's `max(touched)`
 * then) and removal count R, and the database now have removal count R + D (D > 0: D rows of
 * `sessions` were deleted since, whatever deleted them; the trigger `sessions_removed` counts each).
 * Every write sets a session's `touched` to `max(touched) + 1`, so a session written again has a
 * larger `touched` than before, and the sessions existing now have distinct `touched` values; but a
 * removal may lower `max(touched)`, and a new session takes `max(sid) + 1` (no AUTOINCREMENT), so
 * a session removed and another one created since may have the very `sid` AND `touched` of one of
 * the listing (the same id, even, with other rows). Call P the sessions now that were not written
 * since the listing and Q those written since (created or written again). A session of Q was
 * written when `max(touched)` was its `touched` minus one, while every session of P existed with its
 * `touched` unchanged: every session of Q has a larger `touched` than every session of P.
 * - A session of the listing whose `sid` is no longer in the table was removed: dropped. Say G of
 *   them; they are G distinct deletions of the D.
 * - A session now whose `touched` is above T, or at most T but not its `sid`'s `touched` in the
 *   listing (written again with a reused `touched`, created since, or a session the listing leaves
 *   out: no header first), is read as a row (the merge puts it in or leaves it out).
 * - A session now of the listing's `sid` and `touched` (a match) is either the one listed,
 *   unchanged (P), or one of Q whose `sid`'s session of the listing was deleted first: one more
 *   deletion each, not among the G. So at most U = D - G matches are of Q (`U < 0`: the counts
 *   disagree, undecidable), and as Q's `touched` values are above P's, they are among the U matches
 *   of the largest `touched`: those are read as rows too. The others are the listing's, unchanged.
 *
 * So a removal costs the pairs (about 2 ms for 10,000 sessions, one double each: {@link unpack}) and what it leaves undecided:
 * none when only sessions of the listing were removed (U = 0), one row per other deletion (a
 * session left out of the listing, one created and removed since, or removed and created again).
 */

/** The listing to catch up: its sessions by number (each with its `touched`), as of `touched` and `removals`. */
export interface Base {
  readonly touched: number
  readonly removals: number
  readonly bySid: ReadonlyMap<number, { readonly touched: number }>
}

/** The `(sid, touched)` pairs of every session, by `touched` descending: `sids[i]` has `touched[i]`. */
export interface Pairs {
  readonly sids: ArrayLike<number>
  readonly touched: ArrayLike<number>
}

/** Below these, `sid * 2^32 + touched` is an exact double (the rows' keys keep `sid` below 2^21 too). */
export const PACKED_SID = 2 ** 21
export const PACKED_TOUCHED = 2 ** 32

/** The pairs of `sid * 2^32 + touched` values (each `sid` below {@link PACKED_SID}, each `touched` at least 0 and below {@link PACKED_TOUCHED}). */
export const unpack = (packed: ReadonlyArray<number>): Pairs => {
  const sids = new Float64Array(packed.length)
  const touched = new Float64Array(packed.length)
  for (let i = 0; i < packed.length; i++) {
    const sid = Math.floor(packed[i]! / PACKED_TOUCHED)
    sids[i] = sid
    touched[i] = packed[i]! - sid * PACKED_TOUCHED
  }
  return { sids, touched }
}

/** What to do to a {@link Base}: drop `gone`, read `read` as rows; then it is as of `touched`, the database's `max(touched)`. */
export interface Plan {
  readonly gone: ReadonlyArray<number>
  readonly read: ReadonlyArray<number>
  readonly touched: number
}

/**
 * The plan for `base` given the database's removal count now and its sessions' `(sid, touched)`
 * pairs by `touched` descending; `undefined` when it cannot be decided (a removal count below the
 * base's, more deletions accounted for than counted) or when more than half of the sessions (and
 * more than 64) would be read (reading them all is as fast).
 */
export const plan = (
  base: Base,
  removals: number,
  pairs: Pairs
): Plan | undefined => {
  const deleted = removals - base.removals
  if (!(deleted > 0)) return undefined
  const { sids, touched: touchedOf } = pairs
  const n = sids.length
  let kept = 0
  for (let i = 0; i < n; i++) if (base.bySid.has(sids[i]!)) kept++
  const gone: Array<number> = []
  if (kept < base.bySid.size) {
    const present = new Set<number>()
    for (let i = 0; i < n; i++) present.add(sids[i]!)
    for (const sid of base.bySid.keys()) if (!present.has(sid)) gone.push(sid)
  }
  // the matches that may be sessions created since (each one a deletion not among the gone)
  let undecided = deleted - gone.length
  if (undecided < 0) return undefined
  const read: Array<number> = []
  const limit = Math.max(64, n / 2)
  for (let i = 0; i < n; i++) {
    const sid = sids[i]!
    const touched = touchedOf[i]!
    const listed = touched <= base.touched ? base.bySid.get(sid) : undefined
    if (listed !== undefined && listed.touched === touched) {
      if (undecided === 0) continue
      undecided--
    }
    read.push(sid)
    if (read.length > limit) return undefined
  }
  return { gone, read, touched: n === 0 ? 0 : touchedOf[0]! }
}
