/**
 * Every fixture (reference and differential, with their expected answers) copied file → SQLite
 * with `SessionCopy` over `StoreRouter.layerNode([driver])` (library level) gives the expected `context`, `tree` and `info` through `sqlite:PATH#ID`, and
 * copied back to a file is byte-identical to the file as opened (a legacy or header-less file:
 * to the file its writable open migrated).
 */
import { JsonView, Line } from "@branchlog/session-core"
import * as SessionCopy from "@branchlog/session-store/SessionCopy"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as SessionStore from "@branchlog/store-jsonl/SessionStore"
import * as StoreRouter from "@branchlog/store-jsonl/StoreRouter"
import { comparableViews, fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import { driver } from "../src/Driver.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-fixtures-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const all = fixtures()

/** `true` when the first line is a session header (else a writable open moves or makes one). */
const headerFirst = (bytes: Buffer): boolean => {
  try {
    return (JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { type?: unknown }).type === "session"
  } catch {
    return false
  }
}

/** The text a file holding `rows` has (a torn last row: no newline after it). */
const fileText = (rows: ReadonlyArray<Line.ParsedLine>, torn: boolean) =>
  rows.length === 0 ? "" : rows.map(Line.serialize).join("\n") + (torn ? "" : "\n")

describe("fixtures copied file → sqlite → file", () => {
  it("finds the fixtures", () => expect(all.length).toBeGreaterThanOrEqual(10))

  for (const fixture of all) {
    it.live(`${fixture.name}: the expected context, tree and info through sqlite:…#ID; copied back byte-identical`, () =>
      Effect.gen(function*() {
        const dir = fs.mkdtempSync(path.join(root, "f-"))
        const file = path.join(dir, `${fixture.name}.jsonl`)
        fs.writeFileSync(file, fixture.bytes)
        const db = path.join(dir, "sessions.db")
        // the file as opened (a writable open migrates a legacy file, recovers a missing header)
        const source = yield* Effect.gen(function*() {
          const sm = yield* SessionManager.open(file)
          const store = yield* TranscriptStore
          const loaded = yield* store.load(SessionRef.file(file), { cwd: "/", readOnly: true, cache: false })
          return { id: sm.getSessionId(), rows: loaded.rows(), torn: loaded.report.tornTail !== undefined }
        }).pipe(Effect.provide(SessionStore.layerNode))
        const opened = fs.readFileSync(file)
        if (!fixture.expected.mayRewrite && headerFirst(fixture.bytes)) {
          expect(opened.equals(fixture.bytes), "a current file is not rewritten").toBe(true)
        }
        expect(fileText(source.rows, source.torn)).toBe(opened.toString("utf8"))

        const back = yield* Effect.gen(function*() {
          const copied = yield* SessionCopy.copy(file, { _tag: "Location", location: `sqlite:${db}` })
          const refText = SessionRef.format(copied.to)
          expect(refText).toBe(`sqlite:${db}#${source.id}`)
          for (const readOnly of [true, false]) {
            const sm = yield* SessionManager.open(refText, undefined, undefined, { readOnly, cache: false })
            expect(sm.loadReport().rewritten).toBe(false)
            const state = sm.getState()
            const views = comparableViews(fixture, {
              context: JsonView.context(state),
              tree: JsonView.tree(state),
              info: JsonView.info(state)
            })
            expect(views.got, fixture.name).toEqual(views.want)
          }
          const copy = path.join(dir, "copy.jsonl")
          yield* SessionCopy.copy(copied.to, { _tag: "Session", ref: SessionRef.file(copy) })
          return fs.readFileSync(copy)
        }).pipe(Effect.provide(StoreRouter.layerNode([driver])))
        expect(back.equals(opened), `${fixture.name} copied back`).toBe(true)
      }))
  }
})
