// Shared vitest configuration for every branchlog package.
// Tests run from source: the "@branchlog/source" export condition points each
// workspace package at its `src/index.ts`, so no build is needed before a test run.
// vitest resolves SSR imports with `ssr.resolve.conditions`, not `resolve.conditions`.
import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

const conditions = ["@branchlog/source"]

// Test files run at once in one package: half the cores (at least 1; a package may ask for all of
// them: `shareOfCores`), or $BRANCHLOG_TEST_WORKERS. The workspace's test command runs three
// packages at a time (tooling/scripts/test-all.mjs), and the suites spawn real processes, a
// database server and their restarts: vitest's default (a worker per core in each package) put six
// workers and their children on a 2-core machine, where the suite took 22 minutes and a worker's
// report to vitest's main process timed out under the load ("Timeout calling onTaskUpdate") with
// every test passed.
const workers = (shareOfCores) =>
  Number(process.env.BRANCHLOG_TEST_WORKERS) > 0
    ? Number(process.env.BRANCHLOG_TEST_WORKERS)
    : Math.max(1, Math.floor(availableParallelism() * shareOfCores))

/**
 * The shared config; `overrides.test` is merged into `test`; `overrides.shareOfCores` (default ½)
 * sets how many of the machine's cores its test files run on at once.
 *
 * Test files share their worker's module graph (`isolate: false`): each file in a fresh worker
 * evaluated the workspace's sources and effect again, which cost a package's suite 40% of its CPU
 * (store-jsonl alone: 173 → 101 CPU-seconds; session-core 35 → 15), and the whole run is bound by
 * CPU on two cores. A file may not leave state behind that another reads: a test that changes
 * `process.env` restores it, temporary folders are each file's own, and no file uses
 * `@effect/vitest`'s `layer()`, which assigns its methods onto the shared `it` (the lint refuses
 * it). Files that depend on a fresh process (store-sqlite's node:sqlite files: the SQLite engine is
 * chosen once per process, from the environment) are a project of their own with `isolate: true`.
 */
export const sharedConfig = (overrides = {}) =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ["test/**/*.test.ts"],
      maxWorkers: workers(overrides.shareOfCores ?? 0.5),
      minWorkers: 1,
      isolate: false,
      testTimeout: 120_000,
      hookTimeout: 120_000,
      reporters: process.env.BRANCHLOG_TEST_JSON
        ? ["default", ["json", { outputFile: process.env.BRANCHLOG_TEST_JSON }]]
        : ["default"],
      ...overrides.test
    }
  })
