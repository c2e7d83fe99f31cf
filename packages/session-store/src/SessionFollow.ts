/**
 * Following a session: a `Stream` of the rows other writers (other processes, other hosts)
 * append to it, in order, none twice, for any store. It is driven by the store's `watch` signals
 * where the store has them (SQL: a notification per commit), with a poll beside them as a safety
 * net (a signal lost while a connection was down), or by the poll alone; after each signal it asks
 * `changes(cursor)`, so a doubled or missed signal loses nothing. A replaced session is re-read,
 * and only the entries it had not shown yet follow (its other rows are not shown again). When a `TranscriptObserver` is in context,
 * each followed entry is also reported to it (what sessions-semantics turns into transcript
 * events), as the writer's own `SessionManager` reports its appends.
 *
 * @since 0.1.0
 */
import type { Line } from "@branchlog/session-core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as SessionRef from "./SessionRef.js"
import { TranscriptObserver } from "./TranscriptObserver.js"
import type { Cursor, StoreFailure } from "./TranscriptStore.js"
import { TranscriptStore } from "./TranscriptStore.js"

/** Options of a follow. */
export interface FollowOptions {
  /** `"end"` (default): only rows appended after the follow began; `"start"`: every row first. */
  readonly from?: "start" | "end"
  /** Poll interval: the only driver without `watch` (default 250 ms), a safety net beside it (default 1 s). */
  readonly pollMs?: number
  /** The working folder a recovered header gets on the read-only loads (default `process.cwd()`). */
  readonly cwd?: string
}

const idOf = (row: Line.ParsedLine): string | undefined =>
  row._tag === "Entry" && typeof row.entry.id === "string" ? row.entry.id : undefined

/**
 * The rows appended to `ref` (by anyone) from now on, in store order, none twice; never ends by
 * itself (interrupt it, or `Stream.take`). Fails when the store fails (after its own retries).
 */
export const follow = (
  ref: SessionRef.SessionRef | string,
  options: FollowOptions = {}
): Stream.Stream<Line.ParsedLine, StoreFailure | SessionRef.InvalidSessionRefError, TranscriptStore> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const store = yield* TranscriptStore
    const parsed = typeof ref === "string" ? yield* SessionRef.parse(ref) : ref
    const resolved = yield* store.resolve(parsed)
    const observer = yield* Effect.serviceOption(TranscriptObserver)
    const cwd = options.cwd ?? process.cwd()
    const signals = yield* Queue.sliding<void>(1)
    // subscribe before the first load, so that nothing committed in between goes unsignalled
    if (store.watch !== undefined) {
      yield* Stream.runForEach(store.watch(resolved), () => signals.offer(undefined)).pipe(
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkScoped
      )
    }
    const pollMs = options.pollMs ?? (store.watch === undefined ? 250 : 1_000)
    yield* signals.offer(undefined).pipe(
      Effect.repeat(Schedule.spaced(Duration.millis(pollMs))),
      Effect.delay(Duration.millis(pollMs)),
      Effect.forkScoped
    )

    const shown = new Set<string>()
    let cursor: Cursor | undefined
    /** The rows not shown yet; rows without an id count as new only when `anonymous` (a tail, a new session). */
    const fresh = (rows: ReadonlyArray<Line.ParsedLine>, anonymous: boolean) =>
      rows.filter((row) => {
        const id = idOf(row)
        if (id === undefined) return anonymous
        if (shown.has(id)) return false
        shown.add(id)
        return true
      })
    /** Reads the session whole: `"all"` its rows, `"entries"` only its entries not shown yet (after a replace), `"none"`. */
    const reload = (emit: "all" | "entries" | "none") =>
      Effect.map(store.load(resolved, { readOnly: true, cache: false, cwd }), (loaded) => {
        cursor = loaded.cursor
        const rows = loaded.rows()
        const out = fresh(rows, emit === "all")
        return emit === "none" ? [] : out
      })

    const initial = yield* reload(options.from === "start" ? "all" : "none")
    const report = (rows: ReadonlyArray<Line.ParsedLine>) =>
      Option.isNone(observer) ? Effect.succeed(rows) : Effect.as(
        Effect.forEach(rows, (row) =>
          row._tag !== "Entry" ? Effect.void : observer.value.onAppend({
            sessionRef: SessionRef.format(resolved),
            sessionFile: SessionRef.pathOf(resolved) ?? SessionRef.format(resolved),
            sessionId: resolved._tag === "File" ? "" : resolved.id,
            entry: row.entry
          }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("TranscriptObserver failed", cause))), {
          discard: true
        }),
        rows
      )

    const step = Effect.gen(function*() {
      yield* Queue.take(signals)
      // a session that was not there yet (or went away): everything it has now is new
      if (cursor === undefined) return yield* reload("all")
      const change = yield* store.changes(resolved, cursor)
      switch (change._tag) {
        case "Unchanged":
          return []
        case "Appended":
          cursor = change.cursor
          return fresh(change.rows, true)
        case "Replaced":
          return yield* reload("entries")
        case "Missing":
          cursor = undefined
          return []
      }
    })
    return Stream.concat(
      Stream.fromIterable(initial),
      Stream.repeatEffect(step).pipe(Stream.flattenIterables)
    ).pipe(Stream.mapChunksEffect((chunk) => Effect.map(report([...chunk]), () => chunk)))
  }))
