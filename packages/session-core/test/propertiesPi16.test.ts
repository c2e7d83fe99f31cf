// Property: buildSessionContext equals a plain transcription of spec §5 with pi 1.6's rules (§15)
// on random trees and leaves that mix every entry type, edits of any entry (earlier, later, on
// other branches, missing), compactions keeping from anywhere (null and their own id included),
// system messages and null content.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as SessionContext from "../src/SessionContext.js"
import { stateOf } from "./support/build.js"
import { header } from "./support/build.js"

const spec = (n: number) =>
  fc.record({
    parent: fc.integer({ min: -1, max: n - 1 }),
    kind: fc.integer({ min: 0, max: 12 }),
    target: fc.integer({ min: -2, max: n }),
    variant: fc.integer({ min: 0, max: 3 })
  })

const forest = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.tuple(
    fc.array(spec(n), { minLength: n, maxLength: n }),
    fc.oneof(fc.constant<string | undefined>(undefined), fc.integer({ min: 0, max: n - 1 }).map((i) => `e${i}`))
  )
)

type Spec = { parent: number; kind: number; target: number; variant: number }

const rowsOf = (specs: ReadonlyArray<Spec>) =>
  specs.map((s, i) => {
    const base = {
      id: `e${i}`,
      parentId: s.parent === -1 || s.parent >= i ? null : `e${s.parent}`,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
    }
    const target = s.target === -2 ? null : s.target === -1 ? `e${i}` : `e${s.target}` // null, itself, any (or missing)
    const content = [null, "text", [{ type: "text", text: `t${i}` }], undefined][s.variant]
    switch (s.kind) {
      case 0:
        return { type: "message", ...base, message: { role: "user", content, timestamp: i } }
      case 1:
        return {
          type: "message",
          ...base,
          message: {
            role: "assistant",
            content: s.variant === 1 ? [] : content,
            provider: "p",
            model: `m${i}`,
            timestamp: i
          }
        }
      case 2:
        return {
          type: "message",
          ...base,
          message: { role: "toolResult", toolName: "t", content: s.variant === 1 ? [] : content, timestamp: i }
        }
      case 3:
        return {
          type: "message",
          ...base,
          message: { role: "system", content: s.variant === 2 ? "sys" : content, timestamp: i }
        }
      case 4:
        return {
          type: "compaction",
          ...base,
          summary: `c${i}`,
          firstKeptEntryId: target,
          tokensBefore: i,
          ...(s.variant % 2 === 0 ? { systemMessage: { role: "system", content: `cs${i}`, timestamp: i } } : {})
        }
      case 5:
        return { type: "branch_summary", ...base, fromId: "root", summary: s.variant === 0 ? "" : `b${i}` }
      case 6:
        return {
          type: "custom_message",
          ...base,
          customType: "t",
          ...(s.variant === 3 ? {} : { content }),
          display: true
        }
      case 7:
        return { type: "usage", ...base, kind: "k", provider: "u", model: `um${i}`, usage: {} }
      case 8:
        return { type: "model_change", ...base, provider: "q", modelId: `mm${i}` }
      case 9:
        return { type: "message", ...base, message: { role: "bashExecution", command: "ls", output: "", timestamp: i } }
      default:
        return {
          type: "context_edit",
          ...base,
          targetId: target ?? "missing",
          replacement: s.variant === 0
            ? null
            : { content: s.variant === 1 ? `r${i}` : [{ type: "text", text: `r${i}` }] }
        }
    }
  })

/** §5 and §15, written as plainly as possible (pi 1.6's `buildSessionProjection`). */
const naive = (entries: ReadonlyArray<any>, leafId: string | undefined) => {
  const byId = new Map(entries.map((e) => [e.id, e]))
  let leaf = leafId === undefined ? entries[entries.length - 1] : byId.get(leafId)
  const path: Array<any> = []
  while (leaf) {
    path.unshift(leaf)
    leaf = leaf.parentId === null ? undefined : byId.get(leaf.parentId)
  }
  let model: any = null
  for (const e of path) {
    if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId }
    if (e.type === "message" && e.message.role === "assistant") model = { provider: "p", modelId: e.message.model }
  }
  const compaction = path.filter((e) => e.type === "compaction").at(-1)
  let selected = path
  if (compaction !== undefined) {
    const at = path.indexOf(compaction)
    const from = path.findIndex((e) => e.id === compaction.firstKeptEntryId)
    const kept = from === -1 || from >= at ? [] : path.slice(from, at)
    selected = [
      compaction,
      ...kept.filter((e) => !(e.type === "message" && e.message.role === "system")),
      ...path.slice(at + 1)
    ]
  }
  const edits = new Map()
  for (const e of selected) if (e.type === "context_edit") edits.set(e.targetId, e)
  const contribution = (e: any, head: boolean): Array<any> => {
    const time = Date.parse(e.timestamp)
    if (e.type === "message") {
      const m = e.message
      if (m.content == null && m.role === "system") return [{ ...m, content: "" }]
      if (m.content == null && ["user", "assistant", "toolResult"].includes(m.role)) return [{ ...m, content: [] }]
      return [m]
    }
    if (e.type === "custom_message") {
      return [{
        role: "custom",
        customType: e.customType,
        content: e.content ?? [],
        display: e.display,
        timestamp: time
      }]
    }
    if (e.type === "branch_summary" && e.summary) {
      return [{ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: time }]
    }
    if (e.type === "compaction" && head) {
      const summary = { role: "compactionSummary", summary: e.summary, tokensBefore: e.tokensBefore, timestamp: time }
      return e.systemMessage ? [e.systemMessage, summary] : [summary]
    }
    return []
  }
  const messages: Array<any> = []
  selected.forEach((e, i) => {
    const own = contribution(e, compaction !== undefined && i === 0)
    const edit = edits.get(e.id)
    if (edit === undefined) messages.push(...own)
    else if (edit.replacement !== null) {
      for (const m of own) {
        if (!["user", "assistant", "toolResult", "custom"].includes(m.role)) messages.push(m)
        else {
          const text = typeof edit.replacement.content === "string"
          messages.push({
            ...m,
            content: text && (m.role === "assistant" || m.role === "toolResult")
              ? [{ type: "text", text: edit.replacement.content }]
              : edit.replacement.content
          })
        }
      }
    }
  })
  return { messages, thinkingLevel: "off", model }
}

describe("property: pi 1.6's context rules", () => {
  it("buildSessionContext equals a plain transcription of §5 and §15 on random trees and leaves", () => {
    fc.assert(
      fc.property(forest, ([specs, leaf]) => {
        const rows = rowsOf(specs)
        const state = stateOf(header(), ...rows)
        const json = (v: unknown) => JSON.parse(JSON.stringify(v))
        expect(json(SessionContext.buildSessionContext(state, leaf))).toEqual(json(naive(rows, leaf)))
      }),
      { numRuns: 1000 }
    )
  })
})
