/**
 * Lines longer than the line ceiling, with a ceiling of 1 KiB so the files stay small (the same
 * code passes over a line of more than 512 MiB at the default ceiling): such a line is never
 * decoded, it is reported with its line, offset and length, the rest of the file opens with the
 * tree linked through it, and a rewrite (migration on a writable open) copies its bytes.
 */
import { SessionState } from "@branchlog/session-core"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as FileSnapshot from "../src/FileSnapshot.js"
import * as JsonlStore from "../src/JsonlStore.js"
import * as OversizedLine from "../src/OversizedLine.js"
import * as SessionCatalog from "../src/SessionCatalog.js"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptFile from "../src/TranscriptFile.js"
import * as TranscriptLock from "../src/TranscriptLock.js"
import { headerLine } from "./support/messages.js"

afterAll(cleanupTempRoots)

const CEILING = 1024

const layer: Layer.Layer<StoreServices> = Layer.provideMerge(
  JsonlStore.layer(),
  Layer.mergeAll(
    TranscriptFile.layerWith({ maxLineBytes: CEILING }),
    FileSnapshot.layer,
    TranscriptLock.layer
  )
)

const message = (id: string, parentId: string | null, role: "user" | "assistant", text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-05-01T09:00:01.000Z",
    message: role === "user"
      ? { role, content: text, timestamp: 1 }
      : {
        role,
        content: [{ type: "text", text }],
        api: "x",
        provider: "x",
        model: "x",
        usage: {
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 0,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
        },
        stopReason: "stop",
        timestamp: 2
      }
  })

/** header, a user message, an assistant reply of ~6 KB (over the ceiling), a user message under it. */
const writeSession = (file: string, version = 3) => {
  const big = message("a0000002", "a0000001", "assistant", "é".repeat(3000))
  const lines = [
    headerLine("s", "/work/project", version),
    message("a0000001", null, "user", "first"),
    big,
    message("a0000003", "a0000002", "user", "after the big one")
  ]
  fs.writeFileSync(file, lines.join("\n") + "\n")
  return { big, offset: Buffer.byteLength(lines.slice(0, 2).join("\n") + "\n") }
}

