/**
 * The stored snapshot of the listing (`internal/listingSnapshot.ts`, migration 5): a fresh store
 * starts from it and catches up; whatever changed after it (sessions added, appended to, renamed,
 * replaced out of the listing, removed, deleted by raw SQL, a removal then a write reusing its
 * `touched`, by another connection or another process), a cold listing equals the listing built
 * from the rows; a damaged snapshot is never trusted; a read-only connection never writes one; a
 * new one is stored by the rule of `refreshAfter`, and a busy database skips it without waiting.
 */
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it, vi } from "vitest"
import { Db } from "../src/internal/database.js"
import { refreshAfter } from "../src/internal/listing.js"
import * as Snapshot from "../src/internal/listingSnapshot.js"
import * as Schema from "../src/internal/schema.js"
import * as SqliteStore from "../src/SqliteStore.js"
import { tempDbs, withDb } from "./support/backend.js"
import { start } from "./support/children.js"
import {
  cold,
  counters,
  create,
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

const { fresh: freshDb, root } = tempDbs("snapshot")
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "list-child.ts")

/** A database of `count` sessions (s0… newest last) whose snapshot a listing stored. */
const withSnapshot = (count: number) => seededWithSnapshot(freshDb(), count)

/** Cold equals the rows' listing, from the snapshot as it was (not stored again: it was used). */
const coldFromSnapshot = async (file: string) => {
  const before = stored(file)
  same(await cold(file), fromRows(file))
  expect(stored(file)).toEqual(before)
}

