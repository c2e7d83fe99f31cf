/**
 * `TranscriptStore.streamRows`: a session's rows as stored, in order, byte for byte (opaque,
 * corrupt and padded rows too), across the batches a backend reads them in, after appends; what a
 * streamed copy reads. Every backend of this project implements it.
 */
import { expect } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionRef from "../../SessionRef.js"
import { TranscriptStore } from "../../TranscriptStore.js"
import type { Place, Ref, Subject } from "./Backend.js"
import type { Group } from "./support.js"
import { entryRow, headerRow, raw, test, user } from "./support.js"

/** The rows `streamRows` gives for `ref`. */
const streamed = (ref: Ref) =>
  Effect.gen(function*() {
    const store = yield* TranscriptStore
    expect(store.streamRows).toBeDefined()
    const resolved = yield* store.resolve(yield* SessionRef.from(ref))
    return Chunk.toReadonlyArray(yield* Stream.runCollect(store.streamRows!(resolved)))
  })

/** A session of `count` rows after its header (opaque, corrupt and padded rows among them). */
const seedLong = <R>(s: Subject<R>, place: Place, count: number) => {
  const rows = [headerRow("long-1")]
  for (let i = 1; i <= count; i++) {
    const id = `c${String(i).padStart(7, "0")}`
    const parent = i === 1 ? null : `c${String(i - 1).padStart(7, "0")}`
    rows.push(
      i % 997 === 0
        ? `{"type":"message","id":"broken${i}", not json`
        : i % 499 === 0
        ? `  ${entryRow(id, parent, user(`padded ${i}`))}\t`
        : i % 251 === 0
        ? JSON.stringify({ type: "x-extension", id: `0pa${i}`, parentId: parent, n: 1.50 })
        : entryRow(id, parent, user(`message ${i}`))
    )
  }
  return Effect.map(s.seed(place, "long", rows), (ref) => ({ ref, rows }))
}

/** The streaming cases. */
export const group: Group = {
  name: "streamed rows",
  cases: [
    test("streamRows gives every row as stored, in order, across batches, each ended by a newline", (s) =>
      Effect.gen(function*() {
        const { ref, rows } = yield* seedLong(s, yield* s.place, 4_500)
        const got = yield* streamed(ref)
        expect(got.map((row) => row.text)).toEqual(rows)
        expect(got.every((row) => row.terminated)).toBe(true)
      })),
    test("streamRows follows appends and a rewrite: what is stored when it runs", (s) =>
      Effect.gen(function*() {
        const place = yield* s.place
        const { ref } = yield* seedLong(s, place, 30)
        const sm = yield* s.open(ref)
        yield* sm.appendMessage(user("after"))
        expect((yield* streamed(ref)).map((row) => row.text)).toEqual(yield* raw(s, ref))
        yield* sm.rewrite("backup")
        expect((yield* streamed(ref)).map((row) => row.text)).toEqual(yield* raw(s, ref))
      }))
  ]
}
