// The typed entry constructors: each builds the exact union member, and the line it gives is the
// line the references wrote (every row of the reference fixtures, rebuilt from its fields, is the
// same bytes; pi 1.6's kinds against the pi 1.6 fixtures).
import { fixtures } from "@branchlog/tooling/fixtures"
import * as Schema from "effect/Schema"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Entry, Line } from "../src/index.js"

type Row = Record<string, any>

const base = (row: Row): Entry.Base => ({
  id: row.id,
  parentId: row.parentId,
  timestamp: row.timestamp,
  ...(row.appendMode === undefined ? {} : { appendMode: row.appendMode })
})

/** The row rebuilt through its constructor, from its fields. */
const rebuild = (row: Row): Entry.Entry | Entry.LeafControl | Entry.SessionHeader | undefined => {
  switch (row.type) {
    case "session":
      return Entry.makeHeader({
        id: row.id,
        timestamp: row.timestamp,
        cwd: row.cwd,
        version: row.version,
        parentSession: row.parentSession
      })
    case "message":
      return Entry.makeMessage({ ...base(row), message: row.message })
    case "thinking_level_change":
      return Entry.makeThinkingLevelChange({ ...base(row), thinkingLevel: row.thinkingLevel })
    case "model_change":
      return Entry.makeModelChange({ ...base(row), provider: row.provider, modelId: row.modelId })
    case "compaction":
      return Entry.makeCompaction({
        ...base(row),
        summary: row.summary,
        firstKeptEntryId: row.firstKeptEntryId,
        tokensBefore: row.tokensBefore,
        details: row.details,
        usage: row.usage,
        fromHook: row.fromHook,
        systemMessage: row.systemMessage
      })
    case "branch_summary":
      return Entry.makeBranchSummary({
        ...base(row),
        fromId: row.fromId,
        summary: row.summary,
        details: row.details,
        usage: row.usage,
        fromHook: row.fromHook
      })
    case "custom":
      return Entry.makeCustom({ ...base(row), customType: row.customType, data: row.data })
    case "custom_message":
      return Entry.makeCustomMessage({
        ...base(row),
        customType: row.customType,
        content: row.content,
        display: row.display,
        details: row.details
      })
    case "label":
      return Entry.makeLabel({ ...base(row), targetId: row.targetId, label: row.label })
    case "session_info":
      return Entry.makeSessionInfo({ ...base(row), name: row.name })
    case "usage":
      return Entry.makeUsage({
        ...base(row),
        kind: row.kind,
        provider: row.provider,
        model: row.model,
        usage: row.usage,
        note: row.note
      })
    case "context_edit":
      return Entry.makeContextEdit({ ...base(row), targetId: row.targetId, replacement: row.replacement })
    case "leaf":
      return Entry.makeLeafControl({ ...base(row), targetId: row.targetId, appendParentId: row.appendParentId })
    default:
      return undefined
  }
}

/** The rows of a file that are headers, entries or leaf controls, as their lines. */
const rowsOf = (text: string) =>
  Line.parseText(text).flatMap((line) =>
    line._tag === "Header" || line._tag === "Entry" || line._tag === "LeafControl" ? [Line.serialize(line)] : []
  )

const reference = fixtures().filter((f) => !f.name.startsWith("differential-"))
const referenceRows = reference.flatMap((f) => rowsOf(f.bytes.toString("utf8")).map((line) => ({ file: f.name, line })))

describe("the constructors against the references' lines", () => {
  it("rebuild every header, entry and leaf control of the reference fixtures byte for byte", () => {
    const kinds = new Set<string>()
    for (const { file, line } of referenceRows) {
      const row = JSON.parse(line) as Row
      // a v1 header has no version: the constructors build current rows (a header always has one)
      if (row.type === "session" && row.version === undefined) continue
      kinds.add(row.type)
      expect([file, JSON.stringify(rebuild(row))]).toEqual([file, line])
    }
    // every kind the references write is covered (usage and context_edit are pi 1.6's, below)
    for (const kind of [...Entry.entryTypes.filter((t) => t !== "usage" && t !== "context_edit"), "session", "leaf"]) {
      expect(kinds.has(kind), kind).toBe(true)
    }
  })

  it("rebuild pi 1.6's usage, context edits, compactions and branch summaries byte for byte", () => {
    const dir = join(import.meta.dirname, "fixtures", "pi16")
    const kinds = new Set<string>()
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of rowsOf(readFileSync(join(dir, name), "utf8"))) {
        const row = JSON.parse(line) as Row
        // these files are crafted (craft.mjs); only the kinds pi 1.6 defines or extends keep its order
        if (!["usage", "context_edit", "compaction", "branch_summary"].includes(row.type)) continue
        kinds.add(row.type)
        expect([name, JSON.stringify(rebuild(row))]).toEqual([name, line])
      }
    }
    expect([...kinds].sort()).toEqual(["branch_summary", "compaction", "context_edit", "usage"])
  })
})

