/**
 * The rows of a session in SQL: what each row's columns hold (its text, kept byte for byte; its
 * kind, ids, type, timestamp and searchable text, derived), and the statements a load, a change
 * query, an append, a create and a replace run. Every statement is given a `Run` (the pool, or
 * the connection of a hold inside a transaction).
 */
import { Line } from "@branchlog/session-core"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { CHANNEL } from "./pools.js"
import type { Run } from "./sql.js"

/** What one row's columns hold. */
export interface RowColumns {
  readonly text: string
  /** The row's bytes when its text holds a NUL (a `text` column cannot); `null` otherwise. */
  readonly raw: Buffer | null
  readonly kind: string
  readonly entryId: string | null
  readonly parentId: string | null
  readonly type: string | null
  readonly timestamp: string | null
  readonly role: string | null
  readonly body: string | null
}

const str = (value: unknown): string | null => typeof value === "string" ? value : null

const textOfContent = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  const parts: Array<string> = []
  for (const part of content) {
    if (part !== null && typeof part === "object" && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text
      if (typeof text === "string") parts.push(text)
    }
  }
  return parts.join("\n")
}

/** The columns of a row of `text`. */
export const columnsOf = (text: string): RowColumns => {
  const parsed = Line.parse(text)
  const hasNul = text.includes("\u0000")
  const base = {
    text: hasNul ? text.replaceAll("\u0000", "") : text,
    raw: hasNul ? Buffer.from(text, "utf8") : null,
    kind: parsed._tag,
    entryId: null,
    parentId: null,
    type: null,
    timestamp: null,
    role: null,
    body: null
  }
  switch (parsed._tag) {
    case "Header":
      return { ...base, entryId: str(parsed.header.id), type: "session", timestamp: str(parsed.header.timestamp) }
    case "Entry": {
      const entry = parsed.entry as unknown as Record<string, unknown>
      const message = entry.type === "message" ? entry.message as Record<string, unknown> | undefined : undefined
      const body = message === undefined ? "" : textOfContent(message.content)
      return {
        ...base,
        entryId: str(entry.id),
        parentId: str(entry.parentId),
        type: str(entry.type),
        timestamp: str(entry.timestamp),
        role: message === undefined ? null : str(message.role),
        body: body.length === 0 || hasNul ? null : body
      }
    }
    case "LeafControl": {
      const control = parsed.control as unknown as Record<string, unknown>
      return { ...base, type: str(control.type), timestamp: str(control.timestamp) }
    }
    case "Opaque":
      return { ...base, type: str((parsed.value as Record<string, unknown>).type) }
    default:
      return base
  }
}

/** A stored row's text (from its bytes when it has them). */
export const textOfRow = (row: { readonly text: string; readonly raw: Buffer | null }): string =>
  row.raw === null ? row.text : row.raw.toString("utf8")

/** What a session row's summary columns get from rows written at once. */
interface Summary {
  readonly firstKind: string | null
  readonly leaf: string | null
  readonly messages: number
  readonly cwd: string | null
  readonly created: string | null
  readonly parentSession: string | null
}

const summarize = (rows: ReadonlyArray<RowColumns>, texts: ReadonlyArray<string>): Summary => {
  let firstKind: string | null = null
  let header: Record<string, unknown> | undefined
  let leaf: string | null = null
  let messages = 0
  rows.forEach((row, i) => {
    if (firstKind === null && row.kind !== "Blank" && row.kind !== "Corrupt") {
      firstKind = row.kind
      if (row.kind === "Header") header = JSON.parse(texts[i]!) as Record<string, unknown>
    }
    if (row.kind === "Entry" && row.entryId !== null) leaf = row.entryId
    if (row.kind === "Entry" && row.type === "message") messages += 1
  })
  return {
    firstKind,
    leaf,
    messages,
    cwd: header === undefined ? null : str(header.cwd),
    created: header === undefined ? null : str(header.timestamp),
    parentSession: header === undefined ? null : str(header.parentSession)
  }
}

const CHUNK = 2000

/** The column arrays of rows numbered from `after + 1` (parameters 2 to 11 of an insert through `unnest`). */
const columnArrays = (after: number, rows: ReadonlyArray<RowColumns>) => [
  rows.map((_, i) => after + i + 1),
  rows.map((r) => r.text),
  rows.map((r) => r.raw),
  rows.map((r) => r.kind),
  rows.map((r) => r.entryId),
  rows.map((r) => r.parentId),
  rows.map((r) => r.type),
  rows.map((r) => r.timestamp),
  rows.map((r) => r.role),
  rows.map((r) => r.body)
]

