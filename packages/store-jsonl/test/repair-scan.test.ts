/**
 * `Repair.scan` (one streamed pass, entries reduced to id, parent and type) gives the findings,
 * the version and the repair plan of `Repair.check` (every row parsed and held), on the shared
 * fixtures and on random damaged files: corrupt lines, a torn tail, blank lines, a byte-order
 * mark, late and extra headers, invalid UTF-8, orphans, cycles, duplicate ids, leaf controls.
 */
import * as IdSource from "@branchlog/session-store/IdSource"
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Repair from "../src/Repair.js"
import * as SessionStore from "../src/SessionStore.js"

const header = () => JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/p" })

/** The check and the scan of `content`, written as a file on a fresh in-memory volume. */
const both = (content: string | Uint8Array) => {
  const volume = MemoryFileSystem.make()
  volume.mkdir("/s")
  volume.writeFile("/s/f.jsonl", content)
  return Effect.all([Repair.check("/s/f.jsonl"), Repair.scan("/s/f.jsonl")]).pipe(
    Effect.provide(SessionStore.layerMemory(volume)),
    Effect.provide(IdSource.deterministic(3)),
    Effect.runSync
  )
}

const noHeader = () => {
  throw new Error("unused")
}
const planOf = (found: Repair.Scanned) => {
  if (found.state.header === undefined) return "created"
  const plan = Repair.plan(found, { header: noHeader })
  return { header: plan.header, moved: [...plan.moved], dropped: [...plan.dropped], fixes: plan.fixes }
}

const agree = (content: string | Uint8Array) => {
  const [checked, scanned] = both(content)
  expect(scanned.findings).toEqual(checked.findings)
  expect(scanned.version).toEqual(checked.version)
  expect(scanned.terminated).toEqual(checked.terminated)
  expect(planOf(scanned)).toEqual(planOf(checked))
  return scanned
}

const ids = ["a", "b", "c", "d", ""]
const ref = fc.oneof(fc.constantFrom(...ids), fc.constant(null))
const row = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ id: ref, parentId: ref }).map((r) =>
      JSON.stringify({ type: "message", ...r, timestamp: "t", message: { role: "user", content: "hi" } })
    )
  },
  {
    weight: 1,
    arbitrary: fc.record({ id: ref, parentId: ref, targetId: ref }).map((r) => JSON.stringify({ type: "leaf", ...r }))
  },
  {
    weight: 1,
    arbitrary: fc.record({ id: ref, parentId: ref, targetId: ref }).map((r) =>
      JSON.stringify({ type: "label", ...r, timestamp: "t", label: "x" })
    )
  },
  { weight: 1, arbitrary: fc.record({ id: ref, parentId: ref }).map((r) => JSON.stringify({ type: "other", ...r })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(header(), "not json", "", "  ", "{\"type\":\"mess", "\r", "\uFEFF" + header())
  }
)

describe("Repair.scan", () => {
  it.each(fixtures().map((f) => [f.name, f] as const))("agrees with check on fixture %s", (_, fixture) => {
    agree(fixture.bytes)
  })

  it("checks an old version whole (its in-memory migration), as check does", () => {
    const scanned = agree(fixtures().find((f) => f.name === "legacy-v1")!.bytes)
    expect(scanned.findings.map((f) => f._tag)).toContain("OldVersion")
  })

  it("agrees with check on invalid UTF-8 and a torn tail", () => {
    const bytes = Buffer.concat([
      Buffer.from(
        `${header()}\n{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"`
      ),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`"}}\n{"type":"mess`)
    ])
    expect(agree(bytes).findings.map((f) => f._tag)).toEqual(["TornTail", "InvalidUtf8"])
  })

  it("agrees with check on random damaged files", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(row, { maxLength: 25 }), fc.boolean(), (first, rows, ended) => {
        const text = [...(first ? [header()] : []), ...rows].join("\n")
        agree(ended ? text + "\n" : text)
      }),
      { numRuns: 400 }
    )
  })
})
