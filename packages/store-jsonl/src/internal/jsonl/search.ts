/**
 * The JSONL store's text search: files keep no index of message text, so a search reads every
 * session of the location (read-only, a few at a time) and matches its messages' text
 * (`StoreRows.searchMatch`: every word, as a word prefix, case-insensitive). A session that cannot
 * be read is left out of the hits (as `fsck` would report it), not the search's failure.
 */
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type { SearchHit, SearchQuery, SessionSummary, StoreFailure } from "@branchlog/session-store/TranscriptStore"
import * as Effect from "effect/Effect"
import type { Env } from "./env.js"
import { load } from "./load.js"

/** The hits of `query` among `sessions`, best first (ties: the newer message first). */
export const search = (
  env: Env,
  sessions: Effect.Effect<ReadonlyArray<SessionSummary>, StoreFailure>,
  query: SearchQuery
): Effect.Effect<ReadonlyArray<SearchHit>, StoreFailure> =>
  Effect.gen(function*() {
    const words = StoreRows.searchTerms(query.text)
    if (words.length === 0) return []
    const hits: Array<SearchHit> = []
    yield* Effect.forEach(
      yield* sessions,
      (session) =>
        load(env, session.path, { readOnly: true, cache: false, cwd: session.cwd }).pipe(
          Effect.map((loaded) => {
            for (const entry of loaded.state.entries) {
              const searchable = StoreRows.searchText(entry)
              if (searchable === undefined) continue
              const found = StoreRows.searchMatch(searchable.text, words)
              if (found === undefined) continue
              hits.push({
                ref: SessionRef.file(session.path),
                entryId: entry.id,
                role: searchable.role,
                timestamp: entry.timestamp,
                snippet: found.snippet,
                score: found.score
              })
            }
          }),
          Effect.catchAll(() => Effect.void)
        ),
      { concurrency: 4, discard: true }
    )
    return hits
      .sort((a, b) => b.score - a.score || (b.timestamp ?? "").localeCompare(a.timestamp ?? ""))
      .slice(0, query.limit ?? 20)
  })