describe("lines longer than the line ceiling (real files, ceiling 1 KiB)", () => {
  it.live("are given as bytes (never decoded), with number, offset and length, across chunk boundaries", () =>
    Effect.gen(function*() {
      const files = yield* TranscriptFile.TranscriptFile
      const file = path.join(tempDir(), "lines.jsonl")
      const at = "a".repeat(CEILING)
      const over = "b".repeat(CEILING + 1)
      const long = "c".repeat(5000)
      fs.writeFileSync(file, ["short", at, over, long, "end", "d".repeat(3000)].join("\n"))
      const seen: Array<TranscriptFile.Line> = []
      yield* files.forEachChunk(file, (lines) => void seen.push(...lines), { chunkSize: 700 })
      expect(seen.map((l) => [l.line, l.byteLength, l.oversized !== undefined, l.terminated])).toEqual([
        [1, 5, false, true],
        [2, CEILING, false, true],
        [3, CEILING + 1, true, true],
        [4, 5000, true, true],
        [5, 3, false, true],
        [6, 3000, true, false]
      ])
      expect(seen.map((l) => l.offset)).toEqual([
        0,
        6,
        6 + CEILING + 1,
        6 + 2 * CEILING + 3,
        2 * CEILING + 5010,
        2 * CEILING + 5014
      ])
      expect(seen[1]!.text).toBe(at)
      expect(seen[2]!.text).toBe("")
      expect(Buffer.from(seen[3]!.oversized!.head).toString()).toBe("c".repeat(CEILING))
      expect(seen[4]!.text).toBe("end")
      // the same through the stream of lines, with the default chunk size
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(files.lines(file)))
      expect(streamed.map((l) => l.oversized !== undefined)).toEqual([false, false, true, true, false, true])
    }).pipe(Effect.provide(layer)))

  it.live("the rest of the file opens: reported, an opaque row the tree links through, the context around it", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "s.jsonl")
      const { big, offset } = writeSession(file)
      const session = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      expect(session.loadReport().oversized).toEqual([{ line: 3, offset, byteLength: Buffer.byteLength(big) }])
      expect(session.loadReport().corrupt).toEqual([])
      expect(session.getEntries().map((e) => e.id)).toEqual(["a0000001", "a0000003"])
      expect(session.getLeafId()).toBe("a0000003")
      expect(session.getBranch().map((e) => e.id)).toEqual(["a0000001", "a0000003"])
      expect(session.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "user"])
      const row = SessionState.rows(session.getState()).find(OversizedLine.is)!
      expect(row.value).toEqual({
        type: OversizedLine.TYPE,
        originalType: "message",
        id: "a0000002",
        parentId: "a0000001"
      })
      expect(() => row.raw).toThrow(OversizedLine.OversizedLineError)
      // the catalog reads it too
      const [info] = yield* SessionCatalog.list("/work/project", path.dirname(file))
      expect(info!.messageCount).toBe(2)
      // a fork cannot write it as text: refused with its line and offset, nothing written
      const error = yield* Effect.flip(
        SessionManager.forkFrom(file, "/work/project", path.join(path.dirname(file), "f"))
      )
      expect(error).toMatchObject({ _tag: "InvalidSessionFileError", line: 3, offset })
      expect(fs.existsSync(path.join(path.dirname(file), "f"))).toBe(false)
    }).pipe(Effect.provide(layer)))

  it.live("a migration's rewrite copies it byte for byte; appends after it work", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "old.jsonl")
      const { big } = writeSession(file, 2)
      const session = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      expect(session.loadReport().migratedFrom).toBe(2)
      expect(session.loadReport().backups).toHaveLength(1)
      const lines = fs.readFileSync(file, "utf8").split("\n")
      expect(JSON.parse(lines[0]!).version).toBe(3)
      expect(lines[2]).toBe(big)
      yield* session.appendMessage({ role: "user", content: "later", timestamp: 3 })
      const reopened = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      expect(reopened.getBranch().map((e) => e.id).slice(0, 2)).toEqual(["a0000001", "a0000003"])
      expect(fs.readFileSync(file, "utf8").split("\n")[2]).toBe(big)
    }).pipe(Effect.provide(layer)))

  it.live("its bytes are copied only while they are still the bytes read: a changed file fails the copy", () =>
    Effect.gen(function*() {
      const files = yield* TranscriptFile.TranscriptFile
      const file = path.join(tempDir(), "s.jsonl")
      const { big, offset } = writeSession(file)
      const session = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      const row = SessionState.rows(session.getState()).find(OversizedLine.is)!
      const copied = Buffer.concat(Chunk.toArray(yield* Stream.runCollect(OversizedLine.bytes(files, row))))
      expect(copied.toString()).toBe(big + "\n")
      const bytes = fs.readFileSync(file)
      bytes[offset + 10] = 0x58 // "X" inside its head
      fs.writeFileSync(file, bytes)
      const error = yield* Effect.flip(Stream.runDrain(OversizedLine.bytes(files, row)))
      expect(error).toMatchObject({ _tag: "OversizedLineError", line: 3, offset })
    }).pipe(Effect.provide(layer)))

  it.live("an oversized line appended behind a cached open is reported when the file is opened again", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "c.jsonl")
      fs.writeFileSync(file, headerLine("c") + "\n" + message("a0000001", null, "user", "first") + "\n")
      yield* SessionManager.open(file)
      fs.appendFileSync(file, message("a0000002", "a0000001", "user", "x".repeat(2 * CEILING)) + "\n")
      const again = yield* SessionManager.open(file)
      expect(again.loadReport().oversized.map((o) => o.line)).toEqual([3])
    }).pipe(Effect.provide(layer)))
})
