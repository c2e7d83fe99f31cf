/**
 * The listing kept between calls (`internal/listing.ts`): whatever another connection, another
 * process or the store itself changed between two listings (sessions added, appended to, renamed,
 * removed, replaced out of the listing, deleted by raw SQL, a deletion followed by a write reusing
 * its `touched`), the second listing equals a cold one (a fresh store's); an unchanged database
 * gives the same summaries again, frozen, in a new array.
 */
import type { SessionSummary, TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as SqliteStore from "../src/SqliteStore.js"
import { tempDbs, withDb } from "./support/backend.js"
import { start } from "./support/children.js"
import { header, message, named } from "./support/listing.js"

const freshDb = tempDbs("listing").fresh
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "list-child.ts")

/** A store kept open across calls (its connections, and so its listing, live until `close`). */
const openStore = async () => {
  const scope = await Effect.runPromise(Scope.make())
  const store = await Effect.runPromise(Scope.extend(SqliteStore.make(), scope))
  return { store, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
const list = (store: TranscriptStoreShape, file: string) =>
  Effect.runPromise(store.list({ location: `sqlite:${file}` }))
/** The listing of a fresh store (nothing kept). */
const cold = async (file: string) => {
  const fresh = await openStore()
  try {
    return await list(fresh.store, file)
  } finally {
    await fresh.close()
  }
}
const create = (store: TranscriptStoreShape, file: string, id: string, texts: ReadonlyArray<string>) =>
  Effect.runPromise(store.exclusive(SqliteStore.ref(file, id), (held) => held.create(texts)))
/** Sessions s0… with a header and a message each, the later ones newer. */
const seed = async (store: TranscriptStoreShape, file: string, count: number) => {
  for (let i = 0; i < count; i++) {
    await create(store, file, `s${i}`, [header(`s${i}`), message(`m${i}`, 1e12 + i, `hi ${i}`)])
  }
}
const ids = (listed: ReadonlyArray<SessionSummary>) => listed.map((s) => s.id)

describe("SqliteStore listing between changes", () => {
  it("another connection adds, appends to, renames, removes and replaces sessions: the next listing equals a cold one", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 10)
      const first = await list(store, file)
      expect(ids(first)).toEqual(["s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "s0"])
      expect(first).toEqual(await cold(file))
      withDb(file, (db) => {
        const nowMs = Date.now()
        db.write("n0", [header("n0"), message("x0", 2e12, "new")], { nowMs, create: true })
        db.write("s3", [message("x1", 3e12, "latest")], { nowMs })
        db.write("s5", [named("x2", "the fifth")], { nowMs })
        db.remove("s7")
        // its first row no longer a header: out of the listing
        db.replace("s8", [message("x3", 1e12, "no header")], { nowMs })
      })
      const second = await list(store, file)
      expect(ids(second)).toEqual(["s3", "n0", "s9", "s6", "s5", "s4", "s2", "s1", "s0"])
      expect(second.find((s) => s.id === "s5")?.name).toBe("the fifth")
      expect(second.find((s) => s.id === "s3")?.messageCount).toBe(2)
      expect(second).toEqual(await cold(file))
    } finally {
      await close()
    }
  })

  it("a deletion of the last-written session, then a write that reuses its `touched`: both seen", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 3)
      expect(ids(await list(store, file))).toEqual(["s2", "s1", "s0"])
      withDb(file, (db) => {
        const touched = db.session("s2")!.touched
        db.remove("s2")
        // max(touched) fell back: the next write gets the removed session's `touched` again
        db.write("s0", [message("x", 1e12 - 1, "more")], { nowMs: Date.now() })
        expect(db.session("s0")!.touched).toBe(touched)
      })
      const second = await list(store, file)
      expect(ids(second)).toEqual(["s1", "s0"])
      expect(second[1]!.messageCount).toBe(2)
      expect(second).toEqual(await cold(file))
    } finally {
      await close()
    }
  })

  it("a row of `sessions` deleted by raw SQL is counted by the trigger: gone from the next listing", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 3)
      expect(ids(await list(store, file))).toEqual(["s2", "s1", "s0"])
      const raw = new Database(file)
      raw.prepare("DELETE FROM sessions WHERE id = ?").run("s1")
      raw.close()
      const second = await list(store, file)
      expect(ids(second)).toEqual(["s2", "s0"])
      expect(second).toEqual(await cold(file))
    } finally {
      await close()
    }
  })

  it("the store's own writes between two listings (no other connection committed)", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 3)
      expect(ids(await list(store, file))).toEqual(["s2", "s1", "s0"])
      await create(store, file, "own", [header("own"), message("o", 2e12, "mine")])
      await Effect.runPromise(store.remove(SqliteStore.ref(file, "s0")))
      const second = await list(store, file)
      expect(ids(second)).toEqual(["own", "s2", "s1"])
      expect(second).toEqual(await cold(file))
    } finally {
      await close()
    }
  })

  it("another process adds, appends to, renames and removes sessions: the next listing equals a cold one", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 5)
      const first = await list(store, file)
      const writer = start([child, file, "create:3", "append:s1", "rename:s2:renamed", "remove:s4"])
      expect(await writer.exited, writer.output).toBe(0)
      const second = await list(store, file)
      expect(second.length).toBe(7)
      expect(ids(second)).not.toContain("s4")
      expect(second.find((s) => s.id === "s2")?.name).toBe("renamed")
      expect(second.find((s) => s.id === "s1")?.messageCount).toBe(2)
      expect(second).not.toEqual(first)
      expect(second).toEqual(await cold(file))
    } finally {
      await close()
    }
  }, 60_000)

  it("an unchanged database: the same frozen summaries in a new array each time", async () => {
    const file = freshDb()
    const { close, store } = await openStore()
    try {
      await seed(store, file, 3)
      const first = await list(store, file)
      const second = await list(store, file)
      expect(second).not.toBe(first)
      for (const [i, summary] of second.entries()) expect(summary).toBe(first[i])
      // a caller cannot change what the next listing gives
      first.pop()
      expect(() => {
        ;(first[0] as { name?: string }).name = "changed"
      }).toThrow(TypeError)
      expect(() => first[0]!.modified.setTime(0)).toThrow(TypeError)
      expect(() => first[0]!.created.setFullYear(1999)).toThrow(TypeError)
      expect(() => {
        ;(first[0]!.ref as { id: string }).id = "other"
      }).toThrow(TypeError)
      const third = await list(store, file)
      expect(third.length).toBe(3)
      expect(third).toEqual(await cold(file))
      expect(third[0]!.modified.getTime()).toBe(1e12 + 2)
    } finally {
      await close()
    }
  })
})
