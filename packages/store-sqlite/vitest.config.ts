import { sharedConfig } from "@branchlog/tooling/vitest"

// The suites look into the databases with better-sqlite3 in the test process itself. Two SQLite
// libraries in one process do not see each other's POSIX locks (SQLite's "multiple copies" hazard:
// lost locks, then a corrupt file), so the store runs on better-sqlite3 here too; the store on
// node:sqlite has its own files (test/node-sqlite*.test.ts), which open nothing with better-sqlite3.
// The engine is chosen once per process: those files are a project of their own, each in a process
// of its own (`isolate: true`); the others share their worker, as in the other packages (each in a
// fresh one, their module loading was half of the suite's CPU).
const nodeSqlite = ["test/node-sqlite*.test.ts"]

// (a project's `include` is added to the root's: the root includes nothing, each project its own)
export default sharedConfig({
  test: {
    include: [],
    env: { BRANCHLOG_SQLITE_ENGINE: "better-sqlite3" },
    projects: [
      { extends: true, test: { name: "better-sqlite3", include: ["test/**/*.test.ts"], exclude: nodeSqlite } },
      { extends: true, test: { name: "node:sqlite", include: nodeSqlite, isolate: true } }
    ]
  }
})
