/**
 * `tree` and `info` from the sidecar index (issue 27), as real processes: for every reference
 * fixture, `tree` (and `tree --depth 1`, `tree --around` the leaf) through the index prints what
 * the whole read prints (`--no-index`); `info --json` from the index keeps today's fields.
 */
import { SessionManager } from "@branchlog/session-store"
import { SessionOutline, SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { printTree } from "../src/internal/indexed.js"
import * as Style from "../src/internal/style.js"
import * as TreeText from "../src/internal/treeText.js"
import { runProcess } from "./support/harness.js"

// the reference fixtures, beside the repository
const shared = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures")
const temp = mkdtempSync("/tmp/branchlog-tree-index-")
afterAll(() => rmSync(temp, { recursive: true, force: true }))
// legacy-v1 has no ids: each read mints its own, so two reads never print the same tree
const names = readdirSync(shared).filter((name) => name.endsWith(".jsonl") && name !== "legacy-v1.jsonl")

describe("tree through the sidecar index", () => {
  for (const name of names) {
    it(`${name}: tree, tree --depth 1 and tree --around the leaf print what --no-index prints`, async () => {
      const dir = join(temp, name)
      mkdirSync(dir)
      const file = join(dir, name)
      cpSync(join(shared, name), file)
      const built = await runProcess(["context", file, "--json"])
      expect(built.code, built.stderr).toBe(0)
      const leaf = JSON.parse((await runProcess(["info", file, "--json", "--full"])).stdout).leafId as string | null
      const variants = [[], ["--depth", "1"], ...(leaf === null ? [] : [["--around", leaf]])]
      for (const extra of variants) {
        const indexed = await runProcess(["tree", file, ...extra])
        const whole = await runProcess(["tree", file, ...extra, "--no-index"])
        expect(indexed.code, indexed.stderr).toBe(0)
        expect(indexed.stdout).toBe(whole.stdout)
      }
      const info = JSON.parse((await runProcess(["info", file, "--json"])).stdout)
      const full = JSON.parse((await runProcess(["info", file, "--json", "--full"])).stdout)
      for (const key of ["id", "version", "cwd", "name", "entries", "leafId"]) expect(info[key]).toEqual(full[key])
    }, 60_000)
  }
})

describe("printTree", () => {
  /** A session of `n` entries with a branch every 7, its index built; its outline and full state. */
  const indexed = (name: string, n: number) =>
    Effect.gen(function*() {
      const file = join(temp, `${name}.jsonl`)
      const rows: Array<unknown> = [{
        type: "session",
        version: 3,
        id: name,
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/w"
      }]
      for (let i = 0; i < n; i++) {
        const parentId = i === 0 ? null : i % 7 === 0 ? `e${i - 2}` : `e${i - 1}`
        rows.push({
          type: "message",
          id: `e${i}`,
          parentId,
          timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          message: { role: "user", content: `entry ${i}`, timestamp: i }
        })
      }
      writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
      yield* SessionManager.resume(file, undefined, undefined, { readOnly: true, writeIndex: true })
      const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      const outline = Option.getOrThrow(yield* SessionOutline.open(file))
      return { outline, state: full.getState() }
    }).pipe(Effect.provide(SessionStore.layerNode))

  it("prints batch after batch what a whole read prints, holding none of it", async () => {
    const { outline, state } = await Effect.runPromise(indexed("batches", 200))
    const printed: Array<ReadonlyArray<string>> = []
    const outcome = await Effect.runPromise(
      printTree(outline, { style: Style.none }, (lines) => Effect.sync(() => printed.push(lines)), 16)
    )
    expect(outcome).toEqual(Option.some("printed"))
    expect(printed.length).toBeGreaterThan(2)
    expect(printed.flat()).toEqual(TreeText.render(state, { style: Style.none }))
  })

  it("prints nothing and gives None when the first batch is not where the index says; fails with SessionChanged after some were printed", async () => {
    const { outline } = await Effect.runPromise(indexed("changed", 200))
    for (const failAt of [0, 2]) {
      let calls = 0
      const moved: SessionOutline.Outline = {
        ...outline,
        entriesOf: (rows) => calls++ === failAt ? Effect.succeed(Option.none()) : outline.entriesOf(rows)
      }
      const printed: Array<string> = []
      const outcome = await Effect.runPromise(
        Effect.either(printTree(moved, { style: Style.none }, (lines) => Effect.sync(() => printed.push(...lines)), 16))
      )
      if (failAt === 0) {
        expect(outcome).toEqual(Either.right(Option.none()))
        expect(printed).toEqual([])
      } else {
        expect(Either.isLeft(outcome) && outcome.left._tag).toBe("SessionChanged")
        expect(Either.isLeft(outcome) && outcome.left.message).toContain("after 32 lines")
        expect(printed).toHaveLength(32)
      }
    }
  })
})
