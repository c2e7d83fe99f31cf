/**
 * Every fixture (public, reference and differential) copied file → PostgreSQL at library level
 * (its rows as they are, through `create`, a torn last row kept as such) opens through
 * `postgres://…#ID` with the expected `context`, `tree` and `info`, and copied back gives the
 * file's bytes exactly: through a load for the current-version fixtures with their header first,
 * and for every fixture from the stored rows (a load of a legacy or header-less session recovers
 * it in memory, so its rows are not the file's; the stored ones are).
 */
import { JsonView, Line } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as SessionRef from "@branchlog/session-store/SessionRef"
import { TranscriptStore } from "@branchlog/session-store/TranscriptStore"
import { comparable, fixtures } from "@branchlog/tooling/fixtures"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { textOfRow } from "../src/internal/rows.js"
import * as Store from "../src/internal/store.js"
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
          for (
            const [section, answer] of [
              ["context", JsonView.context(state)],
              ["tree", JsonView.tree(state)],
              ["info", JsonView.info(state)]
            ] as const
          ) {
            const { got, want } = comparable(fixture, section, answer)
            expect(got, `${fixture.name} ${section}`).toEqual(want)
          }

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
