/**
 * Writers keep the sidecar index current (issue 16): a manager opened through the index (a
 * resume, bounded or full after building it) appends one record to the index's update log when
 * its hold ends, so that the index's watermark covers the file and the next resume catches up
 * nothing; a crash between the transcript's write and the index's (a child killed with SIGKILL
 * inside its hold), a torn or damaged record, or another writer's rows in between cost a catch-up
 * from the transcript, never a wrong answer.
 */
import { Messages } from "@branchlog/session-core/testing"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { ResumeChecks } from "@branchlog/session-store/testing"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import * as Format from "../src/internal/index/format.js"
import * as Log from "../src/internal/index/log.js"
import * as SessionFiles from "../src/SessionFiles.js"
import type { External } from "../src/testing/Harness.js"
import { cleanupTempRoots, harnesses, nodeHarness } from "../src/testing/Harness.js"

import type { Services as StoreServices } from "../src/SessionStore.js"
import { start } from "./support/children.js"

const { answers } = ResumeChecks

afterAll(cleanupTempRoots)

const here = path.dirname(fileURLToPath(import.meta.url))
const child = path.join(here, "fixtures", "index-writer-child.ts")

type Requirements = StoreServices

const { assistant, user } = Messages

/** The end of the file the index covers (its base with every record of its log that follows on), and its record count. */
const covered = (ext: External, file: string): { readonly size: number; readonly records: number } | undefined => {
  const bytes = ext.read(SessionFiles.indexName(file))
  if (bytes === undefined) return undefined
  const length = Format.summaryLength(bytes.subarray(0, Format.HEAD_BYTES))
  if (length === undefined) return undefined
  const head = Format.decodeHead(
    bytes.subarray(0, Format.HEAD_BYTES),
    bytes.subarray(Format.HEAD_BYTES, Format.HEAD_BYTES + length)
  )
  if (head === undefined) return undefined
  let summary = head.summary
  let records = 0
  for (const record of Log.decode(bytes.subarray(head.baseEnd))) {
    const next = Log.apply(summary, record)
    if (next === undefined) continue
    summary = next
    records++
  }
  return { size: summary.watermark.size, records }
}

/** The read-only resume's answers, the full open's, whether it was bounded and the bytes it read. */
const both = (file: string) =>
  Effect.gen(function*() {
    const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
    const bounded = yield* SessionManager.resume(file, undefined, undefined, { readOnly: true })
    return {
      want: answers(full),
      got: answers(bounded),
      bounded: bounded.isBounded(),
      bytesRead: bounded.loadReport().bytesRead
    }
  })

/** A session of `n` exchanges with a compaction, its index built (by a writable resume). */
const session = (dir: string, n: number) =>
  Effect.gen(function*() {
    const sm = yield* SessionManager.create("/work", dir, { eagerFlush: true })
    for (let i = 0; i < n; i++) {
      yield* sm.appendMessage(user(`u${i}`))
      yield* sm.appendMessage(assistant(`a${i}`))
    }
    yield* sm.appendCompaction("early", sm.getBranch()[Math.floor(n * 1.5)]!.id, 5)
    yield* sm.appendMessage(user("after"))
    return sm.getSessionFile()!
  })

