import type { Entry as EntryT } from "../../src/Entry.js"
import * as Line from "../../src/Line.js"
import * as SessionState from "../../src/SessionState.js"
import * as Messages from "../../src/testing/Messages.js"

/** A file's text from rows (objects are JSON-stringified, strings are kept as they are). */
export const fileText = (...rows: ReadonlyArray<unknown>): string =>
  rows.map((row) => (typeof row === "string" ? row : JSON.stringify(row))).join("\n") + "\n"

/** The state of a file made of these rows. */
export const stateOf = (...rows: ReadonlyArray<unknown>): SessionState.SessionState =>
  SessionState.fromRecords(Line.parseText(fileText(...rows)))

export const header = (extra: Record<string, unknown> = {}) => ({
  type: "session",
  version: 3,
  id: "sess-1",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/tmp/project",
  ...extra
})

let clock = Date.parse("2026-01-01T00:00:00.000Z")
/** A timestamp one second after the previous one. */
export const tick = (): string => new Date(clock += 1000).toISOString()

export const user = (
  id: string,
  parentId: string | null,
  text = `user ${id}`,
  extra: Record<string, unknown> = {}
) => ({
  type: "message",
  id,
  parentId,
  timestamp: tick(),
  message: { role: "user", content: text, timestamp: 1 },
  ...extra
})

export const assistant = (
  id: string,
  parentId: string | null,
  text = `assistant ${id}`,
  model = "model-a",
  extra: Record<string, unknown> = {}
) => ({
  type: "message",
  id,
  parentId,
  timestamp: tick(),
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "test",
    provider: "prov",
    model,
    usage: Messages.testUsage,
    stopReason: "stop",
    timestamp: 2
  },
  ...extra
})

export const entry = (
  type: EntryT["type"],
  id: string,
  parentId: string | null,
  fields: Record<string, unknown> = {}
) => ({
  type,
  id,
  parentId,
  timestamp: tick(),
  ...fields
})

export const compaction = (id: string, parentId: string | null, firstKeptEntryId: string, summary = `summary ${id}`) =>
  entry("compaction", id, parentId, { summary, firstKeptEntryId, tokensBefore: 1000 })

export const label = (id: string, parentId: string | null, targetId: string, text?: string) =>
  entry("label", id, parentId, text === undefined ? { targetId } : { targetId, label: text })

export const leaf = (
  id: string,
  parentId: string | null,
  targetId: string | null,
  extra: Record<string, unknown> = {}
) => ({
  type: "leaf",
  id,
  parentId,
  timestamp: tick(),
  targetId,
  ...extra
})

/** The roles of a context's messages, for compact assertions. */
export const roles = (messages: ReadonlyArray<{ readonly role: string }>) => messages.map((m) => m.role)
