import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { forStream, json, sgr, visible } from "../src/internal/safeText.js"
import * as Style from "../src/internal/style.js"

/** Every character a terminal treats as a control, but newline and tab. */
const rawControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

describe("visible", () => {
  it("shows ESC, the other C0 controls, DEL and C1 controls, and keeps newline and tab", () => {
    expect(visible("a\u001b[2Jb")).toBe("a␛[2Jb")
    expect(visible("\u001b]52;c;cHduZWQ=\u0007")).toBe("␛]52;c;cHduZWQ=␇")
    expect(visible("\u001b]0;title\u001b\\")).toBe("␛]0;title␛\\")
    expect(visible("\u0000\u0001\u0008\u000b\u000c\u001f")).toBe("␀␁␈␋␌␟")
    expect(visible("\u007f")).toBe("␡")
    expect(visible("\u0080\u009b31m\u009c\u009f")).toBe("\\x80\\x9b31m\\x9c\\x9f")
    expect(visible("one\ttwo\nthree")).toBe("one\ttwo\nthree")
  })

  it("shows a lone carriage return (it would overwrite the line) and reads CRLF as a newline", () => {
    expect(visible("safe\rEVIL")).toBe("safe␍EVIL")
    expect(visible("one\r\ntwo")).toBe("one\ntwo")
    expect(visible("\r\r\n")).toBe("␍\n")
  })

  it("leaves printable text alone, Unicode included", () => {
    expect(visible("héllo · 日本 ␛ ✓ \u00a0\u2028")).toBe("héllo · 日本 ␛ ✓ \u00a0\u2028")
  })

  it("leaves no control but newline and tab, and is idempotent, for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const shown = visible(text)
        expect(rawControl.test(shown)).toBe(false)
        expect(visible(shown)).toBe(shown)
      }),
      { numRuns: 2000 }
    )
  })
})

describe("forStream", () => {
  it("writes the command's own styling as SGR escapes where colours are allowed, and drops it elsewhere", () => {
    const text = `${Style.colours.green("*")} ${Style.colours.dim("id")}`
    expect(forStream(text, true)).toBe("\u001b[32m*\u001b[39m \u001b[2mid\u001b[22m")
    expect(forStream(text, false)).toBe("* id")
    expect(forStream(`${sgr(1)}bold${sgr(22)}`, true)).toBe("\u001b[1mbold\u001b[22m")
  })

  it("shows a session's escapes inside and around styled text, coloured or not", () => {
    const hostile = "\u001b[2J\u001b]0;t\u0007"
    const text = `${Style.colours.bold(hostile)}${hostile}`
    expect(forStream(text, true)).toBe("\u001b[1m␛[2J␛]0;t␇\u001b[22m␛[2J␛]0;t␇")
    expect(forStream(text, false)).toBe("␛[2J␛]0;t␇␛[2J␛]0;t␇")
  })

  it("cannot be fooled by text that imitates the styling mark", () => {
    // the mark's private-use delimiters, without the random token between them
    const forged = "\uE000\uE001[31m\uE000deadbeef\uE001[8m"
    expect(forStream(forged, true)).toBe(forged)
    // the only escapes in the output are those the command's own styling asked for
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const out = forStream(Style.colours.red(text), true)
        expect(out.startsWith("\u001b[31m")).toBe(true)
        expect(out.endsWith("\u001b[39m")).toBe(true)
        expect(rawControl.test(out.slice(5, -5))).toBe(false)
      }),
      { numRuns: 1000 }
    )
  })
})

describe("json", () => {
  it("writes DEL and C1 controls as \\u escapes: the same value, no raw control character", () => {
    const value = { text: "\u001b]0;t\u0007 \u007f \u009b31m \u0085", n: 1, nested: ["\u0090q\u009c"] }
    const text = json(value)
    expect(rawControl.test(text.replace(/\n/g, ""))).toBe(false)
    expect(text).toContain("\\u009b31m")
    expect(JSON.parse(text)).toEqual(value)
    expect(json(undefined)).toBe("undefined")
  })

  it("gives back the same value for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = json(value)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
        expect(rawControl.test(text.replace(/\n/g, ""))).toBe(false)
      }),
      { numRuns: 500 }
    )
  })
})
