/**
 * Real processes on one real database: 4 writers × 1,000 appends on one session and spread over
 * four sessions; a writer killed with SIGKILL at 20 random moments.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import * as SqliteStore from "../src/SqliteStore.js"
import { start, waitFor } from "./support/children.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-sqlite-mp-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const here = path.dirname(fileURLToPath(import.meta.url))
const writer = path.join(here, "fixtures", "writer-child.ts")

const run = <A, E>(effect: Effect.Effect<A, E, SessionManager.StoreRequirement>) =>
  Effect.runPromise(effect.pipe(Effect.provide(SqliteStore.layer())))

/** Creates sessions `ids` in `db`, each with one user message; returns that message's id per session. */
const seed = (db: string, ids: ReadonlyArray<string>) =>
  run(Effect.forEach(ids, (id) =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.open(`sqlite:${db}#${id}`, undefined, undefined, { eagerFlush: true })
      return yield* sm.appendMessage({ role: "user", content: "start", timestamp: Date.now() } as never)
    })))

/** Every stored row of session `id`, parsed, in order. */
const rowsOf = (db: string, id: string): Array<Record<string, any>> => {
  const handle = new Database(db, { readonly: true })
  try {
    return (handle.prepare(
      "SELECT r.text FROM rows r JOIN sessions s ON r.session = s.sid WHERE s.id = ? ORDER BY r.seq"
    ).pluck().all(id) as Array<string>)
      .map((text) => JSON.parse(text))
  } finally {
    handle.close()
  }
}

describe("SqliteStore across processes", () => {
  it.each([
    ["one session", ["s0"]],
    ["four sessions", ["s0", "s1", "s2", "s3"]]
  ])(
    "4 writers × 1,000 appends on %s of one database: none lost or duplicated, every parent resolves, each writer's entries one chain",
    async (_, sessions) => {
      const db = path.join(root, `shared-${sessions.length}.db`)
      const starts = await seed(db, sessions)
      const names = ["w0", "w1", "w2", "w3"]
      const writers = names.map((name) => start([writer, db, name, "append", "1000", ...sessions]))
      const codes = await Promise.all(writers.map((w) => w.exited))
      expect(codes, writers.map((w) => w.output).join("\n")).toEqual([0, 0, 0, 0])
      let total = 0
      for (const [index, session] of sessions.entries()) {
        const all = rowsOf(db, session)
        const perWriter = 1000 / sessions.length
        expect(all).toHaveLength(2 + 4 * perWriter)
        total += all.length - 2
        expect(all[0]!.type).toBe("session")
        const ids = new Set(all.slice(1).map((r) => r.id))
        expect(ids.size).toBe(all.length - 1)
        for (const row of all.slice(1)) if (row.parentId !== null) expect(ids.has(row.parentId)).toBe(true)
        for (const name of names) {
          const mine = all.filter((r) => r.type === "custom" && r.data.writer === name)
          expect(mine.map((r) => r.data.seq)).toEqual(
            Array.from({ length: perWriter }, (_, i) => i * sessions.length + index)
          )
          expect(ids.has(mine[0]!.parentId) || mine[0]!.parentId === starts[index]).toBe(true)
          for (let i = 1; i < mine.length; i++) expect(mine[i]!.parentId).toBe(mine[i - 1]!.id)
        }
        const sm = await run(SessionManager.open(`sqlite:${db}#${session}`, undefined, undefined, { cache: false }))
        expect(sm.getEntries()).toHaveLength(1 + 4 * perWriter)
        expect(sm.getTree()).toHaveLength(1)
      }
      expect(total).toBe(4000)
    },
    300_000
  )

  it(
    "a writer killed with SIGKILL at 20 random moments: the database opens, passes integrity_check, and keeps every acknowledged append",
    async () => {
      const db = path.join(root, "crash.db")
      await seed(db, ["crash"])
      const acknowledged = new Set<string>()
      let next = start([writer, db, "c0", "crash", "0", "crash", "wait"])
      for (let round = 0; round < 20; round++) {
        const child = next
        child.process.stdin!.write("go\n")
        await waitFor(child, (out) => out.includes("ready"))
        if (round < 19) next = start([writer, db, `c${round + 1}`, "crash", "0", "crash", "wait"])
        await waitFor(child, (out) => out.includes("ack "))
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.floor(Math.random() * 150)))
        child.process.kill("SIGKILL")
        await child.exited
        for (const match of child.output.matchAll(/^ack ([0-9a-f-]+)$/gm)) acknowledged.add(match[1]!)
        const handle = new Database(db)
        try {
          expect(handle.pragma("integrity_check", { simple: true })).toBe("ok")
        } finally {
          handle.close()
        }
        const sm = await run(
          SessionManager.open(`sqlite:${db}#crash`, undefined, undefined, { cache: false, eagerFlush: true })
        )
        for (const id of acknowledged) expect(sm.getEntry(id), `acknowledged ${id}`).toBeDefined()
        expect(sm.loadReport().corrupt).toEqual([])
        const leaf = sm.getLeafId()
        // the killed writer's lease is taken over at once (its pid is gone)
        const id = await run(sm.appendMessage({ role: "user", content: `after kill ${round}`, timestamp: 1 } as never))
        expect(sm.getEntry(id)!.parentId).toBe(leaf)
        acknowledged.add(id)
      }
      expect(acknowledged.size).toBeGreaterThan(40)
      const final = await run(SessionManager.open(`sqlite:${db}#crash`, undefined, undefined, { cache: false }))
      for (const id of acknowledged) expect(final.getEntry(id)).toBeDefined()
    },
    300_000
  )
})
