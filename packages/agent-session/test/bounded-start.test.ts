/**
 * An agent session started over a bounded session (`SessionManager.resume` through the sidecar
 * index) stays bounded: restoring the thinking level asks the manager, which answers from the
 * active path and the settings rows before it, and writes exactly what a start over the full
 * open writes. A turn stays bounded too; `compact`, `navigateTree` and `fork` load the rest of the
 * session first and do what they do over the full open.
 */
import { SessionManager } from "@branchlog/session-store"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }
const at = "2026-01-01T00:00:01.000Z"
const message = (id: string, parentId: string | null, role: "user" | "assistant", text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: at,
  message: role === "user"
    ? { role, content: text, timestamp: 1 }
    : { role, content: [{ type: "text", text }], provider: "scripted", model: "tiny", stopReason: "stop", timestamp: 2 }
})

/** 30 messages (a thinking level after the 4th when `withLevel`), a compaction keeping the last 6, one more. */
const session = (withLevel: boolean): string => {
  const rows: Array<unknown> = [header]
  let parent: string | null = null
  for (let i = 0; i < 30; i++) {
    const id = `e${String(i).padStart(7, "0")}`
    rows.push(message(id, parent, i % 2 === 0 ? "user" : "assistant", `early ${i}`))
    parent = id
    if (withLevel && i === 4) {
      rows.push({
        type: "thinking_level_change",
        id: "t0000000",
        parentId: parent,
        timestamp: at,
        thinkingLevel: "high"
      })
      parent = "t0000000"
    }
  }
  rows.push({
    type: "compaction",
    id: "c0000000",
    parentId: parent,
    timestamp: at,
    summary: "the start",
    firstKeptEntryId: "e0000024",
    tokensBefore: 10
  })
  rows.push(message("l0000000", "c0000000", "user", "late question"))
  return rows.map((r) => JSON.stringify(r)).join("\n") + "\n"
}

/** Starts an agent session over a copy of `text`, opened bounded or fully; its rows after the start. */
const start = (text: string, bounded: boolean) =>
  Effect.gen(function*() {
    const file = path.join(tempDir(), "s.jsonl")
    fs.writeFileSync(file, text)
    yield* SessionManager.resume(file) // builds the index
    const sm = bounded ? yield* SessionManager.resume(file) : yield* SessionManager.open(file)
    const wasBounded = sm.isBounded()
    const { session: agent } = yield* scripted(sm)
    const rows = rowsOf(file).map(({ id: _id, timestamp: _t, ...rest }) => rest)
    return { wasBounded, stillBounded: sm.isBounded(), rows, level: agent.messages().length, sm }
  })

describe("AgentSession start over a bounded session", () => {
  for (const withLevel of [true, false]) {
    it.live(`${withLevel ? "a level before the compaction" : "no level"}: stays bounded, writes what the full open writes`, () =>
      Effect.gen(function*() {
        const bounded = yield* start(session(withLevel), true)
        const full = yield* start(session(withLevel), false)
        expect(bounded.wasBounded).toBe(true)
        expect(bounded.stillBounded).toBe(true)
        expect(full.stillBounded).toBe(false)
        expect(bounded.rows).toEqual(full.rows)
        expect(bounded.level).toBe(full.level)
        expect(bounded.sm.hasThinkingLevelChange()).toBe(true) // written at start when missing
        expect(bounded.sm.isBounded()).toBe(true)
        const levels = bounded.rows.filter((r) => r.type === "thinking_level_change")
        expect(levels.length).toBe(1)
        expect(levels[0]!.thinkingLevel).toBe(withLevel ? "high" : "off")
        expect(bounded.sm.buildSessionContext()).toEqual(full.sm.buildSessionContext())
      }).pipe(Effect.provide(storeLayer)))
  }
})

describe("AgentSession over a bounded session: what needs the whole tree loads it first", () => {
  /** The rows, without ids and times (the same script: the same rows). */
  const shape = (file: string) =>
    rowsOf(file).map(({ id: _id, parentId: _p, timestamp: _t, ...rest }) =>
      rest.message === undefined ? rest : { ...rest, message: { ...rest.message, timestamp: 0 } }
    )

  it.live("a turn stays bounded; compact, navigateTree and fork load the rest and write what the full open writes", () =>
    Effect.gen(function*() {
      const run = (bounded: boolean) =>
        Effect.gen(function*() {
          const { sm, wasBounded } = yield* start(session(true), bounded)
          const file = sm.getSessionFile()!
          /** An agent session over a new manager of the file: resumed (bounded) or opened. */
          const agentOver = Effect.gen(function*() {
            // (the first resume catches the index up, or builds it again after a move behind the compaction)
            if (bounded) yield* SessionManager.resume(file)
            const again = bounded ? yield* SessionManager.resume(file) : yield* SessionManager.open(file)
            const { session: agent } = yield* scripted(again, {
              compaction: { enabled: true, thresholdRatio: 0.99, keepRecentTokens: 10 }
            })
            return { again, agent, opened: again.isBounded() }
          })
          const one = yield* agentOver
          yield* one.agent.prompt("one more")
          const afterTurn = one.again.isBounded()
          const compaction = yield* one.agent.compact()
          const two = yield* agentOver
          const moved = yield* two.agent.navigateTree("e0000010")
          const three = yield* agentOver
          const forked = yield* three.agent.fork("e0000012")
          return {
            opened: [wasBounded, one.opened, two.opened, three.opened],
            after: [afterTurn, one.again.isBounded(), two.again.isBounded(), three.again.isBounded()],
            kept: compaction.firstKeptEntryId,
            moved,
            editorText: forked.editorText,
            rows: shape(file)
          }
        })
      const bounded = yield* run(true)
      const full = yield* run(false)
      expect(bounded.opened).toEqual([true, true, true, true])
      // a turn stays bounded; compact, navigateTree and fork loaded the rest
      expect(bounded.after).toEqual([true, false, false, false])
      expect(full.opened).toEqual([false, false, false, false])
      expect(bounded.kept).toBe(full.kept)
      expect(bounded.moved).toEqual(full.moved)
      expect(bounded.editorText).toBe(full.editorText)
      expect(bounded.rows).toEqual(full.rows)
    }).pipe(Effect.provide(storeLayer)))
})
