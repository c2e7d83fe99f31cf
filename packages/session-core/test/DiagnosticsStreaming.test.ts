/**
 * The row-by-row diagnosis (`Diagnostics.accumulator`) and the whole-state one (`diagnose`) give
 * the same findings as the diagnosis of 0.1.0 (kept in `support/diagnoseReference.ts`), on the
 * shared fixtures and on random damaged sessions: duplicate ids, orphans, cycles, leaf controls,
 * labels, context edits, compactions, opaque and malformed rows, corrupt lines, extra headers.
 */
import { fixtures } from "@branchlog/tooling/fixtures"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Diagnostics from "../src/Diagnostics.js"
import * as Line from "../src/Line.js"
import * as SessionState from "../src/SessionState.js"
import * as Reference from "./support/diagnoseReference.js"

const streamed = (lines: ReadonlyArray<Line.ParsedLine>) => {
  const acc = Diagnostics.accumulator()
  for (const line of lines) acc.push(line)
  return acc.finish()
}

const agree = (text: string) => {
  const lines = Line.parseText(text)
  const expected = Reference.diagnose(SessionState.fromRecords(lines))
  expect(Diagnostics.diagnose(SessionState.fromRecords(lines))).toEqual(expected)
  expect(streamed(lines)).toEqual(expected)
  return expected
}

