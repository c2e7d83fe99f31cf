/**
 * Batches across real processes on one real file: 4 writers × 50 `appendMessages` batches of 10,
 * each batch taking the lock itself or five at a time inside `withWriteLock`. Every batch lands as
 * one run of whole lines (one write), nothing is lost or duplicated, every writer's entries chain.
 */
import { Line } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { start } from "./support/children.js"
import { entryLine, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const here = path.dirname(fileURLToPath(import.meta.url))
const writer = path.join(here, "fixtures", "batch-writer-child.ts")

const BATCHES = 50
const SIZE = 10

describe("appendMessages across processes (node)", () => {
  it.each(["batch", "held"])(
    "4 writers × 50 batches of 10 (%s): each batch one run of lines, nothing torn, lost or duplicated, each writer one chain",
    async (mode) => {
      const file = path.join(tempDir(), "batches.jsonl")
      fs.writeFileSync(file, headerLine("batches") + "\n" + entryLine("00000001", null, user("start")) + "\n")
      const names = ["w0", "w1", "w2", "w3"]
      const writers = names.map((name) => start([writer, file, name, mode, String(BATCHES), String(SIZE)]))
      const codes = await Promise.all(writers.map((w) => w.exited))
      expect(codes, writers.map((w) => w.output).join("\n")).toEqual([0, 0, 0, 0])
      const text = fs.readFileSync(file, "utf8")
      expect(text.endsWith("\n")).toBe(true)
      const all = text.slice(0, -1).split("\n").map((line, i) => {
        expect(Line.parse(line, i + 1, 0)._tag, `line ${i + 1}`).not.toBe("Corrupt")
        return JSON.parse(line) as Record<string, any>
      })
      expect(all).toHaveLength(2 + names.length * BATCHES * SIZE)
      const ids = new Set(all.slice(1).map((r) => r.id))
      expect(ids.size).toBe(all.length - 1)
      const said = (row: Record<string, any>): [string, number] => {
        const content = row.message.content
        const words = (typeof content === "string" ? content : content[0].text).split(" ")
        return [words[0], Number(words[1])]
      }
      // every batch is SIZE consecutive lines of one writer, in order
      const rows = all.slice(2)
      for (let at = 0; at < rows.length; at += SIZE) {
        const [name, first] = said(rows[at]!)
        expect(first % SIZE, `line ${at + 3} starts a batch`).toBe(0)
        for (let i = 1; i < SIZE; i++) expect(said(rows[at + i]!)).toEqual([name, first + i])
      }
      for (const name of names) {
        const mine = rows.filter((r) => said(r)[0] === name)
        expect(mine.map((r) => said(r)[1])).toEqual(Array.from({ length: BATCHES * SIZE }, (_, i) => i))
        expect(ids.has(mine[0]!.parentId)).toBe(true)
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.parentId).toBe(mine[i - 1]!.id)
      }
      expect(fs.readdirSync(path.dirname(file))).toEqual(["batches.jsonl"])
      const sm = await Effect.runPromise(
        SessionManager.open(file, undefined, undefined, { cache: false }).pipe(Effect.provide(SessionStore.layerNode))
      )
      expect(sm.getEntries()).toHaveLength(1 + names.length * BATCHES * SIZE)
    },
    180_000
  )
})
