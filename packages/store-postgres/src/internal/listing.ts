/**
 * The PostgreSQL store's reads across sessions: listings (each session's summary from its header,
 * messages and names), the most recent session of a database, and the full-text search over
 * message bodies. Each asks a database that holds the schema (never migrating it); a database
 * without it lists nothing.
 */
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type {
  ListQuery,
  SearchHit,
  SearchQuery,
  SessionSummary,
  StoreFailure
} from "@branchlog/session-store/TranscriptStore"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Rows from "./rows.js"
import type { Run } from "./sql.js"

/** What the reads need of the store. */
export interface Deps {
  /** A database's runner when it holds a readable schema (`undefined`: none), its failures as the store's. */
  readonly connect: (url: string, operation: string) => Effect.Effect<Run | undefined, StoreFailure>
  /** A query with the store's retries of transient failures, its failures as the store's. */
  readonly attempt: <A>(
    effect: Effect.Effect<A, SqlError>,
    url: string,
    operation: string
  ) => Effect.Effect<A, StoreFailure>
  /** The databases a query covers: one location, or every one the store has opened. */
  readonly locations: (location: string | undefined) => ReadonlyArray<string>
}

/** The summaries of one database's sessions. */
const summariesOf = (deps: Deps, url: string): Effect.Effect<Array<SessionSummary>, StoreFailure> =>
  Effect.gen(function*() {
    const run = yield* deps.connect(url, "list")
    if (run === undefined) return []
    const rows = yield* deps.attempt(
      run(
        `SELECT s.session_id, (extract(epoch FROM s.modified) * 1000)::float8 AS modified_ms, r.text, r.raw
         FROM branchlog_sessions s JOIN branchlog_rows r ON r.session_id = s.session_id
         WHERE s.first_kind = 'Header' AND (r.kind = 'Header' OR (r.kind = 'Entry' AND r.type IN ('message', 'session_info')))
         ORDER BY s.session_id, r.seq`
      ),
      url,
      "list"
    )
    const out: Array<SessionSummary> = []
    let i = 0
    while (i < rows.length) {
      const session = rows[i].session_id as string
      const modifiedMs = Number(rows[i].modified_ms)
      const texts: Array<string> = []
      while (i < rows.length && rows[i].session_id === session) texts.push(Rows.textOfRow(rows[i++]))
      const ref: SessionRef.PostgresRef = { _tag: "Postgres", url, id: session }
      const summary = StoreRows.summary(ref, SessionRef.format(ref), texts, modifiedMs)
      if (Option.isSome(summary)) out.push(summary.value)
    }
    return out
  })

/** `TranscriptStoreShape.list`: the summaries of every session the query covers, most recent first. */
export const list = (deps: Deps, query: ListQuery): Effect.Effect<Array<SessionSummary>, StoreFailure> =>
  Effect.gen(function*() {
    const found = (yield* Effect.forEach(deps.locations(query.location), (url) => summariesOf(deps, url))).flat()
    query.onProgress?.(found.length, found.length)
    return found.sort((a, b) => b.modified.getTime() - a.modified.getTime())
  })

/** `TranscriptStoreShape.mostRecent`: the session modified last (none when the database cannot be read). */
export const mostRecent = (deps: Deps, url: string): Effect.Effect<Option.Option<SessionRef.SessionRef>> =>
  Effect.gen(function*() {
    const run = yield* deps.connect(url, "list")
    if (run === undefined) return Option.none<SessionRef.SessionRef>()
    const rows = yield* deps.attempt(
      run(
        `SELECT session_id FROM branchlog_sessions WHERE first_kind = 'Header' ORDER BY modified DESC, session_id LIMIT 1`
      ),
      url,
      "list"
    )
    return rows.length === 0
      ? Option.none<SessionRef.SessionRef>()
      : Option.some<SessionRef.SessionRef>({ _tag: "Postgres", url, id: rows[0].session_id })
  }).pipe(Effect.orElseSucceed(() => Option.none()))

/** `TranscriptStoreShape.search`: messages matching the query's words (`websearch_to_tsquery`), best first. */
export const search = (deps: Deps, query: SearchQuery): Effect.Effect<ReadonlyArray<SearchHit>, StoreFailure> =>
  Effect.gen(function*() {
    const limit = query.limit ?? 20
    const hits: Array<SearchHit> = []
    for (const url of deps.locations(query.location)) {
      const run = yield* deps.connect(url, "search")
      if (run === undefined) continue
      const rows = yield* deps.attempt(
        run(
          `SELECT r.session_id, r.entry_id, r.role, r.timestamp,
             ts_rank(to_tsvector('english', r.body), q)::float8 AS score,
             ts_headline('english', r.body, q, 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1') AS snippet
           FROM branchlog_rows r, websearch_to_tsquery('english', $1) q
           WHERE r.body IS NOT NULL AND to_tsvector('english', r.body) @@ q
           ORDER BY score DESC, r.session_id, r.seq LIMIT $2`,
          [query.text, limit]
        ),
        url,
        "search"
      )
      for (const row of rows) {
        hits.push({
          ref: { _tag: "Postgres", url, id: row.session_id },
          entryId: row.entry_id ?? "",
          role: row.role ?? "",
          timestamp: row.timestamp ?? undefined,
          snippet: row.snippet,
          score: Number(row.score)
        })
      }
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit)
  })
