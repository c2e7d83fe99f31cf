/**
 * The bounded resume after foreign appends by pi 0.73.1 itself (issue 16), through the
 * differential tooling (tooling/differential/resume-rounds.mjs) on this package's sources: a few
 * random sessions, rounds of appends by pi's own SessionManager and by branchlog, and after each
 * `SessionManager.resume` (through the index pi left stale) against the full read-only open.
 * pi 0.73.1 comes from the references cache (`$BRANCHLOG_REFERENCES_DIR`, else
 * `~/.cache/branchlog/references`), which `pnpm differential` fills; without it the test is skipped
 * (the default test run downloads nothing). `pnpm differential:resume` runs the same with more sessions.
 */
import * as IdSource from "@branchlog/session-store/IdSource"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll } from "vitest"
import { reportLines, RESUME_SHAPES, runResumeRounds } from "../../../tooling/differential/resume-rounds.mjs"
import * as Format from "../src/internal/index/format.js"
import * as SessionFiles from "../src/SessionFiles.js"
import * as SessionStore from "../src/SessionStore.js"

const referencesDir = process.env.BRANCHLOG_REFERENCES_DIR ??
  path.join(os.homedir(), ".cache", "branchlog", "references")
const piManager = path.join(
  referencesDir,
  "pi",
  "node_modules",
  "@mariozechner",
  "pi-coding-agent",
  "dist",
  "core",
  "session-manager.js"
)
const hasPi = fs.existsSync(piManager)
const work = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-resume-differential-"))
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe("bounded resume after pi 0.73.1's appends", () => {
  it.live.skipIf(!hasPi)(
    `5 sessions × 3 rounds: every resume equals the full open (skipped unless pi 0.73.1 is in ${referencesDir}: \`pnpm differential\` installs it)`,
    () =>
      Effect.gen(function*() {
        const Pi = (yield* Effect.promise(() => import(pathToFileURL(piManager).href))).SessionManager
        const options = {
          count: 5,
          seed: 1,
          ops: 10,
          rounds: 3,
          shapes: RESUME_SHAPES,
          work,
          out: path.join(work, "mismatches")
        }
        const tally = yield* Effect.promise(() =>
          runResumeRounds(
            { SessionManager, IdSource, SessionFiles, Format, layer: SessionStore.layerNode, Effect },
            Pi,
            options
          )
        )
        expect(tally.mismatches, reportLines(tally, options).join("\n")).toEqual([])
        expect(tally.files).toBe(5)
        expect(tally.comparisons).toBe(5 * (1 + 3 * 4))
        // both ways of trusting a stale index are taken: folding pi's rows, and rebuilding
        expect(tally.resumes.caughtUp).toBeGreaterThan(0)
        expect(tally.resumes.rebuilt).toBeGreaterThan(0)
        expect(tally.piRows).toBeGreaterThan(0)
      }),
    300_000
  )
})
