/**
 * The SQLite backend of `TranscriptStore`: every `sqlite:PATH#ID` session in one embedded
 * database per path (Node's `node:sqlite` where the running Node has it, else better-sqlite3 12:
 * `SqliteEngine`; `@effect/sql`'s migrator creates the schema). A session's rows keep their text byte for byte (opaque, corrupt and blank rows,
 * CRLF, a BOM, a torn last line), so it moves to a JSONL file and back unchanged; a `sessions`
 * table keeps each session's listing summary current on every write (a listing never reads rows),
 * and an FTS5 index of message text serves `search`.
 *
 * Locations are `sqlite:/abs/path.db` (a database); `refFor(location, header)` is that database
 * with the header's id as session id. A cursor is the session's generation (bumped by every
 * replace) and its row count. Writes are single `BEGIN IMMEDIATE` transactions (WAL, busy timeout,
 * `synchronous=NORMAL`, `FULL` for `durability: "fsync"`); `exclusive` holds a lease row (see
 * `internal/holds.ts`), so each write inside a hold commits at once.
 *
 * @since 0.1.0
 */
import { Line } from "@branchlog/session-core"
import { SessionFileConflictError } from "@branchlog/session-store/SessionError"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type {
  Appended,
  Changes,
  Cursor,
  Held,
  Loaded,
  LoadOptions,
  LoadReport,
  SearchHit,
  TranscriptStoreShape,
  WriteOptions
} from "@branchlog/session-store/TranscriptStore"
import { SessionNotFoundError, StaleCursorError, TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { replacedWhileStreaming } from "@branchlog/session-store/TranscriptStoreError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { randomBytes } from "node:crypto"
import * as nodePath from "node:path"
import * as Active from "./internal/active.js"
import * as Connections from "./internal/connections.js"
import type { Db, SessionRow } from "./internal/database.js"
import { withHold } from "./internal/holds.js"

/** The location prefix this store serves. */
export const scheme = "sqlite:"

/**
 * The `FileSystemError` code that refused a database of a newer schema in 0.1.x.
 *
 * @deprecated Such a database now fails with the storage interface's
 * `TranscriptStoreError.SchemaTooNewError` (`_tag: "SchemaTooNewError"`, with `location`, `found`
 * and `supported`); no error carries this code any more. Match the tag instead.
 */
export const SCHEMA_TOO_NEW = Connections.SCHEMA_TOO_NEW

/** Options of the store. */
export interface Options {
  /** How long a write waits for another process's transaction (SQLite's busy timeout; default 5000 ms). */
  readonly busyTimeoutMs?: number
  /**
   * How many matches of a search are ranked (default {@link SEARCH_CANDIDATES}): those last in
   * storage order (the most recently written sessions, each one's latest messages), by bm25.
   */
  readonly searchCandidates?: number
  /**
   * The database of a session created without a location (`sqlite:PATH` or a path): the store's
   * `defaultLocation`. Without it, such a create fails (`BackendFailureError`): name a location.
   */
  readonly defaultLocation?: string
}

/** How many matches a search ranks by default: a query matching more ranks its 2,000 most recent. */
export const SEARCH_CANDIDATES = 2_000

/** The absolute database path of a location (`sqlite:PATH` or a bare path). */
export const databaseOf = (location: string): string =>
  nodePath.resolve(location.startsWith(scheme) ? location.slice(scheme.length) : location)

/** A session reference of this store. */
export const ref = (path: string, id: string): SessionRef.SqliteRef => ({ _tag: "Sqlite", path: databaseOf(path), id })

/** How this store names sessions and locations (no connection needed): `StoreRouter.Addressing`. */
export const addressing: Pick<TranscriptStoreShape, "resolveLocation" | "locationOf" | "refFor" | "positionAfter"> = {
  resolveLocation: (location) => `${scheme}${databaseOf(location)}`,
  locationOf: (r) => r._tag === "Sqlite" ? `${scheme}${databaseOf(r.path)}` : "",
  refFor: (location, header) => ref(location, header.id),
  positionAfter: StoreRows.positionAfter
}

/** The store (its databases are closed with the scope). */
export const make = (options: Options = {}): Effect.Effect<TranscriptStoreShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const connections = yield* Effect.acquireRelease(
      Connections.make({ busyTimeoutMs: options.busyTimeoutMs ?? 5000 }),
      (c) => Effect.sync(() => c.close())
    )
    const id = Symbol("SqliteStore")
    const candidates = Math.max(1, options.searchCandidates ?? SEARCH_CANDIDATES)

    const serve = (r: SessionRef.SessionRef) =>
      r._tag === "Sqlite"
        // the reference itself when canonical: the manager knows its hold by the reference's identity
        ? Effect.succeed(databaseOf(r.path) === r.path ? r : ref(r.path, r.id))
        : Effect.fail(new SessionRef.UnsupportedSessionRefError({ ref: SessionRef.format(r), store: "sqlite" }))
    const keyOf = (r: SessionRef.SqliteRef) => SessionRef.format(r)
    const cursorOf = (key: string, generation: number, seq: number) =>
      StoreRows.toCursor({ store: id, key, generation, seq })
    const run = <A>(db: Db, operation: string, f: () => A) => Connections.attempt(db.path, operation, f)

    const tornOf = (session: SessionRow, lines: ReadonlyArray<Line.ParsedLine>): Partial<LoadReport> => {
      if (session.torn !== 1 || lines.length === 0) return {}
      const last = lines[lines.length - 1]!
      return {
        tornTail: {
          line: last.line,
          offset: last.offset,
          reason: last._tag === "Corrupt" ? last.reason : "the last row ends without a newline"
        }
      }
    }

    const changesIn = (db: Db | undefined, key: string, sessionId: string, cursor: Cursor) =>
      db === undefined ? Effect.succeed<Changes>({ _tag: "Missing" }) : run(db, "changes", (): Changes => {
        const seen = StoreRows.fromCursor(cursor, id, key)
        return db.handle.transaction((): Changes => {
          const session = db.session(sessionId)
          if (session === undefined) return { _tag: "Missing" }
          if (seen === undefined || seen.generation !== session.generation || seen.seq > session.seq) {
            return { _tag: "Replaced" }
          }
          if (seen.seq === session.seq) return { _tag: "Unchanged" }
          const texts = db.rowsAfter(session.sid, seen.seq)
          const rows = texts.map((text, i) => Line.parse(text, seen.seq + i + 1, seen.seq + i))
          const seq = seen.seq + texts.length
          return { _tag: "Appended", rows, cursor: cursorOf(key, session.generation, seq), end: StoreRows.end(seq) }
        })()
      })

    const appended = (key: string, generation: number, from: number, seq: number): Appended => {
      const positions = []
      for (let s = from; s < seq; s++) positions.push({ line: s + 1, offset: s })
      return { cursor: cursorOf(key, generation, seq), positions, end: StoreRows.end(seq) }
    }

    const backupName = (key: string, label: string, now: number) =>
      `${key}.${label}-${new Date(now).toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}`

    const replaceIn = (
      db: Db,
      r: SessionRef.SqliteRef,
      texts: ReadonlyArray<string>,
      label: string | undefined
    ) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        run(db, "replace", () =>
          db.replace(r.id, texts, {
            nowMs: now,
            backup: label === undefined ? undefined : { label, name: () => backupName(keyOf(r), label, now) }
          })))

    const makeHeld = (db: Db, r: SessionRef.SqliteRef): Held => {
      const key = keyOf(r)
      let last: { generation: number; seq: number } | undefined
      const done = (generation: number, from: number, seq: number) => {
        last = { generation, seq }
        return appended(key, generation, from, seq)
      }
      return {
        ref: r,
        vouches: (cursor) => {
          const seen = StoreRows.fromCursor(cursor, id, key)
          return seen !== undefined && last !== undefined && seen.generation === last.generation &&
            seen.seq === last.seq
        },
        changes: (cursor) => changesIn(db, key, r.id, cursor),
        // appends at once when this hold wrote `cursor` last (the same transaction as `append`,
        // without the effect machinery); anything else goes through `append`
        unsafeAppendVouched: (cursor, texts, o) => {
          const seen = StoreRows.fromCursor(cursor, id, key)
          if (
            seen === undefined || last === undefined || texts.length === 0 || seen.generation !== last.generation ||
            seen.seq !== last.seq
          ) return undefined
          try {
            const result = db.write(r.id, texts, {
              expect: { generation: seen.generation, seq: seen.seq },
              index: false,
              nowMs: Date.now(),
              fsync: o?.durability === "fsync"
            })
            return result._tag === "Written"
              ? Either.right(done(result.generation, result.from, result.seq))
              : undefined
          } catch (cause) {
            return Either.left(Connections.toError(db.path, "append", cause))
          }
        },
        create: (texts, o?: WriteOptions) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.flatMap(
              run(db, "create", () =>
                db.write(r.id, texts, {
                  create: true,
                  index: false,
                  nowMs: now,
                  fsync: o?.durability === "fsync",
                  torn: o?.unterminated
                })),
              (result) =>
                result._tag === "Written"
                  ? Effect.succeed(done(result.generation, result.from, result.seq))
                  : Effect.fail(
                    new SessionFileConflictError({
                      path: key,
                      size: result._tag === "Conflict" ? result.rows : 0,
                      unit: "rows"
                    })
                  )
            )),
        append: (cursor, texts, o) =>
          Effect.suspend(() => {
            const seen = StoreRows.fromCursor(cursor, id, key)
            if (seen === undefined) return Effect.fail(new StaleCursorError({ ref: key, change: "Replaced" }))
            return Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.flatMap(
                run(db, "append", () =>
                  db.write(r.id, texts, {
                    expect: { generation: seen.generation, seq: seen.seq },
                    index: false,
                    nowMs: now,
                    fsync: o?.durability === "fsync"
                  })),
                (result) =>
                  result._tag === "Written"
                    ? Effect.succeed(done(result.generation, result.from, result.seq))
                    : Effect.fail(
                      new StaleCursorError({ ref: key, change: result._tag === "Stale" ? result.change : "Replaced" })
                    )
              ))
          }),
        replace: (rows, o) => {
          const texts = rows.map(Line.serialize)
          return Effect.map(replaceIn(db, r, texts, o.backup), ({ backup, generation }) => {
            last = { generation, seq: texts.length }
            return {
              backup,
              loaded: texts.length === 0
                ? StoreRows.missing
                : StoreRows.loaded(StoreRows.parse(texts), cursorOf(key, generation, texts.length))
            }
          })
        }
      }
    }

    const exclusive = <A, E, R>(
      r: SessionRef.SessionRef,
      use: (held: Held) => Effect.Effect<A, E, R>,
      o?: Parameters<TranscriptStoreShape["exclusive"]>[2]
    ) =>
      Effect.flatMap(
        serve(r),
        (served) =>
          Effect.flatMap(connections.writable(served.path), (db) =>
            withHold(
              db,
              keyOf(served),
              served.id,
              Effect.suspend(() => use(makeHeld(db, served))),
              o?.lock,
              (op, f) => run(db, op, f)
            ))
      )

    const load = (r: SessionRef.SessionRef, o: LoadOptions) =>
      Effect.flatMap(serve(r), (served) =>
        Effect.gen(function*() {
          const key = keyOf(served)
          const db = o.readOnly === true
            ? yield* connections.readable(served.path)
            : yield* connections.writable(served.path)
          if (db === undefined) return StoreRows.missing
          const snap = yield* run(db, "load", () => db.snapshot(served.id))
          if (snap === undefined || snap.session.seq === 0) return StoreRows.missing
          const lines = StoreRows.parse(snap.texts)
          const cursor = cursorOf(key, snap.session.generation, snap.session.seq)
          if (StoreRows.isCurrent(lines)) return StoreRows.loaded(lines, cursor, tornOf(snap.session, lines))
          const recovered = yield* StoreRows.recover(lines, o.cwd)
          const extra = { migratedFrom: recovered.migratedFrom, recoveredCorruptHeader: recovered.recovered }
          if (o.readOnly === true) return StoreRows.loaded(recovered.lines, cursor, extra)
          return yield* exclusive(served, () =>
            Effect.map(
              replaceIn(db, served, recovered.lines.map(Line.serialize), recovered.recovered ? "corrupt" : "backup"),
              ({ backup, generation }): Loaded => {
                const texts = recovered.lines.map(Line.serialize)
                return StoreRows.loaded(StoreRows.parse(texts), cursorOf(key, generation, texts.length), {
                  ...extra,
                  corrupt: StoreRows.loaded(lines, cursor).report.corrupt,
                  rewritten: true,
                  backups: backup === undefined ? [] : [backup]
                })
              }
            ), o.lock === undefined ? undefined : { lock: o.lock })
        }))

    const databases = (location: string | undefined) =>
      location === undefined
        ? Effect.sync(() => connections.open())
        : Effect.map(connections.writable(databaseOf(location)), (db) => [db])

    const activeDeps: Active.Deps = {
      connect: (path, readOnly) => readOnly ? connections.readable(path) : connections.writable(path),
      load: (r, o) => load(r, o),
      cursorOf,
      generationOf: (cursor, key) => StoreRows.fromCursor(cursor, id, key)?.generation,
      run
    }

    const store: TranscriptStoreShape = {
      name: "sqlite",
      resolve: serve,
      ...addressing,
      defaultLocation: () =>
        StoreRows.configuredLocation("sqlite", options.defaultLocation, addressing.resolveLocation),
      load,
      loadActive: (r, o) =>
        Effect.flatMap(serve(r), (served) => Active.loadActive(activeDeps, served, keyOf(served), o)),
      streamRows: (r) =>
        Stream.unwrap(Effect.map(serve(r), (served) =>
          StoreRows.streamPages(
            (after, limit) =>
              Effect.flatMap(
                connections.readable(served.path),
                (db) =>
                  db === undefined
                    ? Effect.succeed(undefined)
                    : run(db, "stream rows", () => db.rowsPage(served.id, after, limit))
              ),
            () => replacedWhileStreaming("sqlite", keyOf(served))
          ))),
      changes: (r, cursor) =>
        Effect.flatMap(
          serve(r),
          (served) =>
            Effect.flatMap(connections.readable(served.path), (db) => changesIn(db, keyOf(served), served.id, cursor))
        ),
      exclusive,
      list: (query) =>
        Effect.flatMap(
          databases(query.location),
          (dbs) =>
            Effect.forEach(dbs, (db) => run(db, "list", () => db.list())).pipe(
              Effect.map((found) => {
                // one database: its listing's new array as it is
                const all = found.length === 1 ? found[0]! : found.flat()
                if (dbs.length > 1) all.sort((a, b) => b.modified.getTime() - a.modified.getTime())
                query.onProgress?.(all.length, all.length)
                return all
              })
            )
        ),
      mostRecent: (location) =>
        Effect.flatMap(connections.readable(databaseOf(location)), (db) =>
          db === undefined
            ? Effect.succeed(Option.none())
            : Effect.map(
              run(db, "most recent", () => db.mostRecent()),
              (found) => found === undefined ? Option.none<SessionRef.SessionRef>() : Option.some(ref(db.path, found))
            )).pipe(Effect.orElseSucceed(() => Option.none<SessionRef.SessionRef>())),
      remove: (r) =>
        Effect.flatMap(
          serve(r),
          (served) =>
            exclusive(served, () =>
              Effect.flatMap(connections.writable(served.path), (db) =>
                Effect.flatMap(
                  run(db, "remove", () => db.remove(served.id)),
                  (removed) => removed ? Effect.void : Effect.fail(new SessionNotFoundError({ ref: keyOf(served) }))
                )))
        ),
      search: (query) =>
        Effect.flatMap(databases(query.location), (dbs) =>
          Effect.map(
            Effect.forEach(dbs, (db) =>
              run(db, "search", () => {
                db.catchUp()
                return db.search(query.text, query.limit ?? 20, candidates).map((hit): SearchHit => ({
                  ref: ref(db.path, hit.session),
                  entryId: hit.entry_id,
                  role: hit.role,
                  timestamp: hit.timestamp ?? undefined,
                  snippet: hit.snippet,
                  score: hit.score
                }))
              })),
            (found) => found.flat().sort((a, b) => b.score - a.score).slice(0, query.limit ?? 20)
          ))
    }
    return store
  })

/** The SQLite store as the `TranscriptStore` (for users who want only SQLite). */
export const layer = (options?: Options): Layer.Layer<TranscriptStore> => Layer.scoped(TranscriptStore, make(options))
