/**
 * Which SQLite library serves the databases, chosen when the first database opens: Node's
 * built-in `node:sqlite` where the running Node has it with FTS5 (Node 22.23 and 24 do; 22.13's has
 * no FTS5), else the
 * `better-sqlite3` package (an optional peer: Node 20 needs it). `BRANCHLOG_SQLITE_ENGINE`
 * (`node:sqlite` or `better-sqlite3`) forces one. Neither: {@link SqliteUnavailableError}, saying
 * what to install.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import * as NodeSqlite from "./internal/nodeSqlite.js"

/** The SQLite libraries this package runs on. */
export type Engine = "node:sqlite" | "better-sqlite3"

/** The environment variable that forces an engine. */
export const ENV = "BRANCHLOG_SQLITE_ENGINE"

/** What to do when no engine can be loaded: one line, for people. */
export const INSTALL_HINT =
  "install better-sqlite3 (`npm install better-sqlite3@^12`, or `npm install --global better-sqlite3@^12` beside a global branchlog) or run on Node 24 (or a recent Node 22), whose node:sqlite has FTS5"

/** No SQLite library can be loaded in this process: `reason` says why, the message what to install. */
export class SqliteUnavailableError extends Schema.TaggedError<SqliteUnavailableError>()("SqliteUnavailableError", {
  node: Schema.String,
  reason: Schema.String
}) {
  /** One line: what is missing and what to install. */
  override get message(): string {
    return `no SQLite driver on Node ${this.node} (${this.reason}): ${INSTALL_HINT}`
  }
}

/** better-sqlite3's options of a new connection (what the store opens with, on either engine). */
export interface OpenOptions {
  readonly readonly?: boolean
  readonly fileMustExist?: boolean
  readonly timeout?: number
}

// a connection with better-sqlite3's API (typed in internal/better-sqlite3.d.ts, kept out of this
// module's declarations: an app on node:sqlite has no better-sqlite3 to resolve them against)
type Opener = (path: string, options: OpenOptions) => unknown

let chosen: Either.Either<{ readonly engine: Engine; readonly open: Opener }, SqliteUnavailableError> | undefined

const betterSqlite3 = (): Opener | string => {
  try {
    const Ctor = createRequire(import.meta.url)("better-sqlite3") as new(path: string, options: OpenOptions) => unknown
    return (path, options) => new Ctor(path, options)
  } catch (error) {
    return `better-sqlite3: ${(error as Error).message.split("\n")[0]}`
  }
}

const nodeSqlite = (): Opener | string => {
  const module = NodeSqlite.load()
  return module === undefined
    ? "node:sqlite: not in this Node, or without FTS5"
    : (path, options) => NodeSqlite.open(module, path, options)
}

const choose = () => {
  const forced = process.env[ENV]
  const order: ReadonlyArray<[Engine, () => Opener | string]> = forced === "better-sqlite3"
    ? [["better-sqlite3", betterSqlite3]]
    : forced === "node:sqlite"
    ? [["node:sqlite", nodeSqlite]]
    : [["node:sqlite", nodeSqlite], ["better-sqlite3", betterSqlite3]]
  const reasons: Array<string> = []
  for (const [engine, load] of order) {
    const open = load()
    if (typeof open === "function") return Either.right({ engine, open })
    reasons.push(open)
  }
  return Either.left(new SqliteUnavailableError({ node: process.versions.node, reason: reasons.join("; ") }))
}

/** The engine this process uses (loaded on the first call), or why there is none. */
export const current = (): Either.Either<Engine, SqliteUnavailableError> =>
  Either.map(chosen ??= choose(), (c) => c.engine)

/**
 * Opens a database with the current engine: a connection with better-sqlite3's API, whichever the
 * engine (what the store itself uses); throws {@link SqliteUnavailableError}.
 */
export const open = (path: string, options: OpenOptions): unknown => {
  const c = chosen ??= choose()
  if (Either.isLeft(c)) throw c.left
  return c.right.open(path, options)
}
