/**
 * vitest global setup: one throwaway server for the whole run (or `BRANCHLOG_PG_URL`), its URL
 * given to the tests as `inject("pgUrl")`, stopped at the end. With an external server, the
 * databases the run made are dropped at the end.
 */
import type { TestProject } from "vitest/node"
import { dropDatabases, type Server, startServer } from "./server.js"

declare module "vitest" {
  export interface ProvidedContext {
    pgUrl: string
    /** The prefix of every database this run makes. */
    pgPrefix: string
  }
}

let server: Server | undefined
const prefix = `bl${process.pid}`

export async function setup(project: TestProject) {
  server = await startServer()
  project.provide("pgUrl", server.url)
  project.provide("pgPrefix", prefix)
}

export async function teardown() {
  if (server === undefined) return
  if (!server.embedded) await dropDatabases(server.url, prefix).catch(() => undefined)
  await server.dispose()
}
