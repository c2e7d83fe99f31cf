/**
 * `plan` (`internal/listingRemovals.ts`) against a model of the `sessions` table as SQLite and the
 * store write it (a new session's `sid` is `max(sid) + 1`, every write's `touched` is
 * `max(touched) + 1`, every deletion counted), over random histories before and after a listing
 * (fast-check, many more than the database's property runs): what the plan keeps of the listing is
 * exactly the sessions unchanged since, and with what it reads, the listing of now.
 */
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Removals from "../src/internal/listingRemovals.js"

/** A row of the model: its `touched`, whether it is listed, and which write made it (unique). */
interface Row {
  touched: number
  listed: boolean
  version: number
}

type Op =
  | { readonly kind: "create"; readonly listed: boolean }
  | { readonly kind: "write"; readonly pick: number; readonly listed: boolean }
  | { readonly kind: "remove"; readonly pick: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), listed: fc.boolean() }),
  fc.record({ kind: fc.constant("write" as const), pick: fc.nat(), listed: fc.boolean() }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  // the most frequent cause of a reused `sid` and `touched`: the newest session removed
  fc.record({ kind: fc.constant("remove" as const), pick: fc.constant(-1) })
)

class Model {
  readonly rows = new Map<number, Row>()
  removals = 0
  private versions = 0
  max = (f: (sid: number, row: Row) => number) => {
    let m = 0
    for (const [sid, row] of this.rows) m = Math.max(m, f(sid, row))
    return m
  }
  apply(o: Op): void {
    const sids = [...this.rows.keys()].sort((a, b) => a - b)
    if (o.kind === "create") {
      const sid = this.max((sid) => sid) + 1
      this.rows.set(sid, { touched: this.max((_, row) => row.touched) + 1, listed: o.listed, version: ++this.versions })
    } else if (sids.length > 0) {
      const sid = o.pick < 0 ? sids.at(-1)! : sids[o.pick % sids.length]!
      if (o.kind === "remove") {
        this.rows.delete(sid)
        this.removals++
      } else {
        const touched = this.max((_, row) => row.touched) + 1
        this.rows.set(sid, { touched, listed: o.listed, version: ++this.versions })
      }
    }
  }
  /** The listing: the listed sessions' writes, by `sid`. */
  listing(): Map<number, Row> {
    return new Map([...this.rows].filter(([, row]) => row.listed).map(([sid, row]) => [sid, { ...row }]))
  }
}

describe("listingRemovals.plan", () => {
  it("property: keeps exactly sessions unchanged since the listing; with what it reads, the listing of now", () => {
    let planned = 0
    let undecided = 0
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { minLength: 1, maxLength: 12 }), (before, after) => {
        const model = new Model()
        for (const o of before) model.apply(o)
        const listed = model.listing()
        const base = { touched: model.max((_, row) => row.touched), removals: model.removals, bySid: listed }
        for (const o of after) model.apply(o)
        if (model.removals === base.removals) return
        const rows = [...model.rows].sort((a, b) => b[1].touched - a[1].touched)
        // as the listing reads them (one double each)
        const packed = rows.map(([sid, row]) => sid * Removals.PACKED_TOUCHED + row.touched)
        const pairs = Removals.unpack(packed)
        expect(Array.from(pairs.sids)).toEqual(rows.map(([sid]) => sid))
        expect(Array.from(pairs.touched)).toEqual(rows.map(([, row]) => row.touched))
        const plan = Removals.plan(base, model.removals, pairs)
        if (plan === undefined) {
          undecided++
          return
        }
        planned++
        expect(plan.touched).toBe(model.max((_, row) => row.touched))
        const read = new Set(plan.read)
        const gone = new Set(plan.gone)
        for (const sid of gone) expect(model.rows.has(sid)).toBe(false)
        // what is neither gone nor read is kept as listed: it must be the very same write
        const now = model.listing()
        for (const [sid, row] of listed) {
          if (gone.has(sid) || read.has(sid)) continue
          expect(now.get(sid)?.version).toBe(row.version)
        }
        // and every listed session now is kept or read
        for (const sid of now.keys()) expect(read.has(sid) || (listed.has(sid) && !gone.has(sid))).toBe(true)
      }),
      { numRuns: 5000 }
    )
    // most histories with removals are decided (not read from the rows)
    expect(planned).toBeGreaterThan(undecided * 4)
  })

  it("a count below the listing's, or more sessions gone than removals counted: undecided", () => {
    const bySid = new Map([[1, { touched: 1 }], [2, { touched: 2 }]])
    const pairsOf = (...pairs: ReadonlyArray<readonly [number, number]>) => ({
      sids: pairs.map((pair) => pair[0]),
      touched: pairs.map((pair) => pair[1])
    })
    expect(Removals.plan({ touched: 2, removals: 3, bySid }, 2, pairsOf([1, 1]))).toBeUndefined()
    expect(Removals.plan({ touched: 2, removals: 3, bySid }, 3, pairsOf([1, 1]))).toBeUndefined()
    expect(Removals.plan({ touched: 2, removals: 3, bySid }, 4, pairsOf())).toBeUndefined()
    expect(Removals.plan({ touched: 2, removals: 3, bySid }, 4, pairsOf([1, 1]))).toEqual({
      gone: [2],
      read: [],
      touched: 1
    })
    // one removal not of the listing: the match of the largest `touched` read
    expect(Removals.plan({ touched: 2, removals: 3, bySid }, 4, pairsOf([2, 2], [1, 1]))).toEqual({
      gone: [],
      read: [2],
      touched: 2
    })
  })
})
