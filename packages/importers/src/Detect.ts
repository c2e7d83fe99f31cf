/**
 * Format detection from a source's first bytes (pure): an SQLite database is OpenClaw's agent
 * database; a JSONL file is a Codex rollout when its lines are `{timestamp, type, payload}` of
 * Codex's types (or a legacy rollout's bare meta line), a Claude Code transcript when its records
 * carry `uuid` / `parentUuid` (or Claude Code's own record types).
 *
 * @since 0.1.0
 */
import * as ClaudeCode from "./ClaudeCode.js"
import * as Codex from "./Codex.js"
import type { Format } from "./ImportedSession.js"
import { firstRecords } from "./internal/jsonl.js"
import { SQLITE_MAGIC } from "./OpenClawDatabase.js"

/** How many bytes detection reads. */
export const HEAD_BYTES = 256 * 1024

/** How many records detection looks at. */
const HEAD_RECORDS = 64

/** The format of a source whose first bytes are `head`, or `undefined` when it is none of them. */
export const detect = (head: Uint8Array): Format | undefined => {
  if (isSqlite(head)) return "openclaw"
  const records = firstRecords(head, HEAD_RECORDS)
  if (Codex.looksLike(records)) return "codex"
  if (ClaudeCode.looksLike(records)) return "claude-code"
  return undefined
}

/** Whether `head` starts with SQLite's file header. */
export const isSqlite = (head: Uint8Array): boolean => {
  if (head.length < SQLITE_MAGIC.length) return false
  for (let i = 0; i < SQLITE_MAGIC.length; i++) if (head[i] !== SQLITE_MAGIC.charCodeAt(i)) return false
  return true
}