/** Inserts `texts` as rows `after + 1`, `after + 2`, … of `session`. */
const insertRows = (
  run: Run,
  session: string,
  after: number,
  texts: ReadonlyArray<string>,
  rows: ReadonlyArray<RowColumns>
) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(texts.length / CHUNK) }, (_, i) => i * CHUNK),
    (start) => {
      const part = rows.slice(start, start + CHUNK)
      return run(
        `INSERT INTO branchlog_rows (session_id, seq, text, raw, kind, entry_id, parent_id, type, timestamp, role, body)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bytea[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])`,
        [session, ...columnArrays(after + start, part)]
      )
    },
    { discard: true }
  )

/** What a session row says now. */
export interface SessionHead {
  readonly generation: number
  readonly lastSeq: number
}

/** The rows of a session as one statement saw them. */
export interface Found {
  readonly head: SessionHead
  readonly texts: Array<string>
  readonly tornTail: boolean
}

/** Every row of a session in order with its head, in one statement (one snapshot); `undefined`: no session. */
export const loadRows = (
  run: Run,
  session: string
): Effect.Effect<Found | undefined, SqlError> =>
  Effect.map(
    run(
      `SELECT s.generation, s.last_seq, s.torn_tail, r.text, r.raw FROM branchlog_sessions s
       LEFT JOIN branchlog_rows r ON r.session_id = s.session_id
       WHERE s.session_id = $1 ORDER BY r.seq`,
      [session]
    ),
    (rows) => {
      if (rows.length === 0) return undefined
      const head = { generation: rows[0].generation as number, lastSeq: rows[0].last_seq as number }
      const texts: Array<string> = []
      for (const row of rows) if (row.text !== null) texts.push(textOfRow(row))
      return { head, texts, tornTail: rows[0].torn_tail === true }
    }
  )

/** The head and at most `limit` rows after `after`, in one statement (one snapshot); `undefined`: no session. */
export const pageRows = (
  run: Run,
  session: string,
  after: number,
  limit: number
): Effect.Effect<
  {
    readonly generation: number
    readonly texts: Array<string>
    readonly last: number
    readonly torn: boolean
  } | undefined,
  SqlError
> =>
  Effect.map(
    run(
      `SELECT s.generation, s.last_seq, s.torn_tail, r.text, r.raw FROM branchlog_sessions s
       LEFT JOIN branchlog_rows r ON r.session_id = s.session_id AND r.seq > $2 AND r.seq <= $3
       WHERE s.session_id = $1 ORDER BY r.seq`,
      [session, after, after + limit]
    ),
    (rows) => {
      if (rows.length === 0) return undefined
      const texts: Array<string> = []
      for (const row of rows) if (row.text !== null) texts.push(textOfRow(row))
      return {
        generation: rows[0].generation as number,
        texts,
        last: rows[0].last_seq as number,
        torn: rows[0].torn_tail === true
      }
    }
  )

/** The head and the rows after `seen` when the generation is `generation` (else none), in one statement. */
export const tailRows = (
  run: Run,
  session: string,
  generation: number,
  seen: number
): Effect.Effect<{ readonly head: SessionHead; readonly texts: Array<string> } | undefined, SqlError> =>
  Effect.map(
    run(
      `SELECT s.generation, s.last_seq, r.text, r.raw FROM branchlog_sessions s
       LEFT JOIN branchlog_rows r ON r.session_id = s.session_id AND r.seq > $2 AND s.generation = $3
       WHERE s.session_id = $1 ORDER BY r.seq`,
      [session, seen, generation]
    ),
    (rows) => {
      if (rows.length === 0) return undefined
      const head = { generation: rows[0].generation as number, lastSeq: rows[0].last_seq as number }
      const texts: Array<string> = []
      for (const row of rows) if (row.text !== null) texts.push(textOfRow(row))
      return { head, texts }
    }
  )

/** Locks the session's row for the transaction (creating it, empty, when `create`); `undefined`: no session. */
export const lockHead = (
  run: Run,
  session: string,
  create: boolean
): Effect.Effect<SessionHead | undefined, SqlError> =>
  Effect.gen(function*() {
    if (create) {
      yield* run(
        `INSERT INTO branchlog_sessions (session_id, generation, last_seq) VALUES ($1, 1, 0) ON CONFLICT (session_id) DO NOTHING`,
        [session]
      )
    }
    const rows = yield* run(`SELECT generation, last_seq FROM branchlog_sessions WHERE session_id = $1 FOR UPDATE`, [
      session
    ])
    return rows.length === 0 ? undefined : { generation: rows[0].generation, lastSeq: rows[0].last_seq }
  })

/** The texts of rows `after + 1` … `after + count`. */
export const rowsBetween = (run: Run, session: string, after: number, count: number) =>
  Effect.map(
    run(`SELECT text, raw FROM branchlog_rows WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`, [
      session,
      after,
      after + count
    ]),
    (rows) => rows.map(textOfRow)
  )