describe("SqliteStore listing snapshot", () => {
  it("a listing stores the snapshot; a fresh store lists from it (a change of its text shows)", async () => {
    const file = await withSnapshot(5)
    same(await cold(file), fromRows(file))
    // same length, other text: read as it is (the snapshot is what a cold listing starts from)
    sql(file, "UPDATE listing_snapshot SET texts = replace(texts, 'hi 3', 'HI 3')")
    const listed = await cold(file)
    expect(listed.find((s) => s.id === "s3")?.firstMessage).toBe("HI 3")
    expect(listed.filter((s) => s.id !== "s3")).toEqual(fromRows(file).filter((s) => s.id !== "s3"))
  })

  it("a database moved elsewhere: the references are the new path's (nothing of the path is stored)", async () => {
    const file = await withSnapshot(3)
    const moved = path.join(root, "moved", path.basename(freshDb()))
    fs.mkdirSync(path.dirname(moved), { recursive: true })
    // every connection closed: the WAL checkpointed into the file
    fs.copyFileSync(file, moved)
    sql(moved, "UPDATE listing_snapshot SET texts = replace(texts, 'hi 2', 'HI 2')")
    const listed = await cold(moved)
    expect(listed.find((s) => s.id === "s2")?.firstMessage).toBe("HI 2")
    expect(listed.map((s) => s.path)).toEqual(["s2", "s1", "s0"].map((id) => `sqlite:${moved}#${id}`))
    expect(listed.map((s) => s.ref)).toEqual(["s2", "s1", "s0"].map((id) => ({ _tag: "Sqlite", path: moved, id })))
    expect(listed.filter((s) => s.id !== "s2")).toEqual(fromRows(moved).filter((s) => s.id !== "s2"))
  })

  it("another connection adds, appends to, renames and replaces out sessions after it: cold equals the rows", async () => {
    const file = await withSnapshot(10)
    withDb(file, (db) => {
      const nowMs = Date.now()
      db.write("n0", [header("n0"), message("x0", 2e12, "new")], { nowMs, create: true })
      db.write("s3", [message("x1", 3e12, "latest")], { nowMs })
      db.write("s5", [named("x2", "the fifth")], { nowMs })
      db.replace("s8", [message("x3", 1e12, "no header")], { nowMs })
      // back into the listing, older than all
      db.replace("s9", [header("s9"), message("x4", 1, "oldest")], { nowMs })
    })
    await coldFromSnapshot(file)
    const listed = await cold(file)
    expect(ids(listed)).toEqual(["s3", "n0", "s7", "s6", "s5", "s4", "s2", "s1", "s0", "s9"])
    expect(listed.find((s) => s.id === "s5")?.name).toBe("the fifth")
  })

  it("the store's own writes after it, then a fresh store: cold equals the rows", async () => {
    const file = await withSnapshot(4)
    const { close, store } = await openStore()
    try {
      await create(store, file, "own", [header("own"), message("o", 2e12, "mine")])
      await list(store, file)
    } finally {
      await close()
    }
    await coldFromSnapshot(file)
  })

  it("a removal: the snapshot of the old count is used, caught up over it (`listing-removals.test.ts`), not stored again", async () => {
    const file = await withSnapshot(4)
    const { close, store } = await openStore()
    try {
      await Effect.runPromise(store.remove(SqliteStore.ref(file, "s1")))
    } finally {
      await close()
    }
    await coldFromSnapshot(file)
    expect(ids(fromRows(file))).toEqual(["s3", "s2", "s0"])
    expect(stored(file)).toMatchObject({ removals: counters(file).removals - 1, count: 4 })
  })

  it("a removal of the last-written session, then a write reusing its `touched`: both seen", async () => {
    const file = await withSnapshot(3)
    const { touched } = counters(file)
    withDb(file, (db) => {
      db.remove("s2")
      db.write("s0", [message("x", 1e12 - 1, "more")], { nowMs: Date.now() })
      // max(touched) fell back: the write got the snapshot's `touched` again
      expect(db.session("s0")!.touched).toBe(touched)
    })
    const listed = await cold(file)
    expect(ids(listed)).toEqual(["s1", "s0"])
    expect(listed[1]!.messageCount).toBe(2)
    same(listed, fromRows(file))
  })

  it("a row of `sessions` deleted by raw SQL after it: counted, not listed", async () => {
    const file = await withSnapshot(3)
    sql(file, "DELETE FROM sessions WHERE id = 's1'")
    same(await cold(file), fromRows(file))
    expect(ids(fromRows(file))).toEqual(["s2", "s0"])
  })

  it("another process adds, appends to and renames sessions after it: cold equals the rows", async () => {
    const file = await withSnapshot(5)
    const writer = start([child, file, "create:3", "append:s1", "rename:s2:renamed"])
    expect(await writer.exited, writer.output).toBe(0)
    await coldFromSnapshot(file)
    expect((await cold(file)).length).toBe(8)
  }, 60_000)

  it("another process removes a session after it: cold equals the rows", async () => {
    const file = await withSnapshot(5)
    const writer = start([child, file, "remove:s4", "append:s0"])
    expect(await writer.exited, writer.output).toBe(0)
    same(await cold(file), fromRows(file))
    expect(ids(await cold(file))).not.toContain("s4")
  }, 60_000)

  it("processes racing to store snapshots while removing and creating sessions: cold equals the rows", async () => {
    const file = await withSnapshot(5)
    const racers = ["a", "b", "c"].map((p) => start([child, file, `churn:${p}:15`]))
    for (const racer of racers) expect(await racer.exited, racer.output).toBe(0)
    same(await cold(file), fromRows(file))
    expect(ids(fromRows(file)).filter((id) => !/^s\d$/.test(id)).length).toBe(3)
    await coldFromSnapshot(file)
  }, 60_000)

  const damages: ReadonlyArray<readonly [string, string]> = [
    ["a truncated BLOB", "numbers = substr(numbers, 1, length(numbers) - 8)"],
    ["a longer BLOB", "numbers = unhex(hex(numbers) || '0000000000000000')"],
    ["another format", "format = 1"],
    ["garbage text", "texts = 'garbage'"],
    ["a longer text", "texts = texts || 'x'"],
    ["a text cut short", "texts = substr(texts, 1, length(texts) - 1)"],
    ["the text as a BLOB", "texts = CAST(texts AS BLOB)"],
    ["numbers as text", "numbers = 'abc'"],
    ["another count", "count = count - 1"],
    ["sessions of a `touched` above the snapshot's", "touched = touched - 1"],
    ["a `touched` that is not an integer", "touched = touched + 0.5"]
  ]
  for (const [what, set] of damages) {
    it(`a damaged snapshot (${what}) is not used: the rows' listing, stored again`, async () => {
      const file = await withSnapshot(4)
      // were it trusted, this would show
      sql(file, `UPDATE listing_snapshot SET texts = replace(texts, 'hi 1', 'HI 1')`)
      sql(file, `UPDATE listing_snapshot SET ${set}`)
      same(await cold(file), fromRows(file))
      expect(stored(file)).toEqual({
        format: Snapshot.FORMAT,
        ...counters(file),
        count: 4,
        numbers: "blob",
        texts: "text"
      })
      await coldFromSnapshot(file)
    })
  }

  it("a read-only connection never writes a snapshot (none stored: it lists from the rows), but reads one", async () => {
    const file = await withSnapshot(3)
    sql(file, "DELETE FROM listing_snapshot")
    const db = new Db(file, true, 5000).ready()
    // not even tried (SQLite would refuse it)
    const pragma = vi.spyOn(db.handle, "pragma")
    try {
      same(db.list(), fromRows(file))
      same(db.list(), fromRows(file))
      expect(pragma).not.toHaveBeenCalled()
    } finally {
      db.close()
    }
    expect(stored(file)).toBeUndefined()
    same(await cold(file), fromRows(file))
    sql(file, "UPDATE listing_snapshot SET texts = replace(texts, 'hi 2', 'HI 2')")
    const reader = new Db(file, true, 5000).ready()
    try {
      expect(reader.list().find((s) => s.id === "s2")?.firstMessage).toBe("HI 2")
    } finally {
      reader.close()
    }
  })

  it("a version-4 database: read-only listed from its rows, not migrated; a writable store migrates it and stores one", async () => {
    const file = await withSnapshot(3)
    sql(file, `DROP TABLE listing_snapshot; DELETE FROM ${Schema.MIGRATIONS_TABLE} WHERE migration_id >= 5`)
    const db = new Db(file, true, 5000).ready()
    try {
      same(db.list(), fromRows(file))
      expect(Schema.versionOf(db.handle)).toBe(4)
    } finally {
      db.close()
    }
    same(await cold(file), fromRows(file))
    expect(stored(file)).toMatchObject({ format: Snapshot.FORMAT, ...counters(file), count: 3 })
  })

  it("a new snapshot once more than refreshAfter(n) sessions changed since it, not before", async () => {
    const file = freshDb()
    const n = 300
    await cold(file)
    withDb(file, (db) =>
      db.handle.transaction(() => {
        for (let i = 0; i < n; i++) {
          db.write(`s${i}`, [header(`s${i}`), message(`m${i}`, 1e12 + i, `hi ${i}`)], { nowMs: 1, create: true })
        }
      })())
    same(await cold(file), fromRows(file))
    const first = stored(file)!
    expect(first.touched).toBe(counters(file).touched)
    const limit = refreshAfter(n)
    expect(limit).toBe(256)
    const touch = (from: number, to: number) =>
      withDb(file, (db) =>
        db.handle.transaction(() => {
          for (let i = from; i < to; i++) db.write(`s${i}`, [message(`t${i}`, 2e12 + i, "again")], { nowMs: 1 })
        })())
    // the same session twice counts once
    touch(0, limit)
    touch(0, 1)
    await coldFromSnapshot(file)
    expect(stored(file)).toEqual(first)
    touch(limit, limit + 1)
    same(await cold(file), fromRows(file))
    expect(stored(file)!.touched).toBe(counters(file).touched)
    // a kept listing catching up as many stores one too
    const { close, store } = await openStore()
    try {
      await list(store, file)
      const second = stored(file)!
      touch(0, limit + 1)
      same(await list(store, file), fromRows(file))
      expect(stored(file)!.touched).toBeGreaterThan(second.touched)
    } finally {
      await close()
    }
  })

  it("a database busy with another writer: the listing stores nothing, waits for no one, and fails not", async () => {
    const file = await withSnapshot(3)
    sql(file, "DELETE FROM listing_snapshot")
    const other = new Database(file)
    try {
      other.exec("BEGIN IMMEDIATE")
      // with a busy wait this would take the 60 s of the timeout (the test's is 20 s)
      same(await cold(file, { busyTimeoutMs: 60_000 }), fromRows(file))
      expect(stored(file)).toBeUndefined()
      other.exec("COMMIT")
    } finally {
      other.close()
    }
    same(await cold(file), fromRows(file))
    expect(stored(file)).toMatchObject({ ...counters(file), count: 3 })
  }, 20_000)

  it(
    "property: random changes by another connection between cold listings (each one's snapshot stored or not)",
    async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant("create" as const), i: fc.nat(12) }),
        fc.record({ kind: fc.constant("append" as const), i: fc.nat(12), at: fc.integer({ min: 0, max: 3e12 }) }),
        fc.record({ kind: fc.constant("rename" as const), i: fc.nat(12) }),
        fc.record({ kind: fc.constant("remove" as const), i: fc.nat(12) }),
        fc.record({ kind: fc.constant("out" as const), i: fc.nat(12) }),
        fc.record({ kind: fc.constant("cold" as const) }),
        fc.record({ kind: fc.constant("drop" as const) })
      )
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
          const file = freshDb()
          await cold(file)
          for (const o of ops) {
            if (o.kind === "cold") same(await cold(file), fromRows(file))
            else if (o.kind === "drop") sql(file, "DELETE FROM listing_snapshot")
            else {
              withDb(file, (db) => {
                const id = `s${o.i}`
                const exists = db.session(id) !== undefined
                if (o.kind === "create" && !exists) {
                  db.write(id, [header(id), message(`${id}-0`, 1e12 + o.i, `hi ${o.i}`)], { nowMs: 5, create: true })
                } else if (o.kind === "append" && exists) {
                  db.write(id, [message(`${id}-${Math.random()}`, o.at, "more")], { nowMs: 6 })
                } else if (o.kind === "rename" && exists) {
                  db.write(id, [named(`${id}-n${Math.random()}`, "n")], { nowMs: 7 })
                } else if (o.kind === "remove") db.remove(id)
                else if (o.kind === "out" && exists) db.replace(id, [message(`${id}-x`, 1, "no header")], { nowMs: 8 })
              })
            }
          }
          same(await cold(file), fromRows(file))
        }),
        { numRuns: 40 }
      )
    },
    120_000
  )
})