const ids = ["a", "b", "c", "d", "e", "f", "g", ""]
const ref = fc.oneof(fc.constantFrom(...ids), fc.constant(null), fc.constant(undefined), fc.constant(7))
const time = fc.integer({ min: 0, max: 59 }).map((s) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`)

/** One row of a damaged session, as its line's text. */
const row: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ id: ref, parentId: ref, timestamp: time, side: fc.boolean() }).map((r) =>
      JSON.stringify({
        type: "message",
        id: r.id,
        ...(r.parentId === undefined ? {} : { parentId: r.parentId }),
        timestamp: r.timestamp,
        ...(r.side ? { appendMode: "side" } : {}),
        message: { role: "user", content: "hello" }
      })
    )
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: ref, parentId: ref, target: ref, label: fc.constantFrom("x", "") }).map((r) =>
      JSON.stringify({
        type: "label",
        id: r.id,
        parentId: r.parentId,
        timestamp: "t",
        targetId: r.target,
        label: r.label
      })
    )
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: ref, parentId: ref, kept: ref }).map((r) =>
      JSON.stringify({
        type: "compaction",
        id: r.id,
        parentId: r.parentId,
        timestamp: "t",
        summary: "s",
        firstKeptEntryId: r.kept,
        tokensBefore: 1
      })
    )
  },
  {
    weight: 1,
    arbitrary: fc.record({ id: ref, parentId: ref, target: ref, valid: fc.boolean() }).map((r) =>
      JSON.stringify({
        type: "context_edit",
        id: r.id,
        parentId: r.parentId,
        timestamp: "t",
        targetId: r.target,
        replacement: r.valid ? null : 5
      })
    )
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: ref, parentId: ref, target: ref, append: ref }).map((r) =>
      JSON.stringify({
        type: "leaf",
        id: r.id,
        parentId: r.parentId,
        targetId: r.target,
        ...(r.append === undefined ? {} : { appendParentId: r.append })
      })
    )
  },
  {
    weight: 2,
    arbitrary: fc.record({ id: ref, parentId: ref }).map((r) =>
      JSON.stringify({ type: "custom_thing", id: r.id, parentId: r.parentId, data: [1, 2, 3] })
    )
  },
  {
    weight: 1,
    arbitrary: fc.record({ id: ref, version: fc.constantFrom(3, undefined) }).map((r) =>
      JSON.stringify({ type: "session", id: r.id ?? "h", version: r.version, timestamp: "t", cwd: "/" })
    )
  },
  { weight: 1, arbitrary: fc.constantFrom("not json", "{\"type\":\"mess", "[1,2]", "", "   ") }
)

const header = JSON.stringify({ type: "session", version: 3, id: "hdr", timestamp: "t", cwd: "/" })

describe("Diagnostics.accumulator", () => {
  it.each(fixtures().map((f) => [f.name, f] as const))("agrees on fixture %s", (_, fixture) => {
    agree(fixture.bytes.toString("utf8"))
  })

  it("agrees with a byte-order mark on an entry row, a header row and an opaque row", () => {
    const entry = JSON.stringify({
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "t",
      message: { role: "user", content: "x" }
    })
    expect(agree(`\ufeff${header}\n${entry}\n`).map((p) => p._tag)).toEqual(["ByteOrderMark"])
    expect(agree(`\ufeff${entry}\n${header}\n`).map((p) => p._tag)).toContain("ByteOrderMark")
    expect(agree(`\ufeff{"type":"message","id":"q"}\n`).map((p) => p._tag)).toEqual([
      "MissingHeader",
      "ByteOrderMark",
      "MalformedEntry"
    ])
  })

  it("agrees on random damaged sessions", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(row, { maxLength: 40 }), (withHeader, rows) => {
        agree([...(withHeader ? [header] : []), ...rows].join("\n"))
      }),
      { numRuns: 3000 }
    )
  })

  it("agrees on random plain sessions (unique ids, parents written before their entries: the compact tables)", () => {
    // a reference: 0 = null, 1 = "", 2 = the row's own id, 3 = an id that never comes, else an earlier (or later) row
    const pick = fc.integer({ min: 0, max: 12 })
    const plainRow = fc.record({
      kind: fc.constantFrom(
        "message",
        "message",
        "message",
        "label",
        "compaction",
        "context_edit",
        "opaque",
        "header",
        "corrupt"
      ),
      parent: pick,
      target: pick,
      back: fc.integer({ min: 1, max: 6 }),
      valid: fc.boolean()
    })
    fc.assert(
      fc.property(fc.boolean(), fc.array(plainRow, { maxLength: 60 }), (withHeader, rows) => {
        const refOf = (i: number, choice: number, back: number): string | null =>
          choice === 0 ? null : choice === 1 ? "" : choice === 2 ? `e${i}` : choice === 3 ? "zz" : choice === 12
            ? `e${i + back}` // a forward reference: the reducer takes over
            : `e${Math.max(0, i - back)}`
        const lines = rows.map((r, i) => {
          const id = `e${i}`
          const parentId = refOf(i, r.parent, r.back)
          const target = refOf(i, r.target, r.back + 1)
          switch (r.kind) {
            case "label":
              return JSON.stringify({ type: "label", id, parentId, timestamp: "t", targetId: target, label: "x" })
            case "compaction":
              return JSON.stringify({
                type: "compaction",
                id,
                parentId,
                timestamp: "t",
                summary: "s",
                firstKeptEntryId: target,
                tokensBefore: 1
              })
            case "context_edit":
              return JSON.stringify({
                type: "context_edit",
                id,
                parentId,
                timestamp: "t",
                targetId: target,
                replacement: r.valid ? null : 5
              })
            case "opaque":
              return JSON.stringify({ type: "custom_thing", id, data: [1] })
            case "header":
              return JSON.stringify({ type: "session", id: "h2", version: 3, timestamp: "t", cwd: "/" })
            case "corrupt":
              return "{\"type\":\"mess"
            default:
              return JSON.stringify({
                type: "message",
                id,
                parentId,
                timestamp: "t",
                message: { role: "user", content: "x" }
              })
          }
        })
        agree([...(withHeader ? [header] : []), ...lines].join("\n"))
      }),
      { numRuns: 2000 }
    )
  })

  it("agrees on a plain session with ids of 200,000 characters (an orphan's parent among them)", () => {
    const long = (c: string) => c.repeat(200_000)
    const row = (id: string, parentId: string | null) =>
      JSON.stringify({ type: "message", id, parentId, timestamp: "t", message: { role: "user", content: "x" } })
    const found = agree([header, row(long("a"), null), row(long("b"), long("a")), row("c", long("z"))].join("\n"))
    expect(found.map((p) => p._tag)).toEqual(["Orphan"])
  })

  it("agrees on long chains with cycles and compactions far below what they keep", () => {
    const lines = [header]
    for (let i = 0; i < 3000; i++) {
      lines.push(
        JSON.stringify({
          type: "message",
          id: `m${i}`,
          parentId: i === 0 ? null : `m${i - 1}`,
          timestamp: "t",
          message: { role: "user", content: "x" }
        })
      )
      if (i % 500 === 499) {
        lines.push(
          JSON.stringify({
            type: "compaction",
            id: `c${i}`,
            parentId: `m${i}`,
            timestamp: "t",
            summary: "s",
            firstKeptEntryId: `m${i - 400}`,
            tokensBefore: 1
          })
        )
        lines.push(
          JSON.stringify({
            type: "compaction",
            id: `k${i}`,
            parentId: `m${i}`,
            timestamp: "t",
            summary: "s",
            firstKeptEntryId: `m${i + 1}`,
            tokensBefore: 1
          })
        )
      }
    }
    lines.push(
      JSON.stringify({
        type: "message",
        id: "x",
        parentId: "y",
        timestamp: "t",
        message: { role: "user", content: "x" }
      })
    )
    lines.push(
      JSON.stringify({
        type: "message",
        id: "y",
        parentId: "x",
        timestamp: "t",
        message: { role: "user", content: "x" }
      })
    )
    expect(agree(lines.join("\n") + "\n").map((p) => p._tag)).toEqual(
      [
        "KeptEntryOffPath",
        "KeptEntryOffPath",
        "KeptEntryOffPath",
        "KeptEntryOffPath",
        "KeptEntryOffPath",
        "KeptEntryOffPath",
        "Cycle"
      ]
    )
  })
})