/** Tells listeners of the database that `session` now ends at `seq` (a non-empty payload). */
export const notify = (run: Run, session: string, seq: number) =>
  run(`SELECT pg_notify($1, $2)`, [CHANNEL, `${session}:${seq}`])

/**
 * The session row's columns an append moves (the last sequence, the leaf, the message count, the
 * summary fields its first rows set, the torn tail, the modification time), with its eight values
 * at placeholders `$first` … `$first + 7` in the order of `summaryParams`.
 */
const summarySet = (first: number): string => {
  const at = (i: number) => `$${first + i}`
  return `last_seq = ${at(0)},
    leaf = COALESCE(${at(1)}, leaf),
    message_count = message_count + ${at(2)},
    cwd = CASE WHEN first_kind IS NULL THEN ${at(3)} ELSE cwd END,
    created = CASE WHEN first_kind IS NULL THEN ${at(4)} ELSE created END,
    parent_session = CASE WHEN first_kind IS NULL THEN ${at(5)} ELSE parent_session END,
    first_kind = COALESCE(first_kind, ${at(6)}),
    torn_tail = ${at(7)},
    modified = clock_timestamp()`
}

/** The values of `summarySet`'s placeholders. */
const summaryParams = (last: number, summary: Summary, tornTail: boolean) => [
  last,
  summary.leaf,
  summary.messages,
  summary.cwd,
  summary.created,
  summary.parentSession,
  summary.firstKind,
  tornTail
]

/** Inside a transaction holding the session row: writes `texts` after row `after`; returns the new last sequence. */
export const appendRows = (
  run: Run,
  session: string,
  after: number,
  texts: ReadonlyArray<string>,
  tornTail = false
) =>
  Effect.gen(function*() {
    const rows = texts.map(columnsOf)
    const summary = summarize(rows, texts)
    const last = after + texts.length
    if (rows.length <= CHUNK) {
      // the common case in one round trip: the rows, the session row, the notification
      yield* run(
        `WITH inserted AS (
           INSERT INTO branchlog_rows (session_id, seq, text, raw, kind, entry_id, parent_id, type, timestamp, role, body)
           SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bytea[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           RETURNING 1
         ), updated AS (
           UPDATE branchlog_sessions SET ${summarySet(12)} WHERE session_id = $1
           RETURNING 1
         )
         SELECT pg_notify($20, $21), (SELECT count(*) FROM inserted), (SELECT count(*) FROM updated)`,
        [
          session,
          ...columnArrays(after, rows),
          ...summaryParams(last, summary, tornTail),
          CHANNEL,
          `${session}:${last}`
        ]
      )
      return last
    }
    yield* insertRows(run, session, after, texts, rows)
    yield* run(`UPDATE branchlog_sessions SET ${summarySet(2)} WHERE session_id = $1`, [
      session,
      ...summaryParams(last, summary, tornTail)
    ])
    yield* notify(run, session, last)
    return last
  })

/**
 * Inside a transaction holding the session row: keeps the old rows as backup `name` (when given
 * and there are rows), writes `texts` instead, bumps the generation; returns the new generation.
 */
export const replaceRows = (
  run: Run,
  session: string,
  head: SessionHead,
  texts: ReadonlyArray<string>,
  backup: { readonly name: string; readonly label: string } | undefined
) =>
  Effect.gen(function*() {
    if (backup !== undefined && head.lastSeq > 0) {
      yield* run(`INSERT INTO branchlog_backups (name, session_id, label, generation) VALUES ($1, $2, $3, $4)`, [
        backup.name,
        session,
        backup.label,
        head.generation
      ])
      yield* run(
        `INSERT INTO branchlog_backup_rows (backup, seq, text, raw) SELECT $1, seq, text, raw FROM branchlog_rows WHERE session_id = $2`,
        [backup.name, session]
      )
    }
    yield* run(`DELETE FROM branchlog_rows WHERE session_id = $1`, [session])
    const rows = texts.map(columnsOf)
    const summary = summarize(rows, texts)
    yield* insertRows(run, session, 0, texts, rows)
    const generation = head.generation + 1
    yield* run(
      `UPDATE branchlog_sessions SET generation = $2, last_seq = $3, leaf = $4, message_count = $5, cwd = $6,
         created = $7, parent_session = $8, first_kind = $9, torn_tail = false, modified = clock_timestamp()
       WHERE session_id = $1`,
      [
        session,
        generation,
        texts.length,
        summary.leaf,
        summary.messages,
        summary.cwd,
        summary.created,
        summary.parentSession,
        summary.firstKind
      ]
    )
    yield* notify(run, session, texts.length)
    return generation
  })
