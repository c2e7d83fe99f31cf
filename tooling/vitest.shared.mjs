// Shared vitest configuration for every branchlog package.
// Tests run from source: the "@branchlog/source" export condition points each
// workspace package at its `src/index.ts`, so no build is needed before a test run.
// vitest resolves SSR imports with `ssr.resolve.conditions`, not `resolve.conditions`.
import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

const conditions = ["@branchlog/source"]

// Test files run at once in one package: half the cores (at least 1), or $BRANCHLOG_TEST_WORKERS.
// The workspace's test command runs three packages at a time (tooling/scripts/test-all.mjs), and the
// suites spawn real processes, a database server and their restarts: vitest's default (a worker per
// core in each package) put six workers and their children on a 2-core machine, where the suite
// took 22 minutes and a worker's report to vitest's main process timed out under the load
// ("Timeout calling onTaskUpdate") with every test passed.
const workers = Number(process.env.BRANCHLOG_TEST_WORKERS) > 0
  ? Number(process.env.BRANCHLOG_TEST_WORKERS)
  : Math.max(1, Math.floor(availableParallelism() / 2))

/** The shared config; `overrides.test` is merged into `test`. */
export const sharedConfig = (overrides = {}) =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ["test/**/*.test.ts"],
      maxWorkers: workers,
      minWorkers: 1,
      testTimeout: 120_000,
      hookTimeout: 120_000,
      reporters: process.env.BRANCHLOG_TEST_JSON
        ? ["default", ["json", { outputFile: process.env.BRANCHLOG_TEST_JSON }]]
        : ["default"],
      ...overrides.test
    }
  })
