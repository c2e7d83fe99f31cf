#!/usr/bin/env node
// The workspace's test command: builds every package (turbo, cached), then runs, three tasks at a
// time, longest first: the tests of every workspace package, the release check (tooling/release:
// the manifests against the sources, and the release end to end against a throwaway registry),
// the type check of the whole workspace (one program), and its lint (`pnpm lint`: eslint, and dpdm for
// import cycles). Prints one closing line, alone: `N passed, M failed`, summing every package's
// vitest results. A package whose tests did not report (a crash, a type error) counts as one
// failure, and so do a failing type check and a failing lint. Exits non-zero when anything failed.
//
// The order is the point. The run is bound by CPU (about 1,530 CPU-seconds after the install's,
// 2,230 before the release check's installs were shared between Nodes and the type check became one
// program), so any time with a core idle is time added: with turbo choosing the order, the cli suite
// (the longest) waited for a slot behind the store suites and then ran alone on one core; with the
// release check after every package suite, the cli ran alone for its last four minutes, then the
// release check alone for ten. Now the two longest start first and the third slot takes the rest,
// longest first; the cli suite runs a worker per core (packages/cli/vitest.config.ts).
// Each task only needs the build: the suites run from sources, the release check packs `dist/`.
// Arguments (`--force`) go to the build.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const resultsFile = ".vitest-results/results.json"
const packagesDir = join(root, "packages")
const releaseDir = join(root, "tooling", "release")

/**
 * The longest test tasks, longest first: seconds each took in a whole run on two cores (three tasks
 * at a time): cli 598 (a worker per core) and the release check 782 side by side from the start,
 * then store-postgres 371, store-sqlite 142, store-jsonl 221, session-store 36, agent-session 37,
 * session-core 28, sessions-semantics 26; any other runs after them (801 s in all).
 */
const longestFirst = [
  "packages/cli",
  "tooling/release",
  "packages/store-postgres",
  "packages/store-sqlite",
  "packages/store-jsonl",
  "packages/session-store",
  "packages/agent-session",
  "packages/session-core",
  "packages/sessions-semantics"
]

const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
const rank = (dir) => {
  const at = longestFirst.indexOf(dir.slice(root.length + 1))
  return at === -1 ? longestFirst.length : at
}
const packages = readdirSync(packagesDir)
  .map((name) => join(packagesDir, name))
  .filter((dir) => existsSync(join(dir, "package.json")) && manifestOf(dir).scripts?.test)
const withRelease = [...packages, releaseDir].sort((a, b) => rank(a) - rank(b))

for (const dir of withRelease) rmSync(join(dir, ".vitest-results"), { recursive: true, force: true })

const env = {
  ...process.env,
  BRANCHLOG_TEST_JSON: resultsFile,
  TURBO_TELEMETRY_DISABLED: "1",
  FORCE_COLOR: process.env.FORCE_COLOR ?? "0"
}

// the builds first: the cli suite runs the built executable, the release check packs dist/
const build = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "build", "--output-logs=errors-only", ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit", env }
)

/** Runs `pnpm run SCRIPT` in a package, each output line prefixed with `name:script: `; resolves with its exit code. */
const runScript = (dir, script) =>
  new Promise((done) => {
    const prefix = `${manifestOf(dir).name}:${script}: `
    const child = spawn("pnpm", ["run", script], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
    for (const stream of [child.stdout, child.stderr]) {
      let pending = ""
      stream.on("data", (data) => {
        const lines = (pending + data.toString()).split("\n")
        pending = lines.pop()
        for (const line of lines) process.stdout.write(prefix + line + "\n")
      })
      stream.on("end", () => {
        if (pending !== "") process.stdout.write(prefix + pending + "\n")
      })
    }
    child.on("close", (code) => done(code ?? 1))
  })

/** Runs the tasks `limit` at a time, in order; gives the failed ones' names. */
const pool = async (tasks, limit) => {
  const failed = []
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const [dir, script] = tasks[next++]
      if ((await runScript(dir, script)) !== 0) failed.push(`${manifestOf(dir).name}:${script}`)
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  return failed
}

const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`
// three tasks at a time: the suites with real processes, kills, a database server and its restarts
// are bounded in time with wide margins, and ten suites at once on two cores ate those margins;
// every suite (longest first), then the workspace's type check (one program: tsconfig.check.json),
// then the lint
const failedTasks = build.status === 0
  ? await pool([...withRelease.map((dir) => [dir, "test"]), [root, "check"], [root, "lint"]], 3)
  : ["the build"]
console.log(`the suites, type checks and lint took ${elapsed()}`)

let passed = 0
let failed = 0
const problems = []
for (const dir of withRelease) {
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
// a failed type check (or build) with every test passed still fails the run
const checksFailed = failedTasks.filter((task) => !task.endsWith(":test"))
if (checksFailed.length > 0) {
  failed += checksFailed.length
  problems.push(`failed: ${checksFailed.join(", ")}`)
}
for (const problem of problems) console.error(problem)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed === 0 && failedTasks.length === 0 ? 0 : 1)
