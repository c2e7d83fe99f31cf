/**
 * A listing after removals (`internal/listingRemovals.ts`): a cold listing from a stored snapshot
 * of an older removal count, and a kept listing after a removal, catch up from the sessions'
 * `(sid, touched)` pairs instead of reading every session (observed through `reads`), and equal the
 * listing built from the rows whatever happened: removals by another connection or process, a
 * session removed and created again (its `sid` and `touched` too), a `touched` reused after a
 * removal, sessions left out of the listing or created since and removed, counts that disagree
 * (read from the rows), many removals (the snapshot stored again past `refreshAfter`), and random
 * changes (fast-check).
 */
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { reads, refreshAfter } from "../src/internal/listing.js"
import * as SqliteStore from "../src/SqliteStore.js"
import { tempDbs, withDb } from "./support/backend.js"
import { start } from "./support/children.js"
import {
  cold,
  counters,
  fromRows,
  header,
  ids,
  list,
  message,
  named,
  openStore,
  same,
  sql,
  stored,
  withSnapshot as seededWithSnapshot
} from "./support/listing.js"

const freshDb = tempDbs("removals").fresh
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "list-child.ts")

/** A database of `count` sessions (s0… newest last) whose snapshot a listing stored. */
const withSnapshot = (count: number) => seededWithSnapshot(freshDb(), count)

/** What `f` read (the change of `reads` over it). */
const observe = async <A>(f: () => Promise<A>) => {
  const before = { ...reads }
  const value = await f()
  return {
    value,
    all: reads.all - before.all,
    rows: reads.rows - before.rows,
    afterRemovals: reads.afterRemovals - before.afterRemovals
  }
}

/** A cold listing that equals the rows' and was caught up over removals reading `rows` sessions (not every one). */
const coldAfterRemovals = async (file: string, rows: number) => {
  const before = stored(file)
  const seen = await observe(() => cold(file))
  same(seen.value, fromRows(file))
  expect(seen).toMatchObject({ all: 0, rows, afterRemovals: 1 })
  // the snapshot of the older count was used, not stored again
  expect(stored(file)).toEqual(before)
  expect(before!.removals).toBeLessThan(counters(file).removals)
  return seen.value
}

const remove = (file: string, ...removed: ReadonlyArray<string>) =>
  withDb(file, (db) => {
    for (const id of removed) expect(db.remove(id)).toBe(true)
  })

