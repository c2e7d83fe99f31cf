import type { Entry } from "@branchlog/session-core"
import { Tree } from "@branchlog/session-core"
import { fixtures as referenceFixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { openReadOnly } from "../src/internal/sqlite.js"
import * as OpenClaw from "../src/OpenClaw.js"
import * as OpenClawDatabase from "../src/OpenClawDatabase.js"
import { contextOf, fixtures, samples, stateOf } from "./support/samples.js"

interface Expected {
  readonly source: string
  readonly sessionId: string
  readonly leafEventId: string
  readonly activeEventCount: number
  readonly activeMessageCount: number
  readonly events: number
  readonly zstdEvents: number
  readonly activePath: ReadonlyArray<string>
}
const expected: ReadonlyArray<Expected> =
  JSON.parse(readFileSync(join(fixtures, "openclaw", "expected.json"), "utf8")).sessions

const sessions = Effect.runSync(OpenClawDatabase.read(samples.openclaw))
const converted = sessions.map((s) =>
  OpenClaw.convert(s.rows, {
    source: samples.openclaw,
    sessionId: s.sessionId,
    leafEventId: s.leafEventId ?? null,
    ...(s.activeLeafSeq === undefined ? {} : { activeLeafSeq: s.activeLeafSeq })
  })
)
const reference = (name: string) => referenceFixtures().find((f) => f.name === name)

describe("an OpenClaw 2026.9.6 agent database (written by OpenClaw itself)", () => {
  it("holds every session, every event read (the zstd one decompressed)", () => {
    expect(sessions.map((s) => s.sessionId)).toEqual(expected.map((e) => e.sessionId))
    for (const [i, s] of sessions.entries()) {
      expect(s.rows).toHaveLength(expected[i]!.events)
      expect(s.rows.filter((r) => r.error !== undefined)).toEqual([])
    }
    const large = sessions.find((s) => s.sessionId === expected.find((e) => e.zstdEvents > 0)!.sessionId)!
    expect(large.rows.some((r) => JSON.stringify(r.event).includes("BIG:lorem ipsum"))).toBe(true)
  })

  for (const e of expected) {
    it(`${e.source}: the path to the leaf is OpenClaw's active path, event for event`, () => {
      const session = converted.find((s) => s.sessionId === e.sessionId)!
      expect(session.skipped).toEqual([])
      expect(session.leafId).toBe(e.activePath.at(-1))
      const path = Tree.getBranch(stateOf(session), session.leafId).slice(1) // without the provenance entry
      expect(path.map((x, i) => (e.activePath[i] === "(zstd)" ? "(zstd)" : x.id))).toEqual(e.activePath)
      expect(path).toHaveLength(e.activeEventCount)
      expect(path.filter((x) => x.type === "message")).toHaveLength(e.activeMessageCount)
    })
  }

  for (const name of ["linear-basic", "branching", "compactions", "labels", "custom-entries", "openclaw-side-merge"]) {
    it(`${name}: the context is the one the references give for the JSONL source`, () => {
      const e = expected.find((x) => x.source === name)!
      const session = converted.find((s) => s.sessionId === e.sessionId)!
      const want =
        (reference(name)!.expected as { context: { messages: unknown; model: unknown; thinkingLevel: unknown } })
          .context
      const got = JSON.parse(JSON.stringify(contextOf(session)))
      expect(got.messages).toEqual(want.messages)
      expect(got.model).toEqual(want.model)
      expect(got.thinkingLevel).toEqual(want.thinkingLevel)
    })
  }

  it("keeps ids, labels and the header's identity; leaf controls are not copied", () => {
    const e = expected.find((x) => x.source === "labels")!
    const session = converted.find((s) => s.sessionId === e.sessionId)!
    const raw = sessions.find((s) => s.sessionId === e.sessionId)!.rows
    const ids = raw.flatMap((r) =>
      (r.event as { type?: string; id?: string }).type === "session" ? [] : [(r.event as { id: string }).id]
    )
    const kept = new Set(session.entries.map((x) => x.id))
    for (const id of ids) {
      const type = (raw.find((r) => (r.event as { id?: string }).id === id)!.event as { type: string }).type
      expect(kept.has(id) || type === "leaf").toBe(true)
    }
    expect(session.cwd).toMatch(/^\//)
    const labels = session.entries.filter((x): x is Entry.LabelEntry => x.type === "label")
    expect(labels.length).toBeGreaterThan(0)
  })
})

describe("OpenClaw rows of every kind (pure)", () => {
  it("decodes a zstd event (OpenClaw's own blob) and reports a wrong size or a broken event by its seq", () => {
    const db = openReadOnly(samples.openclaw)
    const blob = db.prepare(
      "SELECT seq, event_zstd, event_utf8_bytes FROM transcript_events WHERE event_zstd IS NOT NULL"
    ).all()[0]!
    db.close()
    const row = OpenClawDatabase.decodeRow(blob)
    expect(row.error).toBeUndefined()
    expect(JSON.stringify(row.event)).toContain("BIG:lorem ipsum")
    expect(Buffer.byteLength(JSON.stringify(row.event))).toBe(blob.event_utf8_bytes)
    expect(OpenClawDatabase.decodeRow({ ...blob, event_utf8_bytes: 10 })).toMatchObject({
      error: expect.stringMatching(/event_utf8_bytes says 10$/)
    })
    expect(OpenClawDatabase.decodeRow({ seq: 9, event_zstd: new Uint8Array([1, 2, 3]), event_utf8_bytes: 3 }))
      .toMatchObject({
        seq: 9,
        error: expect.stringMatching(/^unreadable event/)
      })
    expect(OpenClawDatabase.decodeRow({ seq: 2, event_json: "{torn" })).toMatchObject({
      seq: 2,
      error: expect.stringMatching(/^unreadable event/)
    })
    expect(OpenClawDatabase.decodeRow({ seq: 3 })).toEqual({ seq: 3, error: "neither event_json nor event_zstd" })
  })

  it("fails with the path for a file that is not an OpenClaw database", () => {
    const error = Effect.runSync(Effect.flip(OpenClawDatabase.read(samples.codex)))
    expect(error).toMatchObject({ _tag: "OpenClawDatabaseError", path: samples.codex })
  })

  it("keeps opaque and reset rows as custom entries (children stay under them), skips rows without ids", () => {
    const rows: Array<OpenClaw.EventRow> = [
      { seq: 0, event: { type: "session", version: 4, id: "s-1", timestamp: "2026-09-01T00:00:00.000Z", cwd: "/w" } },
      {
        seq: 1,
        event: {
          type: "message",
          id: "a0000001",
          parentId: null,
          timestamp: "2026-09-01T00:00:01.000Z",
          message: { role: "user", content: "hi", timestamp: 1 }
        }
      },
      {
        seq: 2,
        event: {
          type: "plugin_note",
          id: "a0000002",
          parentId: "a0000001",
          timestamp: "2026-09-01T00:00:02.000Z",
          note: 1
        }
      },
      {
        seq: 3,
        event: {
          type: "message",
          id: "a0000003",
          parentId: "a0000002",
          timestamp: "2026-09-01T00:00:03.000Z",
          message: { role: "user", content: "again", timestamp: 3 }
        }
      },
      {
        seq: 4,
        event: {
          type: "reset",
          id: "a0000004",
          parentId: "a0000003",
          timestamp: "2026-09-01T00:00:04.000Z",
          firstKeptEntryId: "a0000003"
        }
      },
      { seq: 5, event: { type: "message", parentId: "a0000004" } },
      { seq: 6, error: "unreadable event: bad" }
    ]
    const session = OpenClaw.convert(rows, { source: "db", sessionId: "s-1" })
    expect(session.provenance).toMatchObject({ format: "openclaw", formatVersion: "session v4" })
    expect(session.entries.map((e) => e.type === "custom" ? e.customType : e.type)).toEqual([
      "branchlog.import",
      "message",
      "openclaw.opaque",
      "message",
      "openclaw.reset"
    ])
    expect(session.entries[3]!.parentId).toBe("a0000002")
    expect(session.skipped).toEqual([
      { seq: 5, reason: "a \"message\" row without an id" },
      { seq: 6, reason: "unreadable event: bad" }
    ])
    expect(session.leafId).toBe("a0000004")
  })
})

describe("sessions written by OpenClaw 2026.9.6's own session API (version 4, UUID entry ids)", () => {
  const path = join(fixtures, "openclaw", "native-agent.sqlite")
  interface Visible {
    readonly entryId: string
    readonly parentId: string | null
    readonly message: unknown
  }
  const want: ReadonlyArray<{ sessionId: string; visible: ReadonlyArray<Visible> }> =
    JSON.parse(readFileSync(join(fixtures, "openclaw", "native.expected.json"), "utf8")).sessions
  const read = Effect.runSync(OpenClawDatabase.read(path))
  const imported = read.map((s) =>
    OpenClaw.convert(s.rows, {
      source: path,
      sessionId: s.sessionId,
      leafEventId: s.leafEventId ?? null,
      ...(s.activeLeafSeq === undefined ? {} : { activeLeafSeq: s.activeLeafSeq })
    })
  )

  for (const expected of want) {
    it(`${expected.sessionId}: the context is what OpenClaw reads back as visible, ids their first 8 hex characters`, () => {
      const session = imported.find((s) => s.sessionId === expected.sessionId)!
      expect(session.provenance.formatVersion).toBe("session v4")
      expect(session.skipped).toEqual([])
      const context = JSON.parse(JSON.stringify(contextOf(session)))
      expect(context.messages).toEqual(expected.visible.map((v) => v.message))
      const path = Tree.getBranch(stateOf(session), session.leafId).slice(1)
      expect(path.map((e) => e.id)).toEqual(expected.visible.map((v) => v.entryId.slice(0, 8)))
    })
  }

  it("keeps the branch OpenClaw did not show (the abandoned continuation)", () => {
    const session = imported.find((s) => s.sessionId.endsWith("a0002"))!
    const texts = session.entries.flatMap((e) =>
      e.type === "message" ? [JSON.stringify((e.message as { content?: unknown }).content)] : []
    )
    expect(texts).toHaveLength(6)
    expect(texts.some((t) => t.includes("101."))).toBe(true)
  })
})
