/**
 * The id questions of a bounded open (`internal/index/ids.ts`): a batch (a catch-up's new ids) is
 * answered in one pass over the index's id filter through a small buffer, a single question from
 * the filter read whole; both give the same answers, never "absent" for an id the session holds,
 * and "maybe" for everything when the filter or its bucket table is damaged.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Format from "../src/internal/index/format.js"
import { FILTER_PIECE, lazyIds } from "../src/internal/index/ids.js"
import type { Env } from "../src/internal/jsonl/env.js"
import * as TranscriptFile from "../src/TranscriptFile.js"

const hex = (n: number) => n.toString(16).padStart(8, "0")

/** An index of `count` ids (and their parents) written with the format's encoder; its head and the ids. */
const makeIndex = (count: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-ids-"))
  const file = path.join(dir, "s.jsonl.index")
  const ids = Array.from({ length: count }, (_, i) => hex(i * 7919 + 13))
  const set = Float64Array.from(ids.map(Format.hash52)).sort()
  const summary: Format.Summary = {
    watermark: {
      size: 0,
      dev: "1",
      ino: "1",
      mtimeNs: "0",
      tailHash: "",
      tailLength: 0,
      headHash: "",
      headLength: 0
    },
    lineCount: 0,
    bounded: true,
    header: null,
    leafId: null,
    appendParentId: null,
    tailId: null,
    hasAssistant: false,
    segment: [],
    compactionAt: -1,
    before: [],
    labels: [],
    sessionInfo: null,
    corrupt: [],
    compactions: []
  }
  const pieces = Format.encode(summary, new Uint8Array(0), set)
  fs.writeFileSync(file, Buffer.concat(pieces))
  const bytes = fs.readFileSync(file)
  const length = Format.summaryLength(bytes.subarray(0, Format.HEAD_BYTES))!
  const head = Format.decodeHead(
    bytes.subarray(0, Format.HEAD_BYTES),
    bytes.subarray(Format.HEAD_BYTES, Format.HEAD_BYTES + length)
  )!
  return { dir, file, ids, head }
}

const withFiles = <A>(f: (env: Env) => A) =>
  Effect.map(TranscriptFile.TranscriptFile, (files) => f({ files } as unknown as Env)).pipe(
    Effect.provide(TranscriptFile.layer)
  )

describe("index id questions", () => {
  // 100,000 ids: a filter of about 100 KB and its bucket table, two pieces of the pass
  const { dir, file, head, ids } = makeIndex(100_000)
  const absentIds = Array.from({ length: 3000 }, (_, i) => `f${String(i).padStart(7, "0")}`)
  const asked = [...ids.filter((_, i) => i % 20 === 0), ...absentIds]

  it.effect("a batch in one pass answers as single questions, never absent for a held id", () =>
    withFiles((env) => {
      expect(head.filterBytes + (head.bucketCount + 1) * 8).toBeGreaterThan(FILTER_PIECE)
      const batch = lazyIds(env, file, head, [])
      batch.prefetch(asked.map(Format.hash52))
      const single = lazyIds(env, file, head, [])
      const fromBatch = asked.map((id) => batch.mayHave(Format.hash52(id)))
      const fromSingle = asked.map((id) => single.mayHave(Format.hash52(id)))
      expect(fromBatch).toEqual(fromSingle)
      // every held id: maybe; the absent ones: all answered absent (the buckets settle the filter's maybes)
      const held = asked.length - absentIds.length
      expect(fromBatch.slice(0, held).every((x) => x)).toBe(true)
      expect(fromBatch.slice(held).filter((x) => x).length).toBe(0)
    }))

  it.effect("ids of the update log are held; a damaged filter or bucket table answers maybe", () =>
    withFiles((env) => {
      const logged = lazyIds(env, file, head, [Format.hash52(absentIds[0]!)])
      logged.prefetch(absentIds.slice(0, 10).map(Format.hash52))
      expect(logged.mayHave(Format.hash52(absentIds[0]!))).toBe(true)
      expect(logged.mayHave(Format.hash52(absentIds[1]!))).toBe(false)
      const original = fs.readFileSync(file)
      for (const at of [head.filterAt + 5, head.bucketsAt + 12]) {
        const damaged = Buffer.from(original)
        damaged[at] = damaged[at]! ^ 0xff
        fs.writeFileSync(file, damaged)
        const ids_ = lazyIds(env, file, head, [])
        ids_.prefetch(absentIds.map(Format.hash52))
        // the id set itself is intact: the answers come from it, exactly
        expect(absentIds.filter((id) => ids_.mayHave(Format.hash52(id))).length).toBe(0)
        expect(ids.slice(0, 50).every((id) => ids_.mayHave(Format.hash52(id)))).toBe(true)
      }
      // the id set damaged too: nothing is answered absent
      const damaged = Buffer.from(original)
      damaged[head.filterAt + 5] = damaged[head.filterAt + 5]! ^ 0xff
      damaged[head.idsAt + 8] = damaged[head.idsAt + 8]! ^ 0xff
      fs.writeFileSync(file, damaged)
      const none = lazyIds(env, file, head, [])
      none.prefetch(absentIds.map(Format.hash52))
      expect(absentIds.every((id) => none.mayHave(Format.hash52(id)))).toBe(true)
      fs.writeFileSync(file, original)
      fs.rmSync(dir, { recursive: true, force: true })
    }))
})
