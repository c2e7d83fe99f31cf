/**
 * Every fixture (public, reference and differential) copied file → PostgreSQL at library level
 * (its rows as they are, through `create`, a torn last row kept as such) opens through
 * `postgres://…#ID` with the expected `context`, `tree` and `info`, and copied back gives the
 * file's bytes exactly: through a load for the current-version fixtures with their header first,
 * and for every fixture from the stored rows (a load of a legacy or header-less session recovers
 * it in memory, so its rows are not the file's; the stored ones are).
 */
import { JsonView, Line } from "@branchlog/session-core"
import * as SessionCopy from "@branchlog/session-store/SessionCopy"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import * as StoreRouter from "@branchlog/store-jsonl/StoreRouter"
import { comparableViews, fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { textOfRow } from "../src/internal/rows.js"
import * as Store from "../src/internal/store.js"
import * as PostgresStore from "../src/PostgresStore.js"
import { database, withClient } from "./support/db.js"

const all = fixtures()

const idOf = (rows: ReadonlyArray<string>, fallback: string) => {
  for (const row of rows) {
    const parsed = Line.parse(row)
    if (parsed._tag === "Header" && typeof parsed.header.id === "string") return parsed.header.id
  }
  return fallback
}

describe("fixtures copied file → postgres → file", () => {
  it("finds the fixtures", () => expect(all.length).toBeGreaterThanOrEqual(30))

  it(
    "each gives the expected context, tree and info through postgres://…#ID and copies back byte-identical",
    async () => {
      const url = await database()
      let loadCopies = 0
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const store = yield* Store.make(yield* Effect.scope, { maxConnections: 4 })
        for (const fixture of all) {
          const text = fixture.bytes.toString("utf8")
          const torn = !text.endsWith("\n")
          const rows = (torn ? text : text.slice(0, -1)).split("\n")
          const ref: SessionRef.PostgresRef = { _tag: "Postgres", url, id: idOf(rows, fixture.name) }
          yield* store.exclusive(ref, (held) => held.create(rows, { unterminated: torn }))

          const sm = yield* SessionManager.open(SessionRef.format(ref), undefined, undefined, { readOnly: true }).pipe(
            Effect.provideService(TranscriptStore, store)
          )
          const state = sm.getState()
          const views = comparableViews(fixture, {
            context: JsonView.context(state),
            tree: JsonView.tree(state),
            info: JsonView.info(state)
          })
          expect(views.got, fixture.name).toEqual(views.want)

          const back = yield* store.load(ref, { readOnly: true, cwd: "/w" })
          const loadedBytes = back.rows().map(Line.serialize).join("\n") +
            (back.report.tornTail === undefined ? "\n" : "")
          // a load of a legacy or header-less session recovers it in memory: its rows are not the file's then
          if (back.report.migratedFrom === undefined && !back.report.recoveredCorruptHeader) {
            loadCopies += 1
            expect(Buffer.from(loadedBytes, "utf8").equals(fixture.bytes), `${fixture.name} copied back`).toBe(true)
          }
          const stored = yield* Effect.promise(() =>
            withClient(url, async (client) => {
              const found = await client.query(
                `SELECT r.text, r.raw, s.torn_tail FROM branchlog_rows r JOIN branchlog_sessions s USING (session_id)
               WHERE r.session_id = $1 ORDER BY r.seq`,
                [ref.id]
              )
              return found.rows.map(textOfRow).join("\n") + (found.rows[0].torn_tail === true ? "" : "\n")
            })
          )
          expect(Buffer.from(stored, "utf8").equals(fixture.bytes), `${fixture.name} stored rows`).toBe(true)
        }
      })))
      expect(loadCopies).toBeGreaterThanOrEqual(25)
    },
    600_000
  )
})

describe("fixtures through StoreRouter and SessionCopy (what the CLI's copy runs)", () => {
  it("file → postgres://…/db → file: the same views through the router, the copy back byte-identical", async () => {
    const url = await database()
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-pg-fixtures-"))
    let copies = 0
    try {
      await Effect.runPromise(
        Effect.gen(function*() {
          for (const fixture of all) {
            const file = path.join(dir, `${fixture.name}.jsonl`)
            fs.writeFileSync(file, fixture.bytes)
            const into = yield* Effect.either(
              SessionCopy.copy(file, { _tag: "Location", location: url }, { cwd: "/w" })
            )
            // a session without a header cannot be copied by id (NotASessionError): the raw test above covers it
            if (into._tag === "Left") {
              expect(into.left._tag, fixture.name).toBe("NotASessionError")
              continue
            }
            expect(into.right.to._tag).toBe("Postgres")
            const sm = yield* SessionManager.open(SessionRef.format(into.right.to), undefined, undefined, {
              readOnly: true
            })
            const state = sm.getState()
            const views = comparableViews(fixture, {
              context: JsonView.context(state),
              tree: JsonView.tree(state),
              info: JsonView.info(state)
            })
            expect(views.got, fixture.name).toEqual(views.want)
            const backDir = path.join(dir, `back-${fixture.name}`)
            fs.mkdirSync(backDir)
            const back = yield* SessionCopy.copy(into.right.to, { _tag: "Location", location: backDir }, { cwd: "/w" })
            expect(back.to._tag).toBe("File")
            const bytes = fs.readFileSync((back.to as SessionRef.FileRef).path)
            // an old version is copied as its migrated form, a misplaced header as recovered (SessionCopy's rule)
            const sm2 = yield* SessionManager.open(file, undefined, undefined, { readOnly: true })
            if (sm2.loadReport().migratedFrom === undefined && !sm2.wasRecoveredFromCorruptHeader()) {
              expect(bytes.equals(fixture.bytes), `${fixture.name} copied back`).toBe(true)
              copies += 1
            }
          }
        }).pipe(Effect.provide(StoreRouter.layerNode([PostgresStore.driver])))
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    expect(copies).toBeGreaterThanOrEqual(25)
  }, 600_000)
})
