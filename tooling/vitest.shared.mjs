// Shared vitest configuration for every branchlog package.
// Tests run from source: the "@branchlog/source" export condition points each
// workspace package at its `src/index.ts`, so no build is needed before a test run.
// vitest resolves SSR imports with `ssr.resolve.conditions`, not `resolve.conditions`.
import { defineConfig } from "vitest/config"

const conditions = ["@branchlog/source"]

/** The shared config; `overrides.test` is merged into `test`. */
export const sharedConfig = (overrides = {}) =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: 120_000,
      hookTimeout: 120_000,
      reporters: process.env.BRANCHLOG_TEST_JSON
        ? ["default", ["json", { outputFile: process.env.BRANCHLOG_TEST_JSON }]]
        : ["default"],
      ...overrides.test
    }
  })
