/**
 * The codec of the stored listing (`internal/listingSnapshot.ts`): any listing (any Unicode text,
 * absent optional fields, dates beyond range, sessions never active) comes back through a real
 * SQLite row exactly (the same keys in the same order, frozen, `ListedDate`s, the references of
 * the database it is read from); every kind of inconsistency is refused.
 */
import Database from "better-sqlite3"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Entry } from "../src/internal/listedSummary.js"
import * as ListedSummary from "../src/internal/listedSummary.js"
import * as Snapshot from "../src/internal/listingSnapshot.js"
import { same } from "./support/listing.js"

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\0", "é", "😀", "\u200d", "#", "%", "a"),
    fc.string({ unit: "grapheme", maxLength: 1 })
  )
})
const optional = fc.option(text, { nil: undefined })
const entries = fc.array(
  fc.record({
    refId: text,
    id: text,
    cwd: text,
    name: optional,
    parent: optional,
    listed: fc.oneof(fc.constant(-Infinity), fc.integer({ min: 0, max: 4e12 }), fc.double({ noNaN: true })),
    created: fc.oneof(fc.integer({ min: 0, max: 4e12 }), fc.constant(Number.NaN), fc.double()),
    modified: fc.integer({ min: 0, max: 4e12 }),
    count: fc.nat(),
    first: text,
    all: text,
    // the first message as the start of the messages' text (stored once), the header's id the session's
    firstInAll: fc.boolean(),
    sameId: fc.boolean()
  }),
  { maxLength: 40 }
).map((raw) => {
  const made: Array<Entry> = raw.map((r, i) => ({
    sid: i * 3 + 1,
    listed: r.listed,
    touched: i + 1,
    summary: ListedSummary.make(
      "/db",
      "sqlite:/db#",
      r.refId,
      r.sameId ? r.refId : r.id,
      r.cwd,
      r.name,
      r.parent,
      r.created,
      r.modified,
      r.count,
      r.firstInAll ? r.all.slice(0, r.first.length) : r.first,
      r.all
    )
  }))
  return made.sort(ListedSummary.newestFirst)
})

/** The stored row of `list` as SQLite gives it back (through a real table). */
const roundTrip = (list: ReadonlyArray<Entry>, change?: (db: Database.Database) => void) => {
  const db = new Database(":memory:")
  try {
    db.exec(
      "CREATE TABLE s (format INTEGER, touched INTEGER, removals INTEGER, count INTEGER, numbers BLOB, texts TEXT)"
    )
    const { numbers, texts } = Snapshot.encode(list)
    db.prepare("INSERT INTO s VALUES (?, ?, ?, ?, ?, ?)").run(
      Snapshot.FORMAT,
      list.length + 5,
      7,
      list.length,
      numbers,
      texts
    )
    change?.(db)
    return db.prepare("SELECT format, touched, removals, count, numbers, texts FROM s").raw(true)
      .get() as Snapshot.Stored
  } finally {
    db.close()
  }
}

