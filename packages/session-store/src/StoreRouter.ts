/**
 * One `TranscriptStore` over several backends: each {@link Driver} serves one kind of
 * `SessionRef` (and the locations of its scheme, `sqlite:PATH`, `postgres://…`), and a default
 * store (the one in context: the JSONL files of `@branchlog/store-jsonl`'s `StoreRouter.layerNode`,
 * say) serves the rest. Every operation goes to the
 * backend its reference or location names, so code above the store (`SessionManager`,
 * `SessionCatalog`, the CLI) never knows which backend it talks to.
 *
 * A driver's store is made on first use, inside the router's scope (a database is opened only
 * when a reference names it), and closed with it.
 *
 * ```ts
 * import { StoreRouter } from "@branchlog/store-jsonl"
 * import { driver as sqlite } from "@branchlog/store-sqlite"
 *
 * const layer = StoreRouter.layerNode([sqlite]) // files, and sqlite:PATH#ID
 * ```
 *
 * @since 0.1.0
 */
import { Line } from "@branchlog/session-core"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as SessionRef from "./SessionRef.js"
import type {
  ActiveResult,
  SearchHit,
  SearchQuery,
  StoredRow,
  StoreFailure,
  TranscriptStoreShape
} from "./TranscriptStore.js"
import { SearchUnsupportedError, TranscriptStore } from "./TranscriptStore.js"

/** The members of a store that need no connection: how it names sessions and locations. */
export type Addressing = Pick<TranscriptStoreShape, "resolveLocation" | "locationOf" | "refFor" | "positionAfter">

/** A backend the router can send references of one kind to. */
export interface Driver {
  /** The kind of reference it serves. */
  readonly kind: SessionRef.SessionRef["_tag"]
  /** The location prefixes it serves (`"sqlite:"`; `"postgres://"` and `"postgresql://"`). */
  readonly schemes: ReadonlyArray<string>
  /** Its synchronous members (the same functions its store has), used before the store is made. */
  readonly addressing: Addressing
  /** Its store, serving every reference of `kind` (made once, on first use, in the router's scope). */
  readonly make: Effect.Effect<TranscriptStoreShape, never, Scope.Scope>
}

/** How often a session of a store without `watch` is looked at by a follower (the router's polling signal). */
export const pollInterval: Duration.DurationInput = "250 millis"

interface Route {
  readonly kind: SessionRef.SessionRef["_tag"] | undefined
  readonly schemes: ReadonlyArray<string>
  readonly addressing: Addressing
  readonly store: Effect.Effect<TranscriptStoreShape>
}

/** The router over `fallback` (for every reference and location no driver claims) and `drivers`. */
export const make = (
  fallback: TranscriptStoreShape,
  drivers: ReadonlyArray<Driver>
): Effect.Effect<TranscriptStoreShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const routes: Array<Route> = []
    for (const driver of drivers) {
      routes.push({
        kind: driver.kind,
        schemes: driver.schemes,
        addressing: driver.addressing,
        store: yield* Effect.cached(Scope.extend(driver.make, scope))
      })
    }
    const home: Route = { kind: undefined, schemes: [], addressing: fallback, store: Effect.succeed(fallback) }
    const routeOfRef = (ref: SessionRef.SessionRef | undefined): Route =>
      ref === undefined ? home : routes.find((r) => r.kind === ref._tag) ?? home
    const byRef = (ref: SessionRef.SessionRef): Effect.Effect<TranscriptStoreShape> => routeOfRef(ref).store
    const byLocation = (location: string | undefined): Route =>
      location === undefined ? home : routes.find((r) => r.schemes.some((s) => location.startsWith(s))) ?? home
    const polling = Stream.fromSchedule(Schedule.spaced(pollInterval)).pipe(Stream.as(undefined as void))
    const search = (
      query: SearchQuery
    ): Effect.Effect<ReadonlyArray<SearchHit>, StoreFailure | SearchUnsupportedError> =>
      Effect.flatMap(byLocation(query.location).store, (store) =>
        store.search === undefined
          ? Effect.fail(new SearchUnsupportedError({ store: store.name, location: query.location ?? "(all)" }))
          : store.search(query))
    return {
      name: [fallback.name, ...drivers.map((d) => d.kind.toLowerCase())].join("+"),
      resolve: (ref) => Effect.flatMap(byRef(ref), (store) => store.resolve(ref)),
      defaultLocation: (cwd) => fallback.defaultLocation(cwd),
      resolveLocation: (location) => byLocation(location).addressing.resolveLocation(location),
      locationOf: (ref) => routeOfRef(ref).addressing.locationOf(ref),
      refFor: (location, header) => byLocation(location).addressing.refFor(location, header),
      positionAfter: (position, text, ref) => routeOfRef(ref).addressing.positionAfter(position, text, ref),
      load: (ref, options) => Effect.flatMap(byRef(ref), (store) => store.load(ref, options)),
      loadActive: (ref, options) =>
        Effect.flatMap(byRef(ref), (store): Effect.Effect<ActiveResult, StoreFailure> =>
          store.loadActive === undefined
            ? Effect.map(store.load(ref, options), (loaded) => ({ _tag: "Full", loaded }))
            : store.loadActive(ref, options)),
      streamRows: (ref) =>
        Stream.unwrap(Effect.map(byRef(ref), (store): Stream.Stream<StoredRow, StoreFailure> =>
          store.streamRows === undefined
            ? Stream.unwrap(Effect.map(
              store.load(ref, { readOnly: true, cache: false, cwd: "" }),
              (loaded) => {
                const rows = loaded.rows()
                const torn = loaded.report.tornTail !== undefined
                return Stream.fromIterable(rows.map((row, i) => ({
                  text: Line.serialize(row),
                  terminated: !(torn && i === rows.length - 1)
                })))
              }
            ))
            : store.streamRows(ref))),
      changes: (ref, cursor) =>
        Effect.flatMap(byRef(ref), (store) => store.changes(ref, cursor)),
      exclusive: (ref, use, options) => Effect.flatMap(byRef(ref), (store) => store.exclusive(ref, use, options)),
      // the one-step append is synchronous: the default store's is forwarded as it is; a driver's
      // store is made by an effect, so its references answer `undefined` (the caller takes the hold)
      ...(fallback.unsafeAppendLocked === undefined ? {} : {
        unsafeAppendLocked: (fiber, ref, cursor, rows, options) =>
          routeOfRef(ref) === home ? fallback.unsafeAppendLocked!(fiber, ref, cursor, rows, options) : undefined
      }),
      list: (query) => Effect.flatMap(byLocation(query.location).store, (store) => store.list(query)),
      mostRecent: (location) => Effect.flatMap(byLocation(location).store, (store) => store.mostRecent(location)),
      remove: (ref) => Effect.flatMap(byRef(ref), (store) => store.remove(ref)),
      search,
      watch: (ref) =>
        Stream.unwrap(Effect.map(byRef(ref), (store) => store.watch === undefined ? polling : store.watch(ref)))
    } satisfies TranscriptStoreShape
  })

/** The router as a layer over the default store in context (`TranscriptStore`), replacing it. */
export const layer = (drivers: ReadonlyArray<Driver>): Layer.Layer<TranscriptStore, never, TranscriptStore> =>
  Layer.scoped(TranscriptStore, Effect.flatMap(TranscriptStore, (fallback) => make(fallback, drivers)))
