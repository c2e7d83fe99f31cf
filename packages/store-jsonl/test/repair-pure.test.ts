/**
 * The pure half of `Repair`: rows in, findings, a plan and the repaired rows out, with no I/O and
 * no use of byte offsets beyond reporting them (what a store of rows will run), and the rows it
 * gives are what the streamed repair of the same file writes.
 */
import { Entry, Line } from "@branchlog/session-core"
import * as IdSource from "@branchlog/session-store/IdSource"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Repair from "../src/Repair.js"
import * as SessionStore from "../src/SessionStore.js"

const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/p"
})
const entry = (id: string, parentId: string | null) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "t",
    message: { role: "user", content: id, timestamp: 1 }
  })
const lines = (...rows: ReadonlyArray<string>) => rows.join("\n") + "\n"
const BOM = "\uFEFF"

/** The rows of a text, as a file backend reads them. */
const rowsOf = (text: string): Repair.Rows => ({
  lines: Line.parseText(text),
  terminated: text.endsWith("\n") || text === ""
})

const newHeader = Entry.makeHeader({ id: "new", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" })

const damaged: ReadonlyArray<readonly [string, string]> = [
  ["a corrupt line", lines(header, entry("a", null), "garbage", entry("b", "a"))],
  ["a torn tail", lines(header, entry("a", null)) + "{\"type\":\"mess"],
  ["no header", lines(entry("a", null), entry("b", "a"))],
  ["a late and a duplicate header", lines(entry("a", null), header, entry("b", "a"), header)],
  [
    "a byte-order mark, blank lines, no final newline",
    BOM + lines(header, "", entry("a", null), " ") + entry("b", "a")
  ],
  ["a corrupt first line with a byte-order mark", BOM + lines("garbage", header, entry("a", null))],
  [
    "CRLF line ends and an opaque row",
    `${header}\r\n${entry("a", null)}\r\n{"type":"x.y","id":"o","parentId":"a"}\n{bad\n`
  ],
  ["only garbage", "garbage\n"]
]

describe("Repair's pure half", () => {
  it("diagnoses rows without reading anything: the findings of the rows as parsed", () => {
    const diagnosis = Repair.diagnose(rowsOf(lines(header, entry("a", "ghost"), "garbage") + "{\"torn"))
    expect(diagnosis.findings.map((f) => [f._tag, Repair.position(f)?.line])).toEqual([
      ["Orphan", 2],
      ["CorruptLine", 3],
      ["TornTail", 4]
    ])
    expect(diagnosis.version).toBe(3)
    expect(diagnosis.terminated).toBe(false)
  })

  it("uses byte offsets only to report them: rows with no offsets give the same findings and the same plan", () => {
    for (const [name, text] of damaged) {
      const real = rowsOf(text)
      const noOffsets: Repair.Rows = { ...real, lines: real.lines.map((line) => ({ ...line, offset: 0 })) }
      const a = Repair.diagnose(real)
      const b = Repair.diagnose(noOffsets)
      const strip = (findings: ReadonlyArray<Repair.Finding>) => findings.map((f) => ({ ...f, offset: 0 }))
      expect([name, strip(b.findings)]).toEqual([name, strip(a.findings)])
      const planA = Repair.plan(a, { header: () => newHeader })
      const planB = Repair.plan(b, { header: () => newHeader })
      expect([name, { ...planB, fixes: strip(planB.fixes) }]).toEqual([name, { ...planA, fixes: strip(planA.fixes) }])
    }
  })

  it("a row store's rows (all terminated) have no torn tail nor missing newline", () => {
    const diagnosis = Repair.diagnose({
      lines: Line.parseText(lines(header, entry("a", null), "{\"torn")),
      terminated: true
    })
    expect(diagnosis.findings.map((f) => f._tag)).toEqual(["CorruptLine"])
  })

  it("plans by line number: moved, dropped, and the header's fate; asks for a header only when there is none", () => {
    let asked = 0
    const header_ = () => {
      asked++
      return newHeader
    }
    const text = lines(entry("a", null), "", header, "garbage", header)
    const planned = Repair.plan(Repair.diagnose(rowsOf(text)), { header: header_ })
    expect(asked).toBe(0)
    expect([...planned.moved]).toEqual([4, 5])
    expect([...planned.dropped]).toEqual([2])
    expect(planned.header).toEqual({ _tag: "Moved", line: 3, text: header })
    expect([1, 2, 3, 4, 5].map((n) => Repair.disposition(planned, n))).toEqual(["keep", "drop", "drop", "move", "move"])
    const none = Repair.plan(Repair.diagnose(rowsOf(lines(entry("a", null)))), { header: header_ })
    expect(asked).toBe(1)
    expect(none.header).toEqual({ _tag: "Created", header: newHeader, text: Line.stringify(newHeader) })
    expect(Repair.plan(Repair.diagnose(rowsOf(lines(header, entry("a", null)))), { header: header_ }).fixes).toEqual([])
  })

  it("mints the ids of an in-memory migration deterministically (never written)", () => {
    const v1 = lines(
      JSON.stringify({ type: "session", id: "o", timestamp: "t", cwd: "/w" }),
      JSON.stringify({ type: "message", timestamp: "t", message: { role: "user", content: "hi" } })
    )
    const a = Repair.diagnose(rowsOf(v1))
    expect(a.findings.map((f) => f._tag)).toEqual(["OldVersion"])
    expect(a.state.entries.map((e) => e.id)).toEqual(["00000001"])
    expect(Repair.diagnose(rowsOf(v1), { mintId: () => "cafe0001" }).state.entries.map((e) => e.id)).toEqual([
      "cafe0001"
    ])
  })

  it.effect("applied to rows, gives exactly what the streamed repair of the file writes, and what it moves aside", () =>
    Effect.gen(function*() {
      for (const [name, text] of damaged) {
        const volume = MemoryFileSystem.make()
        volume.mkdir("/s")
        volume.writeFile("/s/f.jsonl", text)
        const outcome = yield* Repair.repair("/s/f.jsonl", { cwd: "/w" }).pipe(
          Effect.provide(SessionStore.layerMemory(volume)),
          Effect.provide(IdSource.deterministic(3))
        )
        if (outcome._tag !== "Repaired") return expect.unreachable(name)
        const diagnosis = Repair.diagnose(rowsOf(text))
        const created = outcome.header._tag === "Created" ? outcome.header.header : newHeader
        const applied = Repair.apply(diagnosis.lines, Repair.plan(diagnosis, { header: () => created }))
        const written = applied.rows.map((row) => Line.serialize(row) + "\n").join("")
        expect([name, written]).toEqual([name, volume.readText("/s/f.jsonl")])
        const sidecar = volume.list("/s").find((n) => n.includes(".removed-"))
        const removed = applied.removed.map((row) => Line.serialize(row) + "\n").join("")
        expect([name, removed]).toEqual([name, sidecar === undefined ? "" : volume.readText(`/s/${sidecar}`)])
      }
    }))
})