for (const harness of harnesses) {
  describe(`index follower (${harness.name})`, () => {
    it.live(
      "a resumed writer's appends (each taking the lock, and inside withWriteLock) leave the index covering the file",
      () => {
        const { dir, ext, layer } = harness.make()
        return Effect.gen(function*() {
          const file = yield* session(dir, 40)
          yield* SessionManager.resume(file) // builds the index
          expect(covered(ext, file)?.size).toBe(ext.read(file)!.length)
          const sm = yield* SessionManager.resume(file)
          expect(sm.isBounded()).toBe(true)
          const onPath = sm.getBoundedState()!.entries[2]!.id
          // each taking the lock
          yield* sm.appendMessage(user("one"))
          yield* sm.appendMessage(assistant("two"))
          expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: 2 })
          // inside one hold: one record when it ends
          yield* sm.withWriteLock(Effect.gen(function*() {
            for (let i = 0; i < 5; i++) yield* sm.appendMessage(user(`held ${i}`))
            yield* sm.appendLabelChange(onPath, "here")
            yield* sm.appendSessionInfo("named")
            // the loaded path and what was appended to it (a bounded `getBranch` would throw)
            const branch = sm.getBoundedState()!.entries
            yield* sm.appendCompaction("later", branch[branch.length - 3]!.id, 7)
            yield* sm.appendMessage(assistant("after the compaction"))
          }))
          expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: 3 })
          // the next resume catches up nothing: it reads only the path's rows, and answers as the full open
          const { bounded, bytesRead, got, want } = yield* both(file)
          expect(got).toEqual(want)
          expect(bounded).toBe(true)
          const rows = (yield* SessionManager.resume(file, undefined, undefined, { readOnly: true })).getBoundedState()!
          expect(rows.entries.length).toBeLessThan(15)
          expect(bytesRead).toBeLessThan(ext.read(file)!.length / 3)
        }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
      },
      120_000
    )

    it.live("a writer resumed with writeIndex: false leaves the index as it is", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        const file = yield* session(dir, 10)
        yield* SessionManager.resume(file)
        const index = ext.read(SessionFiles.indexName(file))!
        const sm = yield* SessionManager.resume(file, undefined, undefined, { writeIndex: false })
        expect(sm.isBounded()).toBe(true)
        yield* sm.appendMessage(user("not indexed"))
        expect(ext.read(SessionFiles.indexName(file))!.equals(index)).toBe(true)
        const { got, want } = yield* both(file)
        expect(got).toEqual(want)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    })

    it.live("a long update log is folded into a new base by the next writable resume", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        const file = yield* session(dir, 10)
        yield* SessionManager.resume(file)
        const sm = yield* SessionManager.resume(file)
        for (let hold = 0; hold < 4; hold++) {
          yield* sm.withWriteLock(Effect.gen(function*() {
            for (let i = 0; i < 1200; i++) yield* sm.appendMessage(user(`h${hold} ${i}`))
          }))
        }
        const index = SessionFiles.indexName(file)
        const long = ext.read(index)!
        expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: 4 })
        const before = yield* both(file)
        expect(before.got).toEqual(before.want)
        yield* SessionManager.resume(file)
        const folded = ext.read(index)!
        expect(folded.length).toBeLessThan(long.length)
        expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: 0 })
        const after = yield* both(file)
        expect(after.got).toEqual(after.want)
        expect(after.bounded).toBe(true)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    }, 120_000)

    it.live(
      "a writer whose log would pass its bound writes a new base instead: the index keeps covering the file",
      () => {
        const { dir, ext, layer } = harness.make()
        return Effect.gen(function*() {
          const file = yield* session(dir, 10)
          yield* SessionManager.resume(file)
          const sm = yield* SessionManager.resume(file)
          const index = SessionFiles.indexName(file)
          const logBytes = () => {
            const bytes = ext.read(index)!
            const length = Format.summaryLength(bytes.subarray(0, Format.HEAD_BYTES))!
            const head = Format.decodeHead(
              bytes.subarray(0, Format.HEAD_BYTES),
              bytes.subarray(Format.HEAD_BYTES, Format.HEAD_BYTES + length)
            )!
            return bytes.length - head.baseEnd
          }
          // holds of 1,200 rows: a record of about 145 KB each, past the writer's 1 MiB of log at the 8th
          let longest = 0
          for (let hold = 0; hold < 9; hold++) {
            yield* sm.withWriteLock(Effect.gen(function*() {
              for (let i = 0; i < 1200; i++) yield* sm.appendMessage(user(`h${hold} ${i}`))
            }))
            longest = Math.max(longest, logBytes())
            expect(covered(ext, file)?.size).toBe(ext.read(file)!.length)
          }
          expect(longest).toBeGreaterThan(900 * 1024)
          const now = covered(ext, file)!
          expect(now.records).toBeLessThan(3)
          expect(logBytes()).toBeLessThan(longest / 3)
          const { bounded, got, want } = yield* both(file)
          expect(got).toEqual(want)
          expect(bounded).toBe(true)
          // and it goes on following after the new base
          yield* sm.appendMessage(user("after the new base"))
          expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: now.records + 1 })
        }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
      },
      120_000
    )

    it.live("a writer whose resume built the index (a full open) keeps it current too", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        const file = yield* session(dir, 10)
        const sm = yield* SessionManager.resume(file) // no index yet: a full open that builds it
        expect(sm.isBounded()).toBe(false)
        yield* sm.appendMessage(user("more"))
        yield* sm.appendMessage(assistant("and more"))
        expect(covered(ext, file)).toEqual({ size: ext.read(file)!.length, records: 2 })
        const { bounded, got, want } = yield* both(file)
        expect(got).toEqual(want)
        expect(bounded).toBe(true)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    }, 120_000)

    it.live(
      "another writer's rows first: the follower stops, the next resume catches up; a torn or damaged record is skipped",
      () => {
        const { dir, ext, layer } = harness.make()
        return Effect.gen(function*() {
          const file = yield* session(dir, 20)
          yield* SessionManager.resume(file)
          const sm = yield* SessionManager.resume(file)
          yield* sm.appendMessage(user("mine"))
          const mine = covered(ext, file)!
          expect(mine.size).toBe(ext.read(file)!.length)
          // a raw append (as pi makes it), then the resumed writer again: its rows follow another's
          ext.append(
            file,
            JSON.stringify({
              type: "message",
              id: "f0000001",
              parentId: sm.getLeafId(),
              timestamp: "2026-01-01T00:00:00.000Z",
              message: user("raw")
            }) + "\n"
          )
          yield* sm.appendMessage(user("mine again"))
          expect(covered(ext, file)).toEqual(mine)
          let result = yield* both(file)
          expect(result.got).toEqual(result.want)
          // a torn record at the end of the log (a crash in the index's write), then a damaged one
          const index = SessionFiles.indexName(file)
          const sm2 = yield* SessionManager.resume(file)
          yield* sm2.appendMessage(user("third"))
          const withRecord = ext.read(index)!
          ext.write(index, withRecord.subarray(0, withRecord.length - 40))
          result = yield* both(file)
          expect(result.got).toEqual(result.want)
          expect(result.bounded).toBe(true)
          const damaged = Buffer.from(withRecord)
          damaged[damaged.length - 30] = damaged[damaged.length - 30]! ^ 0x04
          ext.write(index, damaged)
          result = yield* both(file)
          expect(result.got).toEqual(result.want)
          expect(covered(ext, file)!.size).toBeLessThan(ext.read(file)!.length)
          // a writable resume catches up (writing the catch-up), and its writer's records follow on
          const sm3 = yield* SessionManager.resume(file)
          yield* sm3.appendMessage(assistant("after the repair"))
          expect(covered(ext, file)!.size).toBe(ext.read(file)!.length)
          result = yield* both(file)
          expect(result.got).toEqual(result.want)
          expect(result.bounded).toBe(true)
        }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
      },
      120_000
    )
  })
}

