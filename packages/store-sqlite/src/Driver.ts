/**
 * What the CLI loads to serve `sqlite:` references: the kind of reference, the location prefix,
 * and the store (one for every database, closed with its scope). Structurally `StoreRouter.Driver`
 * of `@branchlog/session-store`.
 *
 * @since 0.1.0
 */
import type { TranscriptStoreShape } from "@branchlog/session-store/TranscriptStore"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as SqliteStore from "./SqliteStore.js"

/** A store driver: the reference kind and location prefix it serves, and how to make its store. */
export interface Driver {
  readonly kind: "Sqlite" | "Postgres" | "Memory" | "File"
  readonly scheme: string
  readonly make: Effect.Effect<TranscriptStoreShape, never, Scope.Scope>
}

/** The SQLite driver (default options). */
export const driver: Driver = { kind: "Sqlite", scheme: SqliteStore.scheme, make: SqliteStore.make() }
