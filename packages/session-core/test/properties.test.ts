import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Entry from "../src/Entry.js"
import { classify } from "../src/internal/classify.js"
import * as JsonView from "../src/JsonView.js"
import * as Line from "../src/Line.js"
import * as SessionContext from "../src/SessionContext.js"
import * as SessionState from "../src/SessionState.js"
import * as Tree from "../src/Tree.js"
import { fileText, header } from "./support/build.js"

describe("property: the line codec", () => {
  it("(a) gives back the same bytes for every generated entry, and reads it as an entry", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Entry.Entry), (entry) => {
        const text = JSON.stringify(entry)
        const parsed = Line.parse(text)
        expect(parsed._tag).toBe("Entry")
        expect(Line.serialize(parsed)).toBe(text)
      }),
      { numRuns: 300 }
    )
  })

  it("gives back the same bytes for every JSON object line, whatever it holds", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const text = JSON.stringify(value)
        expect(Line.serialize(Line.parse(text))).toBe(text)
      }),
      { numRuns: 300 }
    )
  })

  it("classifies exactly as the EntryEnvelope and LeafControlEnvelope schemas say", () => {
    const isEntry = Schema.is(Line.EntryEnvelope)
    const isLeaf = Schema.is(Line.LeafControlEnvelope)
    const ref = fc.oneof(fc.constant(null), fc.constantFrom("", " ", "a", "abc12345"), fc.integer(), fc.boolean())
    const row = fc.record(
      {
        type: fc.constantFrom(...Entry.entryTypes, "leaf", "session", "other", 5),
        id: ref,
        parentId: ref,
        targetId: ref,
        appendParentId: ref,
        timestamp: fc.oneof(fc.string(), fc.integer()),
        message: fc.oneof(
          fc.constant(null),
          fc.string(),
          fc.record({ role: ref }, { requiredKeys: [] }),
          fc.array(fc.integer())
        )
      },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(row, (value) => {
        const kind = classify(value as Record<string, unknown>)
        expect(kind === "entry").toBe(isEntry(value))
        expect(kind === "leaf").toBe(isLeaf(value))
      }),
      { numRuns: 2000 }
    )
  })
})

/** A random forest: ids e0…e(n-1); each parent is null, an earlier id, or (with `wild`) anything. */
const forest = (wild: boolean) =>
  fc.integer({ min: 1, max: 60 }).chain((n) =>
    fc.tuple(
      fc.array(
        fc.record({
          parent: wild
            ? fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: n + 2 }))
            : fc.integer({ min: -1, max: n - 1 }),
          kind: fc.integer({ min: 0, max: 9 }),
          keep: fc.integer({ min: 0, max: n - 1 }),
          text: fc.constantFrom("", "a", "b", "summary"),
          second: fc.integer({ min: 0, max: 59 })
        }),
        { minLength: n, maxLength: n }
      ),
      fc.oneof(
        fc.constant<string | null | undefined>(undefined),
        fc.constant(null),
        fc.integer({ min: 0, max: n + 1 }).map((i) => `e${i}`)
      )
    )
  )

type Spec = { parent: number; kind: number; keep: number; text: string; second: number }

const rowsOf = (specs: ReadonlyArray<Spec>, earlierOnly: boolean) =>
  specs.map((spec, i) => {
    const parentId = spec.parent === -1 || (earlierOnly && spec.parent >= i) ? null : `e${spec.parent}`
    const base = { id: `e${i}`, parentId, timestamp: `2026-01-01T00:00:${String(spec.second).padStart(2, "0")}.000Z` }
    switch (spec.kind) {
      case 0:
        return { type: "message", ...base, message: { role: "user", content: `u${i}`, timestamp: i } }
      case 1:
        return {
          type: "message",
          ...base,
          message: { role: "assistant", content: [], provider: "p", model: `m${i}`, timestamp: i }
        }
      case 2:
        return { type: "thinking_level_change", ...base, thinkingLevel: `level${i}` }
      case 3:
        return { type: "model_change", ...base, provider: "q", modelId: `model${i}` }
      case 4:
        return { type: "compaction", ...base, summary: `c${i}`, firstKeptEntryId: `e${spec.keep}`, tokensBefore: i }
      case 5:
        return { type: "branch_summary", ...base, fromId: "root", summary: spec.text }
      case 6:
        return { type: "custom", ...base, customType: "t" }
      case 7:
        return { type: "custom_message", ...base, customType: "t", content: spec.text, display: true }
      case 8:
        return { type: "label", ...base, targetId: `e${spec.keep}`, label: spec.text }
      default:
        return { type: "session_info", ...base, name: spec.text }
    }
  })