describe("listing snapshot codec", () => {
  it("property: every listing decodes as it was encoded, for the database it is read from", () => {
    fc.assert(
      fc.property(entries, (list) => {
        const decoded = Snapshot.decode(roundTrip(list), "/other.db", "sqlite:/other.db#")!
        expect(decoded).toBeDefined()
        expect(decoded.touched).toBe(list.length + 5)
        expect(decoded.removals).toBe(7)
        expect(decoded.entries.map(({ listed, sid, touched }) => [sid, listed, touched])).toEqual(
          list.map(({ listed, sid, touched }) => [sid, listed, touched])
        )
        const want = list.map((e) => {
          const s = e.summary
          return ListedSummary.make(
            "/other.db",
            "sqlite:/other.db#",
            (s.ref as { id: string }).id,
            s.id,
            s.cwd,
            s.name,
            s.parentSessionPath,
            s.created.getTime(),
            s.modified.getTime(),
            s.messageCount,
            s.firstMessage,
            s.allMessagesText
          )
        })
        same(decoded.entries.map((e) => e.summary), want)
        for (const e of decoded.entries) expect(decoded.bySid.get(e.sid)).toBe(e)
      }),
      { numRuns: 200 }
    )
  })

  it("a BLOB not aligned to 8 bytes is copied, not refused", () => {
    const list = fc.sample(entries.filter((l) => l.length > 2), { numRuns: 1, seed: 3 })[0]!
    const [format, touched, removals, count, numbers, texts] = roundTrip(list)
    const shifted = new Uint8Array(new ArrayBuffer((numbers as Uint8Array).byteLength + 1), 1)
    shifted.set(numbers as Uint8Array)
    const decoded = Snapshot.decode([format, touched, removals, count, shifted, texts], "/db", "sqlite:/db#")
    same(decoded!.entries.map((e) => e.summary), list.map((e) => e.summary))
  })

  it("refuses a snapshot that is off in any way", () => {
    const inAll = (e: Entry) => e.summary.allMessagesText.startsWith(e.summary.firstMessage)
    const list = fc.sample(
      entries.filter((l) =>
        l.length >= 3 && l.some((e) => e.summary.firstMessage.length > 0 && !inAll(e)) &&
        l.some((e) => e.summary.firstMessage.length > 0 && inAll(e))
      ),
      { numRuns: 1, seed: 11 }
    )[0]!
    const good = roundTrip(list)
    expect(Snapshot.decode(good, "/db", "sqlite:/db#")).toBeDefined()
    const withNumbers = (f: (n: Float64Array) => void): Snapshot.Stored => {
      const n = new Float64Array(new Uint8Array(good[4] as Uint8Array).buffer)
      f(n)
      return [good[0], good[1], good[2], good[3], new Uint8Array(n.buffer), good[5]]
    }
    const S = Snapshot.STRIDE
    const bad: Record<string, Snapshot.Stored | undefined> = {
      "no row": undefined,
      "another format": [1, ...good.slice(1)] as unknown as Snapshot.Stored,
      "a format as text": ["1", ...good.slice(1)] as unknown as Snapshot.Stored,
      "a negative count": [good[0], good[1], good[2], -1, good[4], good[5]],
      "two entries of one session": withNumbers((n) => void (n[S] = n[0]!)),
      // their order only (listing time and `touched`), not their strings
      "entries out of order": withNumbers((n) => {
        for (const k of [1, 2]) [n[k], n[S + k]] = [n[S + k]!, n[k]!]
      }),
      "a BLOB longer than its count": [
        ...good.slice(0, 4),
        new Uint8Array([...(good[4] as Uint8Array), 0, 0, 0, 0, 0, 0, 0, 0]),
        good[5]
      ] as unknown as Snapshot.Stored,
      "a NaN listing time": withNumbers((n) => void (n[1] = Number.NaN)),
      "a sid not an integer": withNumbers((n) => void (n[0] = 1.5)),
      "a message count below zero": withNumbers((n) => void (n[5] = -1)),
      "a length not an integer": withNumbers((n) => void (n[6] = 0.5)),
      "an absent id": withNumbers((n) => void (n[6] = -1)),
      "an absent first message": withNumbers((n) => void (n[11] = -1)),
      "a length below -1": withNumbers((n) => void (n[9] = -2)),
      "a string past the text": withNumbers((n) => void (n[12] = (good[5] as string).length + 1)),
      "a first message longer than the text it starts": withNumbers((n) => {
        const i = [...Array(list.length).keys()].find((k) => n[k * S + 11]! <= -2)!
        n[i * S + 11] = -3 - n[i * S + 12]!
      }),
      "a first message of a length not an integer": withNumbers((n) => {
        const i = [...Array(list.length).keys()].find((k) => n[k * S + 11]! <= -2)!
        n[i * S + 11] = n[i * S + 11]! + 0.5
      }),
      "strings short of the text": withNumbers((n) => {
        const i = [...Array(list.length).keys()].find((k) => n[k * S + 11]! > 0)!
        n[i * S + 11] = n[i * S + 11]! - 1
      })
    }
    for (const [what, stored] of Object.entries(bad)) {
      expect(Snapshot.decode(stored, "/db", "sqlite:/db#"), what).toBeUndefined()
    }
  })
})
