/**
 * Every public fixture opens read-only through the store (Node layer on a real copy, memory
 * layer on a volume copy) and yields the expected `context`, `tree` and `info`; the file is
 * byte-identical afterwards and nothing is written beside it. A writable open of a current-version
 * fixture does not write either.
 */
import { JsonView } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { comparableViews, fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as path from "node:path"
import { afterAll } from "vitest"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"

afterAll(cleanupTempRoots)

const all = fixtures()

const headerFirst = (bytes: Buffer): boolean => {
  try {
    return (JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { type?: unknown }).type === "session"
  } catch {
    return false
  }
}

for (const harness of harnesses) {
  describe(`fixtures through the store (${harness.name})`, () => {
    it("finds the fixtures", () => expect(all.length).toBeGreaterThanOrEqual(10))

    for (const fixture of all) {
      it.live(`${fixture.name}: read-only open gives the expected context, tree and info, and leaves the file byte-identical`, () => {
        const { dir, ext, layer } = harness.make()
        const file = path.join(dir, `${fixture.name}.jsonl`)
        ext.write(file, fixture.bytes)
        return Effect.gen(function*() {
          for (const cache of [false, true, true]) {
            const sm = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache })
            const state = sm.getState()
            const views = comparableViews(fixture, {
              context: JsonView.context(state),
              tree: JsonView.tree(state),
              info: JsonView.info(state)
            })
            expect(views.got, fixture.name).toEqual(views.want)
          }
          expect(ext.read(file)!.equals(fixture.bytes)).toBe(true)
          expect(ext.list(dir)).toEqual([`${fixture.name}.jsonl`])
        }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
      })
    }

    it.live("a writable open of a current-version fixture writes nothing", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        // current version and the header on line 1 (legacy and misplaced headers are rewritten, with a backup)
        const current = all.filter((f) => !f.expected.mayRewrite && headerFirst(f.bytes))
        expect(current.length).toBeGreaterThanOrEqual(10)
        for (const fixture of current) {
          const file = path.join(dir, `${fixture.name}.jsonl`)
          ext.write(file, fixture.bytes)
          const sm = yield* SessionManager.open(file)
          expect(sm.loadReport().rewritten, fixture.name).toBe(false)
          expect(ext.read(file)!.equals(fixture.bytes), fixture.name).toBe(true)
        }
      }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
    })
  })
}
