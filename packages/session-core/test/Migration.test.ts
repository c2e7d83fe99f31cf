import { describe, expect, it } from "vitest"
import * as Line from "../src/Line.js"
import * as Migration from "../src/Migration.js"
import * as SessionContext from "../src/SessionContext.js"
import * as SessionState from "../src/SessionState.js"
import { fileText } from "./support/build.js"
import { counterMint } from "./support/fixtures.js"

const v1Header = { type: "session", id: "s1", timestamp: "2025-07-01T10:00:00.000Z", cwd: "/p" }
const msg = (role: string, text: string) => ({
  type: "message",
  timestamp: "2025-07-01T10:00:01.000Z",
  message: { role, content: text, timestamp: 1 }
})

const migrate = (...rows: ReadonlyArray<unknown>) => Migration.migrate(Line.parseText(fileText(...rows)), counterMint())
const entriesOf = (result: Migration.MigrationResult) =>
  result.lines.flatMap((line) => (line._tag === "Entry" ? [line.entry as unknown as Record<string, unknown>] : []))

describe("Migration v1 → v2 → v3", () => {
  it("gives every canonical row an id and the previous one as parent, and sets version 3", () => {
    const result = migrate(v1Header, msg("user", "a"), msg("assistant", "b"), msg("user", "c"))
    expect(result.changed).toBe(true)
    expect(result.fromVersion).toBe(1)
    const entries = entriesOf(result)
    expect(entries).toHaveLength(3)
    expect(entries[0]!.parentId).toBeNull()
    expect(entries[1]!.parentId).toBe(entries[0]!.id)
    expect(entries[2]!.parentId).toBe(entries[1]!.id)
    expect(new Set(entries.map((e) => e.id)).size).toBe(3)
    const header = result.lines.find((l) => l._tag === "Header") as Line.HeaderLine
    expect(header.header.version).toBe(3)
  })

  it("mints ids that are unique against the ids already taken (unlike pi)", () => {
    let calls = 0
    const colliding: Migration.MintId = (taken) => {
      calls++
      return taken.has("aaaaaaaa") ? `b${calls.toString().padStart(7, "0")}` : "aaaaaaaa"
    }
    const result = Migration.migrate(Line.parseText(fileText(v1Header, msg("user", "a"), msg("user", "b"))), colliding)
    const ids = entriesOf(result).map((e) => e.id)
    expect(new Set(ids).size).toBe(2)
  })

  it("resolves firstKeptEntryIndex to firstKeptEntryId and removes it", () => {
    const compaction = {
      type: "compaction",
      timestamp: "2025-07-01T10:00:05.000Z",
      summary: "s",
      firstKeptEntryIndex: 2,
      tokensBefore: 10
    }
    const result = migrate(v1Header, msg("user", "a"), msg("assistant", "b"), compaction, msg("user", "c"))
    const entries = entriesOf(result)
    const migrated = entries[2]!
    expect(migrated.firstKeptEntryIndex).toBeUndefined()
    expect(migrated.firstKeptEntryId).toBe(entries[1]!.id)
    const state = SessionState.fromRecords(result.lines)
    expect(SessionContext.buildSessionContext(state).messages.map((m) => m.role)).toEqual([
      "compactionSummary",
      "assistant",
      "user"
    ])
  })

  it("drops a firstKeptEntryIndex that names the header or nothing", () => {
    const atHeader = { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: 0, tokensBefore: 1 }
    const outOfRange = { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: 99, tokensBefore: 1 }
    const entries = entriesOf(migrate(v1Header, msg("user", "a"), atHeader, outOfRange))
    expect(Object.hasOwn(entries[1]!, "firstKeptEntryIndex")).toBe(false)
    expect(Object.hasOwn(entries[1]!, "firstKeptEntryId")).toBe(false)
    expect(Object.hasOwn(entries[2]!, "firstKeptEntryId")).toBe(false)
  })

  it("counts opaque rows as positions but skips unparseable lines", () => {
    const compaction = { type: "compaction", timestamp: "t", summary: "s", firstKeptEntryIndex: 3, tokensBefore: 1 }
    const result = migrate(
      v1Header,
      "not json",
      msg("user", "a"),
      { type: "x.other", data: 1 },
      msg("user", "b"),
      compaction
    )
    const entries = entriesOf(result)
    expect(entries.map((e) => e.type)).toEqual(["message", "message", "compaction"])
    expect(entries[2]!.firstKeptEntryId).toBe(entries[1]!.id)
    expect(result.lines.some((l) => l._tag === "Opaque")).toBe(true)
    expect(result.lines.some((l) => l._tag === "Corrupt")).toBe(true)
  })

  it("renames the hookMessage role to custom in v2 files, keeping ids and key order", () => {
    const v2 = { ...v1Header, version: 2 }
    const hook = {
      type: "message",
      id: "h1",
      parentId: null,
      timestamp: "t",
      message: { role: "hookMessage", customType: "reminder", content: "x", display: true, timestamp: 1 }
    }
    const result = migrate(v2, hook)
    const [entry] = entriesOf(result)
    expect(entry!.id).toBe("h1")
    expect(JSON.stringify(entry)).toBe(JSON.stringify(hook).replace("hookMessage", "custom"))
  })

  it("keeps id-less canonical rows of a v2 file opaque", () => {
    const result = migrate({ ...v1Header, version: 2 }, msg("user", "a"))
    expect(result.lines.map((l) => l._tag)).toEqual(["Header", "Opaque"])
  })

  it("leaves version 3 and later, and files without a header, as they are", () => {
    for (const version of [3, 4]) {
      const lines = Line.parseText(fileText({ ...v1Header, version }, { ...msg("user", "a"), id: "a", parentId: null }))
      const result = Migration.migrate(lines, counterMint())
      expect(result.changed).toBe(false)
      expect(result.lines).toBe(lines)
    }
    expect(migrate(msg("user", "a")).changed).toBe(false)
  })

  it("does not mutate its input", () => {
    const lines = Line.parseText(fileText(v1Header, msg("user", "a")))
    const before = JSON.stringify(lines)
    Migration.migrate(lines, counterMint())
    expect(JSON.stringify(lines)).toBe(before)
  })
})
