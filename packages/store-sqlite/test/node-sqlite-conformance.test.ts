/**
 * The store conformance suite on Node's built-in `node:sqlite` (where it has FTS5: Node 22.23 and
 * 24; elsewhere the file only checks that the forced engine is refused with what to install). Nothing in
 * this file opens a database with better-sqlite3 (see vitest.config.ts).
 */
import { Conformance } from "@branchlog/session-store/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterAll, describe, expect, it } from "vitest"
import * as NodeSqlite from "../src/internal/nodeSqlite.js"
import * as SqliteEngine from "../src/SqliteEngine.js"
import { sqlite } from "./support/backend.js"

process.env[SqliteEngine.ENV] = "node:sqlite"

// node:sqlite with FTS5 (Node 22.13's has none: refused there too)
const hasNodeSqlite = NodeSqlite.load() !== undefined

describe("the node:sqlite engine", () => {
  it(hasNodeSqlite ? "is the one in use" : "is refused with what to install on this Node", () => {
    const current = SqliteEngine.current()
    if (hasNodeSqlite) return expect(current).toEqual(Either.right("node:sqlite"))
    if (Either.isRight(current)) throw new Error(`the engine is ${current.right}`)
    const error = current.left
    expect(error._tag).toBe("SqliteUnavailableError")
    expect(error.message).toContain("npm install better-sqlite3@^12")
    expect(error.message).toContain("Node 24")
  })
})

if (hasNodeSqlite) {
  const backend = sqlite()
  Conformance.suite(backend, { fixtures: fixtures() })
  afterAll(() => Effect.runPromise(backend.close))
}