describe("index follower (a crash)", () => {
  it.live(
    "a writer killed (SIGKILL) between the transcript's write and the index's: the next resume catches up and answers right",
    () => {
      const { dir, ext, layer } = nodeHarness.make()
      return Effect.gen(function*() {
        const file = yield* session(dir, 30)
        yield* SessionManager.resume(file)
        const before = covered(ext, file)!
        const writer = start([child, file, "12"])
        const deadline = Date.now() + 90_000
        while (!writer.output.includes("written") && Date.now() < deadline && writer.process.exitCode === null) {
          yield* Effect.sleep("20 millis")
        }
        expect(writer.output).toContain("written")
        writer.process.kill("SIGKILL")
        yield* Effect.promise(() => writer.exited)
        const leaf = writer.output.match(/written (\S+)/)![1]
        // the child's rows are in the file; the index was never told
        expect(ext.read(file)!.length).toBeGreaterThan(before.size)
        expect(covered(ext, file)).toEqual(before)
        const { bounded, got, want } = yield* both(file)
        expect(got).toEqual(want)
        expect(got.leaf).toBe(leaf)
        expect(bounded).toBe(true)
        // a writable resume then writes the catch-up as a record: the index covers the file again
        yield* SessionManager.resume(file)
        expect(covered(ext, file)!.size).toBe(ext.read(file)!.length)
        const again = yield* both(file)
        expect(again.got).toEqual(again.want)
      }).pipe(Effect.provide(layer as Layer.Layer<Requirements>))
    },
    150_000
  )
})