const at = { id: "a1b2c3d4", parentId: null, timestamp: "2026-05-01T09:00:00.000Z" }

describe("each constructor", () => {
  it("gives the exact union member: its type narrows without a cast", () => {
    const message = Entry.makeMessage({ ...at, message: { role: "user", content: "hi", timestamp: 1 } })
    const label: Entry.LabelEntry = Entry.makeLabel({ ...at, targetId: "x", label: "l" })
    const entries: ReadonlyArray<Entry.Entry> = [message, label]
    expect(entries.map((e) => e.type)).toEqual(["message", "label"])
    // the literal type is kept: a message's `message` is reachable without narrowing
    expect(message.message.role).toBe("user")
  })

  it("decodes with the Entry schema, for every kind", () => {
    const usage = {
      input: 1,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 3,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
    }
    const built: ReadonlyArray<Entry.Entry> = [
      Entry.makeMessage({ ...at, message: { role: "user", content: "hi", timestamp: 1 } }),
      Entry.makeThinkingLevelChange({ ...at, thinkingLevel: "high" }),
      Entry.makeModelChange({ ...at, provider: "openai", modelId: "gpt" }),
      Entry.makeCompaction({ ...at, summary: "s", firstKeptEntryId: null, tokensBefore: 10, usage }),
      Entry.makeBranchSummary({ ...at, fromId: "root", summary: "s" }),
      Entry.makeCustom({ ...at, customType: "ext" }),
      Entry.makeCustomMessage({ ...at, customType: "ext", content: "c", display: true }),
      Entry.makeLabel({ ...at, targetId: "x" }),
      Entry.makeSessionInfo({ ...at, name: "n" }),
      Entry.makeUsage({ ...at, kind: "cache_warm", provider: "p", model: "m", usage }),
      Entry.makeContextEdit({ ...at, targetId: "x", replacement: { content: "new" } })
    ]
    expect(built.map((e) => e.type)).toEqual(Entry.entryTypes)
    for (const entry of built) expect(Schema.decodeUnknownSync(Entry.Entry)(entry)).toEqual(entry)
    expect(Schema.decodeUnknownSync(Entry.LeafControl)(Entry.makeLeafControl({ ...at, targetId: null }))).toBeDefined()
    expect(
      Schema.decodeUnknownSync(Entry.SessionHeader)(Entry.makeHeader({ id: "s", timestamp: at.timestamp, cwd: "/w" }))
    )
      .toBeDefined()
  })

  it("leaves optional fields absent, not undefined, and puts appendMode last", () => {
    const cleared = Entry.makeLabel({ ...at, targetId: "x", label: undefined })
    expect(Object.keys(cleared)).toEqual(["type", "id", "parentId", "timestamp", "targetId"])
    const compaction = Entry.makeCompaction({
      ...at,
      summary: "s",
      firstKeptEntryId: "k",
      tokensBefore: 1,
      details: undefined,
      fromHook: undefined
    })
    expect(Object.keys(compaction)).toEqual([
      "type",
      "id",
      "parentId",
      "timestamp",
      "summary",
      "firstKeptEntryId",
      "tokensBefore"
    ])
    const side = Entry.makeMessage({ ...at, appendMode: "side", message: { role: "user", content: "x", timestamp: 1 } })
    expect(Object.keys(side).at(-1)).toBe("appendMode")
    expect(Object.keys(Entry.makeCustom({ ...at, customType: "t", data: { a: 1 } }))).toEqual([
      "type",
      "customType",
      "data",
      "id",
      "parentId",
      "timestamp"
    ])
  })

  it("builds a header of the current version unless told, and a parentSession when given", () => {
    expect(Line.stringify(Entry.makeHeader({ id: "s", timestamp: at.timestamp, cwd: "/w" }))).toBe(
      `{"type":"session","version":3,"id":"s","timestamp":"2026-05-01T09:00:00.000Z","cwd":"/w"}`
    )
    expect(Entry.makeHeader({ id: "s", timestamp: at.timestamp, cwd: "/w", version: 2, parentSession: "/p.jsonl" }))
      .toEqual({ type: "session", version: 2, id: "s", timestamp: at.timestamp, cwd: "/w", parentSession: "/p.jsonl" })
  })

  it("round-trips through the line codec as the kind it built", () => {
    const leaf = Entry.makeLeafControl({ ...at, parentId: "p", targetId: "t", appendParentId: "p", appendMode: "side" })
    expect(Line.parse(Line.stringify(leaf))).toMatchObject({ _tag: "LeafControl", control: leaf })
    const edit = Entry.makeContextEdit({ ...at, targetId: "t", replacement: null })
    expect(Line.parse(Line.stringify(edit))).toMatchObject({ _tag: "Entry", entry: edit })
    expect(Line.parse(Line.stringify(Entry.makeHeader({ id: "s", timestamp: at.timestamp, cwd: "/w" })))._tag).toBe(
      "Header"
    )
  })
})
