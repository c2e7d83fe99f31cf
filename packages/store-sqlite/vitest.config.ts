import { sharedConfig } from "@branchlog/tooling/vitest"

// The suites look into the databases with better-sqlite3 in the test process itself. Two SQLite
// libraries in one process do not see each other's POSIX locks (SQLite's "multiple copies" hazard:
// lost locks, then a corrupt file), so the store runs on better-sqlite3 here too; the store on
// node:sqlite has its own files (test/node-sqlite*.test.ts), which open nothing with better-sqlite3.
// Each file runs in a process of its own (`isolate: true`, unlike the other packages): the engine is
// chosen once per process, and the node:sqlite files must not share one with better-sqlite3.
export default sharedConfig({
  test: { isolate: true, env: { BRANCHLOG_SQLITE_ENGINE: "better-sqlite3" } }
})
