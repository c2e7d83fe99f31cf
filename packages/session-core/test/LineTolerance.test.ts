// What the references tolerate around a line (they trim the whole file, split it on "\n" and
// JSON.parse each line): a byte-order mark and other white space at the start of the file, CRLF
// line ends and white space around any line. Each such line keeps its text byte for byte.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Diagnostics from "../src/Diagnostics.js"
import * as JsonView from "../src/JsonView.js"
import * as Line from "../src/Line.js"
import * as Migration from "../src/Migration.js"
import * as SessionState from "../src/SessionState.js"
import { assistant, header, user } from "./support/build.js"
import { counterMint } from "./support/fixtures.js"

const BOM = "\uFEFF"
const rows = [header(), user("a", null), assistant("b", "a")]
const lines = rows.map((row) => JSON.stringify(row))
const tags = (text: string) => Line.parseText(text).map((l) => l._tag)

describe("a byte-order mark", () => {
  const text = BOM + lines.join("\n") + "\n"

  it("at the start of the file: the first line is the header, and the session opens whole", () => {
    expect(tags(text)).toEqual(["Header", "Entry", "Entry"])
    const { state } = SessionState.fromText(text, counterMint())
    expect(JsonView.info(state)).toMatchObject({ id: "sess-1", entries: 2, leafId: "b" })
    expect(SessionState.headerIsFirst(state)).toBe(true)
  })

  it("is kept: every line serialises back to its bytes, BOM included", () => {
    const parsed = Line.parseText(text)
    expect(parsed.map(Line.serialize).join("\n") + "\n").toBe(text)
    expect(Line.hasByteOrderMark(parsed[0]!)).toBe(true)
    expect(Line.hasByteOrderMark(parsed[1]!)).toBe(false)
  })

  it("counts its three bytes in the offsets of the lines after it", () => {
    const parsed = Line.parseText(text)
    expect(parsed[1]!.offset).toBe(3 + Buffer.byteLength(lines[0]!) + 1)
  })

  it("on a later line makes that line corrupt (the references skip it)", () => {
    const late = lines[0] + "\n" + BOM + lines[1] + "\n" + lines[2] + "\n"
    expect(tags(late)).toEqual(["Header", "Corrupt", "Entry"])
  })

  it("alone on the first line is a blank line (the references skip it)", () => {
    expect(tags(BOM + "\n" + lines.join("\n") + "\n")).toEqual(["Blank", "Header", "Entry", "Entry"])
  })

  it("before any JSON object at the start is ignored: an opaque or corrupt first row keeps it in its text", () => {
    const opaque = Line.parse(BOM + "{\"type\":\"other\"}", 1, 0)
    expect(opaque._tag).toBe("Opaque")
    expect(Line.serialize(opaque)).toBe(BOM + "{\"type\":\"other\"}")
    const corrupt = Line.parse(BOM + "nope", 1, 0)
    expect(corrupt._tag).toBe("Corrupt")
    expect(Line.hasByteOrderMark(corrupt)).toBe(true)
  })

  it("is reported by fsck as a warning on line 1, offset 0", () => {
    const problems = Diagnostics.diagnose(SessionState.fromText(text, counterMint()).state)
    expect(problems).toEqual([{ _tag: "ByteOrderMark", line: 1, offset: 0 }])
    expect(Diagnostics.severity(problems[0]!)).toBe("warning")
    expect(Diagnostics.diagnose(SessionState.fromText(lines.join("\n") + "\n", counterMint()).state)).toEqual([])
  })

  it("is removed by withoutByteOrderMark, and nothing else is", () => {
    expect(Line.withoutByteOrderMark(BOM + lines[0])).toBe(lines[0])
    expect(Line.withoutByteOrderMark(lines[0]!)).toBe(lines[0])
  })
})

describe("other white space around a line", () => {
  it("CRLF line ends: every line is read, and keeps its \\r", () => {
    const text = lines.join("\r\n") + "\r\n"
    expect(tags(text)).toEqual(["Header", "Entry", "Entry"])
    expect(Line.parseText(text).map(Line.serialize)).toEqual(lines.map((l) => l + "\r"))
    expect(JsonView.info(SessionState.fromText(text, counterMint()).state)).toMatchObject({ entries: 2 })
  })

  it("spaces and tabs around any line are read and kept", () => {
    const padded = lines.map((l) => " \t" + l + "  ")
    const text = padded.join("\n") + "\n"
    expect(tags(text)).toEqual(["Header", "Entry", "Entry"])
    expect(Line.parseText(text).map(Line.serialize)).toEqual(padded)
  })

  it("other leading white space is tolerated at the start of the file only, as the references' trim does", () => {
    expect(Line.parse("\u00a0" + lines[0], 1, 0)._tag).toBe("Header")
    expect(Line.parse("\u00a0" + lines[1], 2, 100)._tag).toBe("Corrupt")
  })

  it("a line the codec re-serialises (a migrated header) is written afresh, not with the old text", () => {
    const v2 = [JSON.stringify({ ...header(), version: 2 }), lines[1]!]
    const migrated = Migration.migrate(Line.parseText(BOM + v2.join("\r\n") + "\r\n"), counterMint())
    const first = Line.serialize(migrated.lines[0]!)
    expect(JSON.parse(first)).toMatchObject({ version: 3 })
    expect(first.startsWith("{")).toBe(true)
    expect(Line.serialize(migrated.lines[1]!)).toBe(lines[1] + "\r") // unchanged rows keep their text
  })

  it("property: any mix of CRLF, padding and a BOM at the start reads as the plain file and gives back its bytes", () => {
    const pad = fc.constantFrom("", " ", "\t", "  \t")
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.tuple(pad, pad, fc.boolean()), { minLength: 3, maxLength: 3 }),
        (bom, ps) => {
          const text = (bom ? BOM : "") +
            lines.map((l, i) => ps[i]![0] + l + ps[i]![1] + (ps[i]![2] ? "\r" : "")).join("\n") + "\n"
          const parsed = Line.parseText(text)
          expect(parsed.map((l) => l._tag)).toEqual(["Header", "Entry", "Entry"])
          expect(parsed.map(Line.serialize).join("\n") + "\n").toBe(text)
          const state = SessionState.fromRecords(parsed)
          expect(JsonView.tree(state)).toEqual(
            JsonView.tree(SessionState.fromRecords(Line.parseText(lines.join("\n"))))
          )
        }
      ),
      { numRuns: 200 }
    )
  })
})
