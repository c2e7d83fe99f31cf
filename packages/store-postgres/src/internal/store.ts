/**
 * The PostgreSQL backend of `TranscriptStore` (see `PostgresStore` for the model): references,
 * schema readiness, loads, change queries, holds and their writes, watch; the listings and the
 * search are in `listing.ts`, the bounded open in `active.ts`.
 */
import type { Line } from "@branchlog/session-core"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import * as StoreRows from "@branchlog/session-store/StoreRows"
import type {
  Changes,
  Cursor,
  Held,
  HoldOptions,
  Loaded,
  LoadOptions,
  LoadReport,
  StoredRow,
  StoreFailure,
  TranscriptStoreShape
} from "@branchlog/session-store/TranscriptStore"
import { SessionNotFoundError } from "@branchlog/session-store/TranscriptStore"
import { replacedWhileStreaming, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import type { MigrationError } from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Active from "./active.js"
import * as HeldModule from "./held.js"
import * as Lease from "./lease.js"
import * as Listing from "./listing.js"
import * as Pools from "./pools.js"
import * as Rows from "./rows.js"
import * as Schema from "./schema.js"
import { isTransient, onPool, redact, retrying, retrySchedule, type Run, toStoreError } from "./sql.js"

/** Options of the store. */
export interface Options extends Pools.PoolOptions {
  /** How long an operation retries transient failures (a server away, a lost connection) before failing (default 60 s). */
  readonly retryMs?: number
  /** How long the first connection to a database is tried before failing (default 3 s). */
  readonly firstConnectMs?: number
  /**
   * The database of a session created without a location (a `postgres://` URL): the store's
   * `defaultLocation`. Without it, such a create fails (`BackendFailureError`): name a location.
   */
  readonly defaultLocation?: string
}

type Ref = SessionRef.PostgresRef

/** `postgresql://` and `postgres://` are one scheme: the canonical form is `postgres://`. */
const canonicalUrl = (url: string): string =>
  (url.startsWith("postgresql://") ? `postgres://${url.slice("postgresql://".length)}` : url).replace(/\/+$/, "")

/** How the store names sessions and locations (no connection needed). */
export const addressing = {
  resolveLocation: canonicalUrl,
  locationOf: (ref: SessionRef.SessionRef): string => ref._tag === "Postgres" ? canonicalUrl(ref.url) : "",
  refFor: (location: string, header: { readonly id: string }): SessionRef.SessionRef => ({
    _tag: "Postgres",
    url: canonicalUrl(location),
    id: header.id
  }),
  positionAfter: StoreRows.positionAfter
}

/** The refusal of the database at `url`, whose schema is version `found`, newer than this store's. */
export const schemaTooNew = (url: string, found: number): SchemaTooNewError =>
  new SchemaTooNewError({ store: "postgres", location: redact(url), found, supported: Schema.latestVersion })

/** The store in `scope`. */
export const make = (scope: Scope.Scope, options: Options = {}): Effect.Effect<TranscriptStoreShape> =>
  Effect.gen(function*() {
    const id = Symbol("PostgresStore")
    const retryMs = options.retryMs ?? 60_000
    const pools = yield* Pools.make(scope, options)
    const holding = FiberRef.unsafeMake<ReadonlyMap<string, Held>>(new Map())
    const local = new Map<string, Effect.Semaphore>()
    const leases = new WeakMap<Held, Lease.Lease>()

    const serve = (ref: SessionRef.SessionRef): Effect.Effect<Ref, SessionRef.UnsupportedSessionRefError> =>
      ref._tag === "Postgres"
        ? Effect.succeed({ _tag: "Postgres", url: canonicalUrl(ref.url), id: ref.id })
        : Effect.fail(new SessionRef.UnsupportedSessionRefError({ ref: SessionRef.format(ref), store: "postgres" }))
    const keyOf = (ref: Ref) => SessionRef.format(ref)
    const cursorOf = (key: string, generation: number, seq: number) =>
      StoreRows.toCursor({ store: id, key, generation, seq })

    const fail = (path: string, operation: string) => (error: unknown) =>
      Effect.fail(toStoreError(path, operation)(error))

    /** The pool of `url`, its database given the schema when `writable` (else checked only). */
    const ready = (
      url: string,
      writable: boolean
    ): Effect.Effect<
      { pool: Pools.Pool; present: boolean; current: boolean },
      SqlError | MigrationError | SchemaTooNewError
    > =>
      Effect.gen(function*() {
        // a server this store never reached fails soon (a wrong URL, nothing listening); one that
        // went away after is waited for (below, and in every operation's retries)
        const pool = yield* retrying(pools.get(url), Math.min(retryMs, options.firstConnectMs ?? 3_000))
        if (pool.migrated) return { pool, present: true, current: true }
        if (writable) {
          const { found, tooNew } = yield* Schema.migrate(pool.sql)
          if (tooNew) return yield* schemaTooNew(url, found!)
          pool.migrated = true
          return { pool, present: true, current: true }
        }
        const version = yield* Schema.versionOf(onPool(pool.sql))
        if (version !== undefined && version > Schema.latestVersion) return yield* schemaTooNew(url, version)
        if (version === Schema.latestVersion) pool.migrated = true
        // an older schema is read as it is (never migrated by a read)
        return {
          pool,
          present: version !== undefined && version >= Schema.readableFrom,
          current: version === Schema.latestVersion
        }
      }).pipe(
        Effect.retry({
          schedule: retrySchedule(retryMs),
          while: (error) => isTransient(error) && pools.opened(url)
        })
      )

    const loadedOf = (
      key: string,
      generation: number,
      seq: number,
      lines: ReadonlyArray<Line.ParsedLine>,
      extra: Partial<LoadReport> = {}
    ) => StoreRows.loaded(lines, cursorOf(key, generation, seq), extra)

    const ctx: HeldModule.Context = { id, cursorOf, fail }
    const changesOn = (run: Run, ref: Ref, cursor: Cursor) => HeldModule.changesOn(ctx, run, ref, cursor)
    const makeHeld = (ref: Ref, key: string, lease: Lease.Lease): Held => HeldModule.make(ctx, ref, key, lease)

    const exclusive = <A, E, R>(
      ref: SessionRef.SessionRef,
      use: (held: Held) => Effect.Effect<A, E, R>,
      lockOptions?: { readonly lock?: HoldOptions }
    ): Effect.Effect<A, E | StoreFailure, R> =>
      Effect.flatMap(serve(ref), (served) => {
        const key = keyOf(served)
        return Effect.flatMap(FiberRef.get(holding), (held) => {
          const outer = held.get(key)
          if (outer !== undefined) return use(outer)
          let semaphore = local.get(key)
          if (semaphore === undefined) {
            semaphore = Effect.unsafeMakeSemaphore(1)
            local.set(key, semaphore)
          }
          const hold = Effect.acquireUseRelease(
            Effect.flatMap(
              Effect.catchAll(ready(served.url, true), fail(key, "exclusive")),
              ({ pool }) =>
                Effect.catchAll(
                  Lease.acquire(pool, served.id, key, lockOptions?.lock?.timeoutMs ?? 60_000, retryMs),
                  fail(key, "exclusive")
                )
            ),
            (lease) => {
              const h = makeHeld(served, key, lease)
              leases.set(h, lease)
              return Effect.locally(use(h), holding, new Map([...held, [key, h]]))
            },
            (lease) => lease.release
          )
          return semaphore.withPermits(1)(hold)
        })
      })

    // --- loads --------------------------------------------------------------------------------

    /** What a load of stored rows gives: the rows parsed, their recovery if they need one, the report's parts. */
    const loadedParts = (found: Rows.Found, cwd: string) =>
      Effect.gen(function*() {
        const bytesRead = found.texts.reduce((n, t) => n + t.length + 1, 0)
        const lines = StoreRows.parse(found.texts)
        const last = found.texts.length
        const tornTail = found.tornTail
          ? { line: last, offset: last - 1, reason: "the last row had no newline after it" }
          : undefined
        if (StoreRows.isCurrent(lines)) return { lines, recovered: undefined, extra: { bytesRead, tornTail } }
        const recovered = yield* StoreRows.recover(lines, cwd)
        const extra = {
          migratedFrom: recovered.migratedFrom,
          recoveredCorruptHeader: recovered.recovered,
          bytesRead,
          tornTail
        }
        return { lines, recovered, extra }
      })

    const load = (ref: SessionRef.SessionRef, options: LoadOptions): Effect.Effect<Loaded, StoreFailure> =>
      Effect.flatMap(serve(ref), (served) =>
        Effect.gen(function*() {
          const key = keyOf(served)
          const readOnly = options.readOnly === true
          const { pool, present } = yield* Effect.catchAll(ready(served.url, !readOnly), fail(key, "load"))
          if (!present) return StoreRows.missing
          const found = yield* retrying(Rows.loadRows(onPool(pool.sql), served.id), retryMs).pipe(
            Effect.catchAll(fail(key, "load"))
          )
          if (found === undefined || found.texts.length === 0) return StoreRows.missing
          const { extra, lines, recovered } = yield* loadedParts(found, options.cwd)
          if (recovered === undefined) return loadedOf(key, found.head.generation, found.head.lastSeq, lines, extra)
          if (readOnly) return loadedOf(key, found.head.generation, found.head.lastSeq, recovered.lines, extra)
          return yield* exclusive(served, (held) =>
            Effect.map(
              held.replace(recovered.lines, { backup: recovered.recovered ? "corrupt" : "backup", cwd: options.cwd }),
              ({ backup, loaded }) => ({
                ...loaded,
                report: {
                  ...loaded.report,
                  ...extra,
                  corrupt: loadedOf(key, 0, 0, lines).report.corrupt,
                  rewritten: true,
                  backups: backup === undefined ? [] : [backup]
                }
              })
            ), options.lock === undefined ? {} : { lock: options.lock })
        }))

    const changes = (ref: SessionRef.SessionRef, cursor: Cursor): Effect.Effect<Changes, StoreFailure> =>
      Effect.flatMap(serve(ref), (served) =>
        Effect.gen(function*() {
          const key = keyOf(served)
          const { pool, present } = yield* Effect.catchAll(ready(served.url, false), fail(key, "changes"))
          if (!present) return { _tag: "Missing" } as const
          return yield* retrying(changesOn(onPool(pool.sql), served, cursor), retryMs).pipe(
            Effect.catchAll(fail(key, "changes"))
          )
        }))

    /** The rows as stored, a page at a time by sequence (`StoreRows.streamPages`). */
    const streamRows = (ref: SessionRef.SessionRef): Stream.Stream<StoredRow, StoreFailure> =>
      Stream.unwrap(Effect.map(serve(ref), (served) => {
        const key = keyOf(served)
        return StoreRows.streamPages(
          (after, limit) =>
            Effect.gen(function*() {
              const { pool, present } = yield* Effect.catchAll(ready(served.url, false), fail(key, "stream rows"))
              if (!present) return undefined
              return yield* retrying(Rows.pageRows(onPool(pool.sql), served.id, after, limit), retryMs).pipe(
                Effect.catchAll(fail(key, "stream rows"))
              )
            }),
          () => replacedWhileStreaming("postgres", redact(key))
        )
      }))

    // --- reads across sessions (listing.ts) ----------------------------------------------------

    const listingDeps: Listing.Deps = {
      connect: (url, operation) =>
        Effect.map(
          Effect.catchAll(ready(url, false), fail(url, operation)),
          ({ pool, present }) => present ? onPool(pool.sql) : undefined
        ),
      attempt: (effect, url, operation) => retrying(effect, retryMs).pipe(Effect.catchAll(fail(url, operation))),
      locations: (location) => location === undefined ? pools.urls() : [canonicalUrl(location)]
    }

    const watch = (ref: SessionRef.SessionRef): Stream.Stream<void, StoreFailure> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const served = yield* serve(ref)
        const pool = yield* Effect.catchAll(pools.get(served.url), fail(keyOf(served), "watch"))
        const hub = yield* pool.notifications
        const queue = yield* PubSub.subscribe(hub)
        const prefix = `${served.id}:`
        return Stream.fromQueue(queue).pipe(
          Stream.filter((payload) => payload.startsWith(prefix) && !payload.slice(prefix.length).includes(":")),
          Stream.as(undefined as void)
        )
      }))

    const activeDeps: Active.Deps = {
      connect: (url, readOnly) =>
        Effect.map(
          Effect.catchAll(ready(url, !readOnly), fail(url, "resume")),
          ({ current, pool, present }) => present ? { run: onPool(pool.sql), current } : undefined
        ),
      load,
      cursorOf,
      generationOf: (cursor, key) => StoreRows.fromCursor(cursor, id, key)?.generation,
      attempt: (effect, key) => retrying(effect, retryMs).pipe(Effect.catchAll(fail(key, "resume")))
    }

    return {
      name: "postgres",
      resolve: serve,
      ...addressing,
      load,
      loadActive: (ref, options) =>
        Effect.flatMap(serve(ref), (served) => Active.loadActive(activeDeps, served, keyOf(served), options)),
      streamRows,
      changes,
      exclusive,
      list: (query) => Listing.list(listingDeps, query),
      mostRecent: (location) => Listing.mostRecent(listingDeps, canonicalUrl(location)),
      remove: (ref) =>
        Effect.flatMap(serve(ref), (served) =>
          exclusive(served, (held) =>
            Effect.gen(function*() {
              const key = keyOf(served)
              // on the hold's connection; the notification tells followers it is gone
              const rows = yield* leases.get(held)!.use((run) =>
                run(
                  `WITH removed AS (DELETE FROM branchlog_sessions WHERE session_id = $1 AND last_seq > 0 RETURNING session_id)
                   SELECT session_id, pg_notify($2, session_id || ':0') FROM removed`,
                  [served.id, Pools.CHANNEL]
                )
              ).pipe(Effect.catchAll(fail(key, "remove")))
              if (rows.length === 0) return yield* new SessionNotFoundError({ ref: redact(key) })
            }))),
      search: (query) => Listing.search(listingDeps, query),
      watch,
      defaultLocation: () =>
        StoreRows.configuredLocation("postgres", options.defaultLocation, addressing.resolveLocation)
    } satisfies TranscriptStoreShape
  })
