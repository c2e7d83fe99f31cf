/**
 * OpenClaw 2026.8+ agent databases (`openclaw-agent.sqlite`, table `transcript_events`; spec §15)
 * → branchlog sessions. A pure conversion of one session's events, already read and decompressed
 * (`OpenClawDatabase` does the reading): the events are pi-shaped, so each keeps its id, parent and
 * fields; the header event gives the session's id, cwd and start; the leaf is the index state's
 * (`session_transcript_index_state.leaf_event_id`), else OpenClaw's own rule (the last leaf
 * control's target, else the last entry). Leaf controls are not copied (the importer moves the
 * leaf itself); `reset` rows and opaque rows become `custom` entries (`openclaw.reset`,
 * `openclaw.opaque`) holding the row, so their children keep their place in the tree.
 *
 * @since 0.1.0
 */
import { Entry } from "@branchlog/session-core"
import type { ImportedSession } from "./ImportedSession.js"
import { isObject, isoOf, SessionBuilder, str } from "./internal/builder.js"

/** One row of `transcript_events`, its event decoded (or why it could not be). */
export interface EventRow {
  readonly seq: number
  readonly event?: unknown
  readonly error?: string
}

/** Options of {@link convert}. */
export interface ConvertOptions {
  /** The database path (kept in the provenance). */
  readonly source: string
  /** The session's id in the database (`transcript_events.session_id`). */
  readonly sessionId: string
  /** `session_transcript_index_state.leaf_event_id`, when the database has one for the session. */
  readonly leafEventId?: string | null
  /** The `seq` of the last event of the session's active path (`session_transcript_active_events`). */
  readonly activeLeafSeq?: number
}

const EPOCH = "1970-01-01T00:00:00.000Z"
const CANONICAL: ReadonlySet<string> = new Set(Entry.entryTypes)

/** Converts the events of one session (in `seq` order). */
export const convert = (rows: ReadonlyArray<EventRow>, options: ConvertOptions): ImportedSession => {
  const b = new SessionBuilder()
  let header: Record<string, unknown> | undefined
  const controls = new Map<string, string | null>()
  let lastControlTarget: string | null | undefined
  let lastEntry: string | undefined
  const idAtSeq = new Map<number, string>()
  const ids = (key: string | null | undefined) => (key === null || key === undefined ? key : b.ids.idOf(key))
  for (const row of [...rows].sort((x, y) => x.seq - y.seq)) {
    const e = row.event
    if (row.error !== undefined || !isObject(e)) {
      b.skip({ seq: row.seq, reason: row.error ?? "the event is not a JSON object" })
      continue
    }
    const type = str(e.type)
    if (type === "session") {
      if (header === undefined) header = e
      else b.count("header events after the first")
      continue
    }
    const id = str(e.id)
    if (id !== undefined) idAtSeq.set(row.seq, id)
    const parentId = typeof e.parentId === "string" ? e.parentId : null
    if (type === "leaf") {
      if (id !== undefined) {
        const target = typeof e.targetId === "string" ? e.targetId : null
        controls.set(id, target)
        lastControlTarget = target
        b.drop(id, parentId, "leaf controls (the importer sets the leaf itself)")
      }
      continue
    }
    if (id === undefined || id.trim() === "") {
      b.skip({ seq: row.seq, reason: `a ${type === undefined ? "row without a type" : `"${type}" row`} without an id` })
      continue
    }
    const at = isoOf(e.timestamp, EPOCH)
    if (type !== undefined && CANONICAL.has(type)) {
      b.keep(id, parentId, (newId, newParent) => {
        const { appendMode: _side, ...rest } = e
        const entry = { ...rest, id: newId, parentId: newParent, timestamp: at } as Record<string, unknown>
        if (type === "compaction" && typeof e.firstKeptEntryId === "string") {
          entry.firstKeptEntryId = ids(e.firstKeptEntryId)
        }
        if (type === "compaction" && e.firstKeptEntryId === null) entry.firstKeptEntryId = newId
        if ((type === "label" || type === "context_edit") && typeof e.targetId === "string") {
          entry.targetId = ids(e.targetId)
        }
        if (type === "branch_summary" && typeof e.fromId === "string" && e.fromId !== "root") {
          entry.fromId = ids(e.fromId)
        }
        return entry as unknown as Entry.Entry
      })
    } else {
      const customType = type === "reset" ? "openclaw.reset" : "openclaw.opaque"
      b.keep(id, parentId, (newId, newParent) => ({
        type: "custom",
        customType,
        data: e,
        id: newId,
        parentId: newParent,
        timestamp: at
      }))
      b.count(
        type === "reset"
          ? "reset rows (kept as custom openclaw.reset entries)"
          : "opaque rows (kept as custom openclaw.opaque entries)"
      )
    }
    lastEntry = id
  }
  // the leaf: the index state's (an entry, or a control naming one), else OpenClaw's rule on load
  let leafKey: string | null | undefined = lastControlTarget !== undefined ? lastControlTarget : lastEntry
  const indexed = options.leafEventId
  const activeLeaf = options.activeLeafSeq === undefined ? undefined : idAtSeq.get(options.activeLeafSeq)
  if (activeLeaf !== undefined && b.has(activeLeaf)) {
    leafKey = controls.has(activeLeaf) ? controls.get(activeLeaf)! : activeLeaf
    if (typeof indexed === "string" && indexed !== activeLeaf) {
      b.warnings.push(
        `the active path ends at ${activeLeaf}; the index state's leaf_event_id is ${indexed} (a side append): the leaf is the active path's`
      )
    }
  } else if (typeof indexed === "string") {
    if (controls.has(indexed)) leafKey = controls.get(indexed)!
    else if (b.has(indexed)) leafKey = indexed
    else {b.warnings.push(
        `the index state's leaf ${indexed} is not an event of the session: the leaf is OpenClaw's rule's`
      )}
  }
  if (header === undefined) b.warnings.push("no header event: the session id is the database's")
  const version = header?.version
  return b.finish({
    provenance: {
      format: "openclaw",
      ...(version === undefined ? {} : { formatVersion: `session v${String(version)}` }),
      source: options.source,
      sourceSessionId: options.sessionId
    },
    sessionId: str(header?.id) ?? options.sessionId,
    cwd: str(header?.cwd) ?? "",
    timestamp: isoOf(header?.timestamp, EPOCH),
    leafKey: leafKey ?? null
  })
}
