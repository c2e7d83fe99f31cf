/**
 * `@branchlog/store-sqlite`: branchlog's storage interface on one embedded SQLite database per
 * path: raw rows (byte-identical to JSONL), a summary per session, FTS5 search.
 *
 * @since 0.1.0
 */

/** The store driver the CLI loads (`kind: "Sqlite"`, `scheme: "sqlite:"`). */
export * as Driver from "./Driver.js"

/** Which SQLite library serves the databases (`node:sqlite` or better-sqlite3) and the error when neither loads. */
export * as SqliteEngine from "./SqliteEngine.js"

/** The `TranscriptStore` over SQLite: `make`, `layer`, references and locations. */
export * as SqliteStore from "./SqliteStore.js"

export {
  /** The SQLite driver (`StoreRouter.Driver`). */
  driver,
  /** `undefined` when `sqlite:` references can be served here, else what to install. */
  unavailable
} from "./Driver.js"
