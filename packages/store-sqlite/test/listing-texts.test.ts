/**
 * The listing's texts whole (`internal/summary.ts`, `listedSummary.ts`, migration 6): the first user
 * message always, the messages' text whole up to `MAX_STORED_TEXT` characters and read from the
 * rows on demand beyond; a database of schema 5 (texts cut at 200 and 500 characters) read-only,
 * and migrated.
 */
import { describe, expect, it } from "vitest"
import { Db } from "../src/internal/database.js"
import * as Schema from "../src/internal/schema.js"
import { MAX_STORED_TEXT } from "../src/internal/summary.js"
import { tempDbs } from "./support/backend.js"
import { cold, create, header, list, message, openStore, sql } from "./support/listing.js"

const freshDb = tempDbs("texts").fresh

/** Words of one letter, `n` characters. */
const text = (n: number, letter: string) => `${letter} `.repeat(Math.ceil(n / 2)).slice(0, n)

const first = text(1_234, "f")
const long = [first, text(3_000, "a"), text(3_000, "b")]
const wholeText = long.join(" ")

/** A database with session `long` (texts past every cap) and session `short`. */
const seeded = async () => {
  const file = freshDb()
  const { close, store } = await openStore()
  try {
    await create(store, file, "long", [header("long"), ...long.map((t, i) => message(`l${i}`, 1e12 + i, t))])
    await create(store, file, "short", [
      header("short"),
      message("s0", 1e12 + 10, "hi"),
      message("s1", 1e12 + 11, "yo")
    ])
  } finally {
    await close()
  }
  return file
}

const columns = (file: string, id: string) => {
  const db = new Db(file, true, 5000).ready()
  try {
    return db.handle.prepare("SELECT first_message, all_text FROM sessions WHERE id = ?").get(id) as {
      first_message: string
      all_text: string
    }
  } finally {
    db.close()
  }
}

describe("SqliteStore listing texts", () => {
  it("keeps the first message whole and the text whole up to the cap, a prefix one character longer beyond", async () => {
    const file = await seeded()
    expect(columns(file, "long")).toEqual({ first_message: first, all_text: wholeText.slice(0, MAX_STORED_TEXT + 1) })
    expect(columns(file, "short")).toEqual({ first_message: "hi", all_text: "hi yo" })
  })

  it("a listing reads no rows for a long text until it is asked for, then the whole, even after the store closed", async () => {
    const file = await seeded()
    const { close, store } = await openStore()
    const listed = await list(store, file)
    await close()
    const summary = listed.find((s) => s.id === "long")!
    const property = Object.getOwnPropertyDescriptor(summary, "allMessagesText")!
    expect(property.get).toBeDefined()
    expect(summary.firstMessage).toBe(first)
    expect(summary.allMessagesText).toBe(wholeText)
    expect(Object.getOwnPropertyDescriptor(listed.find((s) => s.id === "short")!, "allMessagesText")!.value).toBe(
      "hi yo"
    )
    // a fresh store lists from the stored snapshot: the same texts
    const again = (await cold(file)).find((s) => s.id === "long")!
    expect([again.firstMessage, again.allMessagesText]).toEqual([first, wholeText])
  })

  it("a schema-5 database (texts cut) read-only lists whole texts; a writable store migrates it to whole texts", async () => {
    const file = await seeded()
    // as schema 5 stored them: the text cut at 200 characters, the first message at 500, no migration 6
    sql(
      file,
      `UPDATE sessions SET all_text = substr(all_text, 1, 200), first_message = substr(first_message, 1, 500);
       DROP TABLE listing_snapshot; DELETE FROM ${Schema.MIGRATIONS_TABLE} WHERE migration_id >= 5`
    )
    const reader = new Db(file, true, 5000).ready()
    try {
      expect(Schema.versionOf(reader.handle)).toBe(4)
      const long = reader.list().find((s) => s.id === "long")!
      expect([long.firstMessage, long.allMessagesText]).toEqual([first, wholeText])
      expect(reader.list().find((s) => s.id === "short")!.allMessagesText).toBe("hi yo")
    } finally {
      reader.close()
    }
    const listed = await cold(file)
    expect(listed.find((s) => s.id === "long")!.allMessagesText).toBe(wholeText)
    expect(columns(file, "long")).toEqual({ first_message: first, all_text: wholeText.slice(0, MAX_STORED_TEXT + 1) })
    expect(columns(file, "short")).toEqual({ first_message: "hi", all_text: "hi yo" })
  })
})
