/**
 * SessionFollow over JSONL files when the last line is torn (a writer crashed mid-append) and
 * another tool then appends without a newline first (pi 0.73.1 does), so that its row continues
 * the torn line: the follower shows what a full open reads, the glued line as one corrupt row (no
 * entry of its own) and the rows after it as entries, in order, none twice.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as SessionFollow from "@branchlog/session-store/SessionFollow"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { afterAll } from "vitest"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"

afterAll(cleanupTempRoots)

const user = (text: string): AgentMessage.AgentMessage =>
  ({ role: "user", content: text, timestamp: 1 }) as unknown as AgentMessage.AgentMessage

for (const harness of harnesses) {
  describe(`SessionFollow after a torn tail (${harness.name})`, () => {
    it.live("a row glued to the torn line is not shown as an entry; the rows after it are, once each", () => {
      const { dir, ext, layer } = harness.make()
      return Effect.gen(function*() {
        const writer = yield* SessionManager.create("/work", dir, { eagerFlush: true })
        const file = writer.getSessionFile()!
        const first = yield* writer.appendMessage(user("one"))
        ext.append(file, `{"type":"message","id":"torn0001","parentId":"${first}","timestamp":"2026-01-01T00:`)
        const follower = yield* Effect.fork(
          Stream.runCollect(Stream.take(SessionFollow.follow(file, { pollMs: 20, cwd: "/work" }), 2))
        )
        yield* Effect.sleep("150 millis")
        const glued = { type: "label", id: "f0000001", parentId: null, timestamp: "2026-01-02T00:00:00.000Z" }
        ext.append(file, JSON.stringify({ ...glued, targetId: first, label: "glued" }) + "\n")
        yield* Effect.sleep("150 millis")
        const after = { type: "session_info", id: "f0000002", parentId: null, timestamp: "x", name: "after" }
        ext.append(file, JSON.stringify(after) + "\n")
        ext.append(file, JSON.stringify({ ...after, id: "f0000003", name: "later" }) + "\n")
        const got = Chunk.toArray(yield* Fiber.join(follower).pipe(Effect.timeout("30 seconds")))
        const full = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
        expect(full.getLabel(first)).toBeUndefined()
        expect(full.getEntries().map((e) => e.id)).not.toContain("f0000001")
        expect(got.map((row) => (row._tag === "Entry" ? row.entry.id : row._tag))).toEqual(["f0000002", "f0000003"])
      }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
    })
  })
}