/** The spec's §5, written as plainly as possible. */
const naiveContext = (entries: ReadonlyArray<any>, leafId: string | null | undefined) => {
  if (leafId === null || entries.length === 0) return { messages: [], thinkingLevel: "off", model: null }
  const byId = new Map(entries.map((e) => [e.id, e]))
  let leaf = leafId === undefined ? entries[entries.length - 1] : byId.get(leafId) ?? entries[entries.length - 1]
  const path: Array<any> = []
  const seen = new Set()
  while (leaf && !seen.has(leaf.id)) {
    seen.add(leaf.id)
    path.unshift(leaf)
    leaf = leaf.parentId === null ? undefined : byId.get(leaf.parentId)
  }
  let thinkingLevel = "off"
  let model: any = null
  let compaction: any = null
  for (const e of path) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel
    if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId }
    if (e.type === "message" && e.message.role === "assistant") {
      model = { provider: e.message.provider, modelId: e.message.model }
    }
    if (e.type === "compaction") compaction = e
  }
  const toMessage = (e: any) => {
    if (e.type === "message") return [e.message]
    if (e.type === "custom_message") {
      return [{
        role: "custom",
        customType: e.customType,
        content: e.content,
        display: e.display,
        details: e.details,
        timestamp: Date.parse(e.timestamp)
      }]
    }
    if (e.type === "branch_summary" && e.summary) {
      return [{ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: Date.parse(e.timestamp) }]
    }
    return []
  }
  const messages: Array<any> = []
  if (compaction === null) { for (const e of path) messages.push(...toMessage(e)) }
  else {
    messages.push({
      role: "compactionSummary",
      summary: compaction.summary,
      tokensBefore: compaction.tokensBefore,
      timestamp: Date.parse(compaction.timestamp)
    })
    const at = path.indexOf(compaction)
    const keptFrom = path.findIndex((e) => e.id === compaction.firstKeptEntryId)
    if (keptFrom !== -1 && keptFrom < at) { for (const e of path.slice(keptFrom, at)) messages.push(...toMessage(e)) }
    for (const e of path.slice(at + 1)) messages.push(...toMessage(e))
  }
  return { messages, thinkingLevel, model }
}

describe("property: the reducer and its queries", () => {
  it("(b) buildSessionContext equals a naive implementation of the spec on random trees and leaves", () => {
    fc.assert(
      fc.property(forest(false), ([specs, leaf]) => {
        const rows = rowsOf(specs, true)
        const state = stateOfRows(rows)
        const expected = naiveContext(rows, leaf === undefined ? state.leafId : leaf)
        expect(JSON.parse(JSON.stringify(SessionContext.buildSessionContext(state, leaf)))).toEqual(
          JSON.parse(JSON.stringify(expected))
        )
      }),
      { numRuns: 500 }
    )
  })

  it("(c) getTree visits every entry whose parents lead to a root exactly once, and no other", () => {
    fc.assert(
      fc.property(forest(true), ([specs]) => {
        const rows = rowsOf(specs, false)
        const state = stateOfRows(rows)
        const parentOf = new Map(rows.map((r) => [r.id, r.parentId]))
        const reachesRoot = (id: string) => {
          const seen = new Set<string>()
          let current: string | null | undefined = id
          while (current !== null && current !== undefined && parentOf.has(current)) {
            if (seen.has(current)) return false
            seen.add(current)
            const parent: string | null | undefined = parentOf.get(current)
            current = parent === current ? null : parent
          }
          return true
        }
        const visited: Array<string> = []
        Tree.walk(Tree.getTree(state), (node) => visited.push(node.entry.id))
        expect(new Set(visited).size).toBe(visited.length)
        expect(visited.sort()).toEqual(rows.map((r) => r.id).filter(reachesRoot).sort())
      }),
      { numRuns: 500 }
    )
  })

  it("(d) folding any lines and then querying never throws", () => {
    const jsonLine = fc.jsonValue().map((v) => JSON.stringify(v) ?? "null")
    const plausible = forest(true).map(([specs]) => rowsOf(specs, false).map((r) => JSON.stringify(r)))
    const truncate = (line: string, cut: number) => line.slice(0, Math.max(0, line.length - cut))
    const anyLine = fc.oneof(
      jsonLine,
      fc.string(),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString("latin1").replace(/\n/g, "")),
      fc.tuple(jsonLine, fc.integer({ min: 1, max: 20 })).map(([line, cut]) => truncate(line, cut)),
      fc.constantFrom(
        JSON.stringify(header()),
        "{\"type\":\"leaf\",\"id\":\"l\",\"parentId\":null,\"targetId\":\"e1\"}",
        "{\"type\":\"x\",\"id\":\"e2\",\"parentId\":\"e1\"}"
      )
    )
    fc.assert(
      fc.property(
        fc.tuple(plausible, fc.array(anyLine, { maxLength: 30 }), fc.integer({ min: 0, max: 80 })),
        ([rows, noise, at]) => {
          const lines = [...rows]
          lines.splice(at % (lines.length + 1), 0, ...noise)
          const state = SessionState.fromRecords(Line.parseText(lines.join("\n")))
          JsonView.tree(state)
          JsonView.info(state)
          JsonView.context(state)
          for (const id of [null, undefined, "e0", "e1", "e5", "l", "zz"]) {
            SessionContext.buildSessionContext(state, id)
            Tree.getBranch(state, id)
          }
          Tree.getChildren(state, null)
          Tree.getChildren(state, "e1")
          SessionState.rows(state)
          SessionState.headerIsFirst(state)
        }
      ),
      { numRuns: 400 }
    )
  })
})

const stateOfRows = (rows: ReadonlyArray<unknown>) =>
  SessionState.fromRecords(Line.parseText(fileText(header(), ...rows)))
