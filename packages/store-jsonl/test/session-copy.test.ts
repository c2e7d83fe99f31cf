/**
 * `SessionCopy` over real files: every fixture copied into a folder (where it gets its
 * `<time>_<id>.jsonl` name) or to a named file is byte-identical to the original (a legacy file:
 * to its migrated form) and opens with the expected context, tree and info; a torn last row stays
 * torn; an existing destination and a missing source fail clearly; `copyAll` copies a folder.
 */
import { JsonView } from "@branchlog/session-core"
import * as SessionCopy from "@branchlog/session-store/SessionCopy"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { comparableViews, fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionStore from "../src/SessionStore.js"

const temp = mkdtempSync(path.join(tmpdir(), "branchlog-copy-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const dir = path.join(temp, `case-${++n}`)
  mkdirSync(dir)
  return dir
}
const run = <A, E>(effect: Effect.Effect<A, E, SessionStore.Services>) => Effect.provide(effect, SessionStore.layerNode)

/** What a writable open makes of a fixture (the migrated form of a legacy one; the bytes themselves otherwise). */
const migrated = (bytes: Buffer) =>
  Effect.gen(function*() {
    const file = path.join(fresh(), "legacy.jsonl")
    writeFileSync(file, bytes)
    yield* SessionManager.open(file)
    return readFileSync(file)
  })

describe("SessionCopy (real files)", () => {
  for (const fixture of fixtures()) {
    it.live(`${fixture.name}: a copy into a folder is the original's bytes and gives its context, tree and info`, () =>
      run(Effect.gen(function*() {
        const source = path.join(fresh(), `${fixture.name}.jsonl`)
        writeFileSync(source, fixture.bytes)
        const into = fresh()
        const copied = yield* SessionCopy.copy(source, { _tag: "Location", location: into })
        const target = SessionRef.pathOf(copied.to)!
        expect(path.dirname(target)).toBe(into)
        expect(readdirSync(into)).toEqual([path.basename(target)])
        const want = yield* migrated(fixture.bytes)
        if (fixture.expected.idsGenerated === true) {
          // a v1 file gets fresh ids at each migration: the copy is one such migration, and copies of it are exact
          expect(readFileSync(target, "utf8").split("\n").length).toBe(want.toString("utf8").split("\n").length)
          const again = yield* SessionCopy.copy(target, { _tag: "Session", ref: SessionRef.file(`${target}.again`) })
          expect(readFileSync(SessionRef.pathOf(again.to)!).equals(readFileSync(target))).toBe(true)
        } else {
          expect(readFileSync(target).equals(want), fixture.name).toBe(true)
        }
        expect(readFileSync(source).equals(fixture.bytes)).toBe(true)
        const state = (yield* SessionManager.open(target, undefined, undefined, { readOnly: true })).getState()
        const views = comparableViews(fixture, {
          context: JsonView.context(state),
          tree: JsonView.tree(state),
          info: JsonView.info(state)
        })
        expect(views.got, fixture.name).toEqual(views.want)
      })))
  }

  const header = `{"type":"session","version":3,"id":"s-torn","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
  const user =
    `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}`

  it.live("a torn last row, a blank row and CRLF endings are copied as they are", () =>
    run(Effect.gen(function*() {
      const dir = fresh()
      const source = path.join(dir, "torn.jsonl")
      const bytes = `\ufeff${header}\r\n\n${user}\r\n{"type":"message","id":"a2","pare`
      writeFileSync(source, bytes)
      const target = path.join(dir, "copy.jsonl")
      yield* SessionCopy.copy(source, { _tag: "Session", ref: SessionRef.file(target) })
      expect(readFileSync(target, "utf8")).toBe(bytes)
    })))

  it.live("refuses a destination that holds a session, and a source that does not exist", () =>
    run(Effect.gen(function*() {
      const dir = fresh()
      const source = path.join(dir, "a.jsonl")
      writeFileSync(source, `${header}\n${user}\n`)
      const taken = path.join(dir, "b.jsonl")
      writeFileSync(taken, `${header}\n`)
      const conflict = yield* Effect.flip(SessionCopy.copy(source, { _tag: "Session", ref: SessionRef.file(taken) }))
      expect(conflict._tag).toBe("SessionFileConflictError")
      expect(readFileSync(taken, "utf8")).toBe(`${header}\n`)
      const missing = yield* Effect.flip(
        SessionCopy.copy(path.join(dir, "none.jsonl"), { _tag: "Location", location: dir })
      )
      expect(missing._tag).toBe("SessionNotFoundError")
      expect(missing.message).toContain("none.jsonl")
    })))

  it.live("copyAll copies every session of a folder, and names what it could not copy", () =>
    run(Effect.gen(function*() {
      const from = fresh()
      const some = fixtures().slice(0, 5)
      for (const fixture of some) writeFileSync(path.join(from, `${fixture.name}.jsonl`), fixture.bytes)
      const to = fresh()
      writeFileSync(path.join(to, "x.txt"), "not a session")
      const progress: Array<[number, number]> = []
      const result = yield* SessionCopy.copyAll(from, to, { onProgress: (done, total) => progress.push([done, total]) })
      expect(result.failed).toEqual([])
      expect(result.copied.length).toBe(some.length)
      expect(progress.at(-1)).toEqual([some.length, some.length])
      const again = yield* SessionCopy.copyAll(from, to)
      expect(again.copied).toEqual([])
      expect(again.failed.map((f) => f.error._tag)).toEqual(some.map(() => "SessionFileConflictError"))
    })))

  it("destination: a store location, a folder, or a session", () => {
    expect(SessionCopy.destination("sqlite:/x/a.db", false)).toEqual(
      Either.right({ _tag: "Location", location: "sqlite:/x/a.db" })
    )
    expect(SessionCopy.destination("postgres://h/db", false)).toEqual(
      Either.right({ _tag: "Location", location: "postgres://h/db" })
    )
    expect(SessionCopy.destination("sqlite:/x/a.db#s1", false)).toEqual(
      Either.right({ _tag: "Session", ref: { _tag: "Sqlite", path: "/x/a.db", id: "s1" } })
    )
    expect(SessionCopy.destination("/some/dir", true)).toEqual(
      Either.right({ _tag: "Location", location: "/some/dir" })
    )
    expect(SessionCopy.destination("/some/file.jsonl", false)).toEqual(
      Either.right({ _tag: "Session", ref: SessionRef.file("/some/file.jsonl") })
    )
  })
})
