#!/usr/bin/env node
// `pnpm conformance`: runs the store conformance suite of every backend and prints one line per
// backend, `BACKEND: N passed, M failed`, then the plain closing line `N passed, M failed`.
//
// Discovery: every workspace package with a `test/conformance.test.ts` is run (one after the
// other) with vitest's JSON reporter. In that file a package registers its backends with
// `Conformance.suite(backend)` from `@branchlog/session-store/testing`; each backend's cases sit
// in a block titled `conformance: <backend name>`, and results are counted per such title. A
// package whose file did not run (a crash, a load error) counts as one failure, named on stderr,
// and so does a package that registered no backend. Failing cases are named on stderr. Exits
// non-zero when anything failed or no backend ran.
//
// session-store registers `memory` (`MemoryStore`, the in-memory backend: rows in plain state, no
// filesystem); store-jsonl registers `jsonl` (JSONL files in real temporary folders) and
// `jsonl-memfs` (the JSONL files on one in-memory volume); store-sqlite `sqlite`, store-postgres
// `postgres`. Packages run in folder order, so the output is
//   memory: N passed, 0 failed
//   jsonl: N passed, 0 failed
//   jsonl-memfs: N passed, 0 failed
//   postgres: N passed, 0 failed
//   sqlite: N passed, 0 failed
//
// Arguments: package folder names to run only those (e.g. `pnpm conformance session-store`).
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const packagesDir = join(root, "packages")
const only = process.argv.slice(2)
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const TITLE = /^conformance: (.+)$/

const packages = readdirSync(packagesDir)
  .filter((name) => only.length === 0 || only.includes(name))
  .map((name) => ({ name, dir: join(packagesDir, name) }))
  .filter(({ dir }) => existsSync(join(dir, "test", "conformance.test.ts")))

const backends = new Map()
const problems = []
const failures = []
const work = mkdtempSync(join(tmpdir(), "branchlog-conformance-run-"))

for (const pkg of packages) {
  const outputFile = join(work, `${pkg.name}.json`)
  const env = { ...process.env, FORCE_COLOR: "0" }
  delete env.BRANCHLOG_TEST_JSON
  const run = spawnSync(
    process.execPath,
    [vitest, "run", "test/conformance.test.ts", "--reporter=json", `--outputFile=${outputFile}`],
    { cwd: pkg.dir, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }
  )
  if (!existsSync(outputFile)) {
    problems.push(`${pkg.name}: no results (vitest exited with ${run.status})\n${run.stderr.slice(-4000)}`)
    continue
  }
  const report = JSON.parse(readFileSync(outputFile, "utf8"))
  let counted = 0
  for (const file of report.testResults) {
    if (file.status === "failed" && file.assertionResults.length === 0) {
      problems.push(`${pkg.name}: ${file.name} failed to load: ${file.message}`)
    }
    for (const result of file.assertionResults) {
      const title = result.ancestorTitles.map((t) => TITLE.exec(t)?.[1]).find((name) => name !== undefined)
      if (title === undefined) continue
      counted += 1
      const counts = backends.get(title) ?? { passed: 0, failed: 0 }
      if (result.status === "passed") counts.passed += 1
      else if (result.status === "failed") {
        counts.failed += 1
        failures.push(`${title}: ${result.fullName}\n  ${(result.failureMessages ?? []).join("\n").split("\n")[0]}`)
      }
      backends.set(title, counts)
    }
  }
  if (counted === 0) problems.push(`${pkg.name}: test/conformance.test.ts registered no backend`)
}
rmSync(work, { recursive: true, force: true })

let passed = 0
let failed = problems.length
for (const [name, counts] of backends) {
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed`)
  passed += counts.passed
  failed += counts.failed
}
for (const failure of failures) console.error(failure)
for (const problem of problems) console.error(problem)
if (backends.size === 0) {
  console.error("no backend ran")
  failed = Math.max(failed, 1)
}
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
