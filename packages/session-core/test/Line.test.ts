import { describe, expect, it } from "vitest"
import * as Line from "../src/Line.js"
import { assistant, fileText, header, leaf, user } from "./support/build.js"

describe("Line.parse", () => {
  it("parses a header", () => {
    const line = Line.parse(JSON.stringify(header()))
    expect(line._tag).toBe("Header")
  })

  it("parses a canonical entry and keeps unknown fields", () => {
    const row = { ...user("a1b2c3d4", null), extra: { kept: true } }
    const line = Line.parse(JSON.stringify(row), 7, 123)
    expect(line).toMatchObject({ _tag: "Entry", line: 7, offset: 123 })
    expect(Line.serialize(line)).toBe(JSON.stringify(row))
  })

  it("parses a leaf control", () => {
    expect(Line.parse(JSON.stringify(leaf("l1", "a", "a")))._tag).toBe("LeafControl")
    expect(Line.parse(JSON.stringify(leaf("l1", null, null, { appendParentId: null })))._tag).toBe("LeafControl")
  })

  it.each([
    ["an unknown type", { type: "openclaw.delivery", id: "x", parentId: null }],
    ["a message without role", {
      type: "message",
      id: "x",
      parentId: null,
      timestamp: "t",
      message: { content: "hi" }
    }],
    ["a message with a blank role", {
      type: "message",
      id: "x",
      parentId: null,
      timestamp: "t",
      message: { role: " " }
    }],
    ["a message without message", { type: "message", id: "x", parentId: null, timestamp: "t" }],
    ["a canonical row without id", { type: "custom", parentId: null, customType: "c" }],
    ["a canonical row with a blank id", { type: "custom", id: "  ", parentId: null, customType: "c" }],
    ["a numeric parentId", { type: "custom", id: "x", parentId: 5, customType: "c" }],
    ["a numeric timestamp", { type: "custom", id: "x", parentId: null, timestamp: 5, customType: "c" }],
    ["a leaf row without targetId", { type: "leaf", id: "x", parentId: null }],
    ["a session row without id", { type: "session", version: 3 }]
  ])("keeps %s as an opaque row, byte for byte", (_, row) => {
    const raw = JSON.stringify(row).replace(/,/g, ", ")
    const line = Line.parse(raw)
    expect(line._tag).toBe("Opaque")
    expect(Line.serialize(line)).toBe(raw)
  })

  it.each([
    ["invalid JSON", "{\"type\":", "invalid JSON"],
    ["a merge marker", "<<<<<<< HEAD", "invalid JSON"],
    ["a number", "42", "not a JSON object (a number)"],
    ["null", "null", "not a JSON object (null)"],
    ["an array", "[1,2]", "not a JSON object (an array)"],
    ["a string", "\"s\"", "not a JSON object (a string)"],
    ["NUL bytes", "\u0000\u0000\u0000", "invalid JSON"]
  ])("reports %s as corrupt with its position and reason", (_, raw, reason) => {
    const line = Line.parse(raw, 3, 99)
    expect(line).toMatchObject({ _tag: "Corrupt", raw, line: 3, offset: 99 })
    expect((line as Line.CorruptLine).reason).toContain(reason)
  })

  it("treats a white-space line as blank", () => {
    expect(Line.parse("   \r")._tag).toBe("Blank")
  })
})

describe("Line.parseText", () => {
  it("numbers lines from 1 and counts byte offsets in UTF-8", () => {
    const rows = [header(), user("u1", null, "naïve café 🚀"), assistant("a1", "u1")]
    const text = fileText(...rows)
    const lines = Line.parseText(text)
    expect(lines.map((l) => l.line)).toEqual([1, 2, 3])
    const bytes = Buffer.from(text)
    for (const line of lines) {
      const end = bytes.indexOf(0x0a, line.offset)
      expect(bytes.subarray(line.offset, end).toString("utf8")).toBe(Line.serialize(line))
    }
  })

  it("reports a torn final line as corrupt and keeps it", () => {
    const text = fileText(header(), user("u1", null)) + "{\"type\":\"message\",\"id\":\"3f2a"
    const lines = Line.parseText(text)
    const last = lines[lines.length - 1]!
    expect(last).toMatchObject({ _tag: "Corrupt", line: 3, raw: "{\"type\":\"message\",\"id\":\"3f2a" })
    expect(last.offset).toBe(Buffer.byteLength(text) - Buffer.byteLength((last as Line.CorruptLine).raw))
  })

  it("does not make a line of the empty tail after the final newline", () => {
    expect(Line.parseText(fileText(header()))).toHaveLength(1)
    expect(Line.parseText("")).toEqual([])
  })
})

describe("Line.serialize", () => {
  it("omits undefined fields as JSON.stringify does", () => {
    const entry = { type: "label", id: "l1", parentId: "a", timestamp: "t", targetId: "a", label: undefined }
    expect(Line.stringify(entry as never)).toBe(
      "{\"type\":\"label\",\"id\":\"l1\",\"parentId\":\"a\",\"timestamp\":\"t\",\"targetId\":\"a\"}"
    )
  })
})
