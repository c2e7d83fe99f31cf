/**
 * What the tests reach the run's server with: a fresh database each, statements through a plain
 * node-postgres client (another tool writing), and the store's layer with small pools.
 */
import * as Effect from "effect/Effect"
import pg from "pg"
import { inject } from "vitest"
import type { Run } from "../../src/internal/sql.js"
import * as PostgresStore from "../../src/PostgresStore.js"
import { freshDatabase } from "./server.js"

/** The run's server (admin URL). */
export const adminUrl = (): string => inject("pgUrl")

/** A new empty database of the run's server. */
export const database = (): Promise<string> => freshDatabase(inject("pgUrl"), inject("pgPrefix"))

/** The store's layer with pools sized for tests. */
export const storeLayer = () => PostgresStore.layer({ maxConnections: 4, idleTimeoutMs: 2_000 })

/** Runs `f` with a plain client on `url` (opened and closed around it). */
export const withClient = async <A>(
  url: string,
  f: (client: InstanceType<typeof pg.Client>) => Promise<A>
): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** A `Run` over a plain client (for the store's own statements, run as another tool would). */
export const runOver = (client: InstanceType<typeof pg.Client>): Run => (text, params = []) =>
  Effect.promise(() => client.query(text, params)).pipe(Effect.map((result) => result.rows))
