#!/usr/bin/env node
// Runs the type checks and the tests of every workspace package through turbo, then the lint of
// the whole workspace (`pnpm lint`: eslint, and dpdm for import cycles), then prints one closing line, alone: `N passed, M failed`,
// summing every package's vitest results. A package whose tests did not report (a crash, a type
// error) counts as one failure, and so do a failing type check and a failing lint. Exits non-zero
// when anything failed.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const resultsFile = ".vitest-results/results.json"
const packagesDir = join(root, "packages")
// every package under packages/, and the release check (tooling/release: the manifests against the
// sources, and the release end to end against a throwaway registry)
const packages = [...readdirSync(packagesDir).map((name) => join(packagesDir, name)), join(root, "tooling", "release")]
  .filter((dir) => existsSync(join(dir, "package.json")))
  .filter((dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts?.test)

for (const dir of packages) rmSync(join(dir, ".vitest-results"), { recursive: true, force: true })

// three tasks at a time: the suites with real processes, kills, a database server and its restarts
// are bounded in time with wide margins, and ten suites at once on two cores ate those margins
const turbo = spawnSync(
  "pnpm",
  [
    "exec",
    "turbo",
    "run",
    "check",
    "test",
    "--continue",
    "--concurrency=3",
    "--output-logs=new-only",
    ...process.argv.slice(2)
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      BRANCHLOG_TEST_JSON: resultsFile,
      TURBO_TELEMETRY_DISABLED: "1",
      FORCE_COLOR: process.env.FORCE_COLOR ?? "0"
    }
  }
)

// the lint of every file (formatting and session-store's boundaries included: `@effect/dprint`,
// `no-restricted-imports`), then no cycle of value imports (dpdm): `pnpm lint`, after the tests, as CI runs it
const lint = spawnSync("pnpm", ["run", "lint"], { cwd: root, stdio: "inherit" })

let passed = 0
let failed = 0
const problems = []
for (const dir of packages) {
  const file = join(dir, resultsFile)
  if (!existsSync(file)) {
    failed += 1
    problems.push(`${dir}: no test results (the run crashed or did not start)`)
    continue
  }
  const report = JSON.parse(readFileSync(file, "utf8"))
  passed += report.numPassedTests
  failed += report.numFailedTests
  if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) {
    failed += report.numFailedTestSuites
    problems.push(`${dir}: ${report.numFailedTestSuites} test file(s) failed to load`)
  }
}
if (turbo.status !== 0 && failed === 0) {
  failed += 1
  problems.push(`turbo exited with ${turbo.status} (a type check failed?)`)
}
if (lint.status !== 0) {
  failed += 1
  problems.push(`pnpm lint exited with ${lint.status}: the lint found problems (above)`)
}
for (const problem of problems) console.error(problem)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed === 0 && turbo.status === 0 ? 0 : 1)