describe("SqliteStore listing after removals", () => {
  it("one removal by another connection: a cold listing reads no session's rows, again and again", async () => {
    const file = await withSnapshot(50)
    remove(file, "s10")
    expect(ids(await coldAfterRemovals(file, 0))).not.toContain("s10")
    expect((await coldAfterRemovals(file, 0)).length).toBe(49)
  })

  it("a removal by the store itself, then appends: only the sessions written since are read", async () => {
    const file = await withSnapshot(20)
    const { close, store } = await openStore({ busyTimeoutMs: 5000 })
    try {
      await Effect.runPromise(store.remove(SqliteStore.ref(file, "s3")))
    } finally {
      await close()
    }
    withDb(file, (db) => {
      db.write("s5", [message("x5", 3e12, "later")], { nowMs: 1 })
      db.write("s19", [named("x19", "renamed")], { nowMs: 1 })
    })
    const listed = await coldAfterRemovals(file, 2)
    expect(ids(listed).slice(0, 2)).toEqual(["s5", "s19"])
    expect(listed[1]!.name).toBe("renamed")
  })

  it("another process removes sessions: a cold listing reads no session's rows", async () => {
    const file = await withSnapshot(8)
    const writer = start([child, file, "remove:s4", "remove:s0"])
    expect(await writer.exited, writer.output).toBe(0)
    expect(ids(await coldAfterRemovals(file, 0))).toEqual(["s7", "s6", "s5", "s3", "s2", "s1"])
  }, 60_000)

  it("a session removed and created again with other rows, of the same sid and touched: read, not taken as unchanged", async () => {
    const file = await withSnapshot(5)
    withDb(file, (db) => {
      const old = db.session("s4")!
      expect(db.remove("s4")).toBe(true)
      db.write("s4", [header("s4"), message("again", 1e12 - 5, "created again")], { nowMs: 3, create: true })
      // the same number and `touched` as in the snapshot: only the removal count tells
      expect(db.session("s4")).toMatchObject({ sid: old.sid, touched: old.touched })
    })
    const listed = await coldAfterRemovals(file, 1)
    expect(listed.at(-1)).toMatchObject({ id: "s4", firstMessage: "created again" })
  })

  it("a session removed and created again under a new number: the old one dropped, the new one read", async () => {
    const file = await withSnapshot(5)
    withDb(file, (db) => {
      const old = db.session("s1")!
      expect(db.remove("s1")).toBe(true)
      db.write("s1", [header("s1"), message("again", 2e12, "created again")], { nowMs: 3, create: true })
      expect(db.session("s1")!.sid).not.toBe(old.sid)
    })
    const listed = await coldAfterRemovals(file, 1)
    expect(listed[0]).toMatchObject({ id: "s1", firstMessage: "created again" })
  })

  it("a removal of the last-written session, then a write reusing its touched: read", async () => {
    const file = await withSnapshot(4)
    const { touched } = stored(file)!
    withDb(file, (db) => {
      expect(db.remove("s3")).toBe(true)
      db.write("s0", [message("x", 2e12, "more")], { nowMs: 1 })
      expect(db.session("s0")!.touched).toBe(touched)
    })
    const listed = await coldAfterRemovals(file, 1)
    expect(listed[0]).toMatchObject({ id: "s0", messageCount: 2 })
  })

  it("a session created after a removal, of a new number and the removed one's touched: read", async () => {
    const file = freshDb()
    await cold(file)
    withDb(file, (db) => {
      for (let i = 0; i < 3; i++) db.write(`s${i}`, [header(`s${i}`)], { nowMs: 1, create: true })
      // the last written, not the last created
      db.write("s0", [message("m", 2e12, "latest")], { nowMs: 1 })
    })
    sql(file, "DELETE FROM listing_snapshot")
    await cold(file)
    const { touched } = stored(file)!
    withDb(file, (db) => {
      const removed = db.session("s0")!
      expect(removed.touched).toBe(touched)
      expect(db.remove("s0")).toBe(true)
      db.write("n", [header("n")], { nowMs: 1, create: true })
      expect(db.session("n")!.touched).toBe(touched)
      expect(db.session("n")!.sid).toBeGreaterThan(db.session("s2")!.sid)
    })
    expect(ids(await coldAfterRemovals(file, 1))).toEqual(["n", "s2", "s1"])
  })

  it("a removal of a session the listing leaves out, or of one created since: one session read each", async () => {
    const file = freshDb()
    await cold(file)
    withDb(file, (db) => {
      for (let i = 0; i < 6; i++) db.write(`s${i}`, [header(`s${i}`)], { nowMs: 1, create: true })
      db.replace("s2", [message("x", 1, "no header")], { nowMs: 1 })
    })
    sql(file, "DELETE FROM listing_snapshot")
    await cold(file)
    expect(stored(file)!.count).toBe(5)
    remove(file, "s2")
    await coldAfterRemovals(file, 1)
    withDb(file, (db) => {
      db.write("tmp", [header("tmp")], { nowMs: 1, create: true })
      expect(db.remove("tmp")).toBe(true)
      expect(db.remove("s5")).toBe(true)
    })
    expect(ids(await coldAfterRemovals(file, 2))).toEqual(["s4", "s3", "s1", "s0"])
  })

  it("counts that disagree with the sessions gone: read from the rows (and stored again)", async () => {
    for (const change of ["UPDATE counters SET value = value - 3", "UPDATE counters SET value = value - 1"]) {
      const file = await withSnapshot(4)
      // two sessions gone, one removal counted (or none: a count below the snapshot's)
      sql(file, `DELETE FROM sessions WHERE id IN ('s1', 's2'); ${change}`)
      const seen = await observe(() => cold(file))
      same(seen.value, fromRows(file))
      expect(seen).toMatchObject({ all: 1, afterRemovals: 0 })
      expect(stored(file)).toMatchObject({ ...counters(file), count: 2 })
    }
  })

  it("a kept listing after a removal reads none; a write reusing a lower touched after it is seen", async () => {
    const file = await withSnapshot(6)
    const { close, store } = await openStore()
    try {
      await list(store, file)
      remove(file, "s5", "s4")
      const seen = await observe(() => list(store, file))
      same(seen.value, fromRows(file))
      expect(seen).toMatchObject({ all: 0, rows: 0, afterRemovals: 1 })
      // `max(touched)` fell by two: this write's `touched` is below the one the listing saw before
      withDb(file, (db) => db.write("s0", [message("y", 4e12, "newest")], { nowMs: 1 }))
      const after = await list(store, file)
      same(after, fromRows(file))
      expect(after[0]).toMatchObject({ id: "s0", messageCount: 2 })
    } finally {
      await close()
    }
    same(await cold(file), fromRows(file))
  })

  it("removals past refreshAfter(n) since the snapshot: stored again, not before", async () => {
    const file = freshDb()
    const n = 300
    await cold(file)
    withDb(file, (db) =>
      db.handle.transaction(() => {
        for (let i = 0; i < n; i++) {
          db.write(`s${i}`, [header(`s${i}`), message(`m${i}`, 1e12 + i, `hi ${i}`)], { nowMs: 1, create: true })
        }
      })())
    await cold(file)
    const first = stored(file)!
    expect(first).toMatchObject({ ...counters(file), count: n })
    const limit = refreshAfter(n)
    remove(file, ...Array.from({ length: limit - 1 }, (_, i) => `s${i}`))
    withDb(file, (db) => db.write(`s${n - 1}`, [message("t", 2e12, "touched")], { nowMs: 1 }))
    // limit - 1 removed and one changed: `limit` sessions, not more
    await coldAfterRemovals(file, 1)
    expect(stored(file)).toEqual(first)
    remove(file, `s${limit - 1}`)
    const seen = await observe(() => cold(file))
    same(seen.value, fromRows(file))
    expect(seen).toMatchObject({ all: 0, afterRemovals: 1 })
    expect(stored(file)).toMatchObject({ ...counters(file), count: n - limit })
    // the new one has the count of now: used as it is
    const again = await observe(() => cold(file))
    same(again.value, fromRows(file))
    expect(again).toMatchObject({ all: 0, rows: 0, afterRemovals: 0 })
  })

  it("a `touched` too large for one double per pair: the pairs read as rows of two, the same listing", async () => {
    const file = await withSnapshot(4)
    remove(file, "s1")
    sql(file, "UPDATE sessions SET touched = touched + 5000000000 WHERE id = 's0'")
    const listed = await coldAfterRemovals(file, 1)
    expect(ids(listed)).toEqual(["s3", "s2", "s0"])
  })

  it("more than half of the sessions to read: every session read instead", async () => {
    const file = await withSnapshot(200)
    withDb(file, (db) => {
      for (let i = 0; i < 101; i++) db.write(`s${i}`, [message(`t${i}`, 2e12 + i, "again")], { nowMs: 1 })
      expect(db.remove("s199")).toBe(true)
    })
    const seen = await observe(() => cold(file))
    same(seen.value, fromRows(file))
    expect(seen).toMatchObject({ all: 1, afterRemovals: 0 })
  })

  it(
    "property: random removals, re-creations and writes by another connection between kept and cold listings",
    async () => {
      const i = fc.nat(7)
      const op = fc.oneof(
        fc.record({ kind: fc.constant("create" as const), i }),
        fc.record({ kind: fc.constant("again" as const), i }),
        fc.record({ kind: fc.constant("append" as const), i, at: fc.integer({ min: 0, max: 3e12 }) }),
        fc.record({ kind: fc.constant("remove" as const), i }),
        fc.record({ kind: fc.constant("out" as const), i }),
        fc.record({ kind: fc.constant("kept" as const) }),
        fc.record({ kind: fc.constant("cold" as const) })
      )
      const before = reads.afterRemovals
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 16 }), async (ops) => {
          const file = freshDb()
          const { close, store } = await openStore()
          try {
            await list(store, file)
            // every session there, in the snapshot the next listing stores
            sql(file, "DELETE FROM listing_snapshot")
            withDb(file, (db) => {
              for (let k = 0; k < 8; k++) {
                db.write(`s${k}`, [header(`s${k}`), message(`s${k}-0`, 1e12 + k, "hi")], { nowMs: 5, create: true })
              }
            })
            await cold(file)
            for (const o of ops) {
              if (o.kind === "cold") same(await cold(file), fromRows(file))
              else if (o.kind === "kept") same(await list(store, file), fromRows(file))
              else {
                withDb(file, (db) => {
                  const id = `s${o.i}`
                  const exists = db.session(id) !== undefined
                  const create = (text: string) =>
                    db.write(id, [header(id), message(`${id}-${text}`, 1e12 + o.i, text)], { nowMs: 5, create: true })
                  if (o.kind === "create" && !exists) create("hi")
                  else if (o.kind === "again" && exists) {
                    // removed and created again at once: most often its `sid` and `touched` again
                    db.remove(id)
                    create(`again ${Math.random()}`)
                  } else if (o.kind === "append" && exists) {
                    db.write(id, [message(`${id}-${Math.random()}`, o.at, "more")], { nowMs: 6 })
                  } else if (o.kind === "remove") db.remove(id)
                  else if (o.kind === "out" && exists) {
                    db.replace(id, [message(`${id}-x`, 1, "no header")], { nowMs: 8 })
                  }
                })
              }
            }
            same(await list(store, file), fromRows(file))
            same(await cold(file), fromRows(file))
          } finally {
            await close()
          }
        }),
        { numRuns: 60 }
      )
      // the catch-up over removals was what these listings did, many times
      expect(reads.afterRemovals - before).toBeGreaterThan(60)
    },
    180_000
  )
})
