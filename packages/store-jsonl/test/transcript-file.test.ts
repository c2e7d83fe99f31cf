/**
 * The behavioural suite of TranscriptFile and FileSnapshot, run against the Node layer (real
 * temporary folders) and the in-memory layer.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { FileSnapshot } from "../src/FileSnapshot.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"
import { TranscriptFile } from "../src/TranscriptFile.js"

afterAll(cleanupTempRoots)

const collect = (file: string, chunkSize?: number) =>
  Effect.flatMap(
    TranscriptFile,
    (tf) =>
      Stream.runCollect(tf.lines(file, chunkSize === undefined ? {} : { chunkSize })).pipe(Effect.map(Chunk.toArray))
  )

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

for (const harness of harnesses) {
  describe(`TranscriptFile + FileSnapshot (${harness.name})`, () => {
    it.effect("streams lines with 1-based numbers, byte offsets, and a torn tail marked unterminated", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "a.jsonl")
      ext.write(file, "{\"a\":1}\nhé → ü\n\n{\"torn\":")
      return Effect.gen(function*() {
        for (const chunkSize of [undefined, 1, 3, 7]) {
          const lines = yield* collect(file, chunkSize)
          expect(lines.map((l) => l.text)).toEqual(["{\"a\":1}", "hé → ü", "", "{\"torn\":"])
          expect(lines.map((l) => l.line)).toEqual([1, 2, 3, 4])
          expect(lines.map((l) => l.offset)).toEqual([0, 8, 19, 20])
          expect(lines.map((l) => l.byteLength)).toEqual([7, 10, 0, 8])
          expect(lines.map((l) => l.terminated)).toEqual([true, true, true, false])
        }
      }).pipe(Effect.provide(layer))
    })

    it.effect("forEachChunk hands over the same lines as the stream, and stops when told to", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "chunks.jsonl")
      const text = Array.from({ length: 50 }, (_, i) => `{"n":${i},"s":"${"é".repeat(i % 7)}"}`).join("\n") +
        "\n{\"torn\":"
      ext.write(file, text)
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        for (const chunkSize of [undefined, 1, 5, 64]) {
          const options = chunkSize === undefined ? {} : { chunkSize }
          const seen: Array<unknown> = []
          yield* tf.forEachChunk(file, (lines) => {
            seen.push(...lines)
          }, options)
          expect(seen).toEqual(yield* collect(file, chunkSize))
        }
        const before = yield* tf.bytesRead
        let calls = 0
        yield* tf.forEachChunk(file, () => {
          calls += 1
          return false
        }, { chunkSize: 64 })
        expect(calls).toBe(1)
        expect((yield* tf.bytesRead) - before).toBe(64)
        const missing = yield* Effect.flip(tf.forEachChunk(path.join(dir, "none.jsonl"), () => {}))
        expect(missing._tag).toBe("FileNotFoundError")
      }).pipe(Effect.provide(layer))
    })

    it.effect("the synchronous reads give what the effects give, counted, and a Left naming the file", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "sync.jsonl")
      const text = Array.from({ length: 40 }, (_, i) => `{"n":${i}}`).join("\n") + "\n{\"torn\":"
      ext.write(file, text)
      const missing = path.join(dir, "none.jsonl")
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        for (const chunkSize of [undefined, 1, 7, 64]) {
          const options = chunkSize === undefined ? {} : { chunkSize }
          const seen: Array<unknown> = []
          const before = yield* tf.bytesRead
          expect(Either.isRight(tf.unsafeForEachChunk(file, (lines) => {
            seen.push(...lines)
          }, options))).toBe(true)
          expect((yield* tf.bytesRead) - before).toBe(Buffer.byteLength(text))
          expect(seen).toEqual(yield* collect(file, chunkSize))
        }
        let calls = 0
        tf.unsafeForEachChunk(file, () => {
          calls += 1
          return false
        }, { chunkSize: 8 })
        expect(calls).toBe(1)
        const ranges = [[0, 8], [8, 8], [text.length - 4, 100], [3, 0]] as const
        const scratch = new Uint8Array(512)
        const sync = Either.getOrThrow(tf.unsafeReadRanges(file, ranges, scratch)).map((b) => Buffer.from(b).toString())
        expect(sync).toEqual((yield* tf.readRanges(file, ranges)).map((b) => Buffer.from(b).toString()))
        expect(sync).toEqual(["{\"n\":0}\n", "{\"n\":1}\n", "rn\":", ""])
        const pieces: Array<string> = []
        const scanned = tf.unsafeScanBytes(file, 2, 20, 6, (piece, at) => pieces.push(`${at}:${Buffer.from(piece)}`))
        expect(scanned).toEqual(Either.right(20))
        expect(pieces).toEqual(["2:n\":0}\n", "8:{\"n\":1", "14:}\n{\"n\"", "20::2"])
        const failures = ([
          tf.unsafeForEachChunk(missing, () => {}),
          tf.unsafeReadRanges(missing, [[0, 1]]),
          tf.unsafeScanBytes(missing, 0, 1, 1, () => {}),
          tf.unsafeForEachChunk(dir, () => {})
        ] as Array<Either.Either<unknown, { readonly _tag: string; readonly path: string }>>).map((failed) =>
          Either.isLeft(failed) ? [failed.left._tag, failed.left.path] : ["Right"]
        )
        expect(failures).toEqual([
          ["FileNotFoundError", missing],
          ["FileNotFoundError", missing],
          ["FileNotFoundError", missing],
          ["NotRegularFileError", dir]
        ])
      }).pipe(Effect.provide(layer))
    })

    it.effect("an appender writes strings as UTF-8 and bytes as they are, and gives the bytes written or its failure", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "held.jsonl")
      ext.write(file, "{\"a\":1}\n")
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        const appender = yield* tf.openAppend(file)
        expect(appender.unsafeAppend("{\"b\":\"hé → ü\"}\n")).toEqual(Either.right(19))
        expect(yield* appender.append(new TextEncoder().encode("{\"c\":3}\n{\"d\":4}\n"))).toBe(16)
        const refused = yield* Effect.flip(appender.append("{\"e\":5}"))
        expect(refused.detail).toContain("newline")
        // the synchronous form gives its failure back (it never throws)
        const unterminated = appender.unsafeAppend("{\"e\":5}")
        expect(Either.isLeft(unterminated) && unterminated.left).toMatchObject({ _tag: "FileSystemError", path: file })
        yield* appender.close
        const closed = appender.unsafeAppend("{\"f\":6}\n")
        expect(Either.isLeft(closed) && closed.left).toMatchObject({ _tag: "FileSystemError", operation: "append" })
        expect(yield* Effect.flip(appender.append("{\"f\":6}\n"))).toMatchObject({ _tag: "FileSystemError" })
        const lines = yield* collect(file)
        expect(lines.map((l) => l.text)).toEqual(["{\"a\":1}", "{\"b\":\"hé → ü\"}", "{\"c\":3}", "{\"d\":4}"])
        expect(lines.map((l) => l.offset)).toEqual([0, 8, 27, 35])
        expect(ext.read(file)?.toString("utf8")).toBe("{\"a\":1}\n{\"b\":\"hé → ü\"}\n{\"c\":3}\n{\"d\":4}\n")
      }).pipe(Effect.provide(layer))
    })

    it.effect("an empty file has no lines; a missing file fails naming its path", () => {
      const { dir, ext, layer } = harness.make()
      const empty = path.join(dir, "empty.jsonl")
      ext.write(empty, "")
      return Effect.gen(function*() {
        expect(yield* collect(empty)).toEqual([])
        const missing = path.join(dir, "missing.jsonl")
        const error = yield* Effect.flip(collect(missing))
        expect(error._tag).toBe("FileNotFoundError")
        expect(error.path).toBe(missing)
        expect(error.message).toContain(missing)
      }).pipe(Effect.provide(layer))
    })

    it("any content splits into the same lines whatever the chunk size (property)", async () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "prop.jsonl")
      const text = fc.string({ unit: fc.constantFrom("a", "é", "€", "𝄞", "\n", "{", "\"", " "), maxLength: 60 })
      await fc.assert(
        fc.asyncProperty(text, fc.integer({ min: 1, max: 16 }), async (content, chunkSize) => {
          ext.write(file, content)
          const lines = await Effect.runPromise(collect(file, chunkSize).pipe(Effect.provide(layer)))
          const expected = content === "" ? [] : content.split("\n")
          if (content.endsWith("\n")) expected.pop()
          expect(lines.map((l) => l.text)).toEqual(expected)
          const bytes = Buffer.from(content)
          for (const line of lines) {
            expect(bytes.toString("utf8", line.offset, line.offset + line.byteLength)).toBe(line.text)
          }
          expect(lines.every((l, i) => l.terminated || i === lines.length - 1)).toBe(true)
        }),
        { numRuns: 60 }
      )
    })

    it.effect("readFrom reads only the new bytes after an append by someone else", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "tail.jsonl")
      const head = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, pad: "x".repeat(100) })).join("\n") + "\n"
      ext.write(file, head)
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        const first = yield* tf.readFrom(file, 0)
        expect(first.lines).toHaveLength(200)
        expect(first.endOffset).toBe(Buffer.byteLength(head))
        const added = "{\"i\":200}\n{\"i\":201}\n"
        ext.append(file, added)
        const before = yield* tf.bytesRead
        const tail = yield* tf.readFrom(file, first.endOffset, { firstLine: 201 })
        const after = yield* tf.bytesRead
        expect(tail.lines.map((l) => [l.line, l.text])).toEqual([[201, "{\"i\":200}"], [202, "{\"i\":201}"]])
        expect(tail.bytesRead).toBe(Buffer.byteLength(added))
        expect(after - before).toBe(Buffer.byteLength(added))
        expect(tail.endOffset).toBe(Buffer.byteLength(head + added))
      }).pipe(Effect.provide(layer))
    })

    it.effect("append writes whole lines, creates the file 0600, and prefixes a newline after a torn tail", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "nested", "b.jsonl")
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        const created = yield* tf.append(file, ["{\"n\":1}", "{\"n\":2}"])
        const { stat, ...outcome } = created
        expect(outcome).toEqual({ offset: 0, bytesWritten: 16, prefixedNewline: false, size: 16 })
        // the stat after the write, where the backend gives one (the Node backend does), is the file's
        if (stat !== undefined) expect(stat.size).toBe(16)
        if (harness.name === "node") expect(stat?.ino).toBe(fs.statSync(file, { bigint: true }).ino)
        expect(ext.mode(file)).toBe(0o600)
        if (harness.name === "node") expect(ext.mode(path.dirname(file))).toBe(0o700)
        ext.append(file, "{\"torn\":tr")
        const next = yield* tf.append(file, ["{\"n\":3}"], { durability: "fsync" })
        expect(next.prefixedNewline).toBe(true)
        expect(next.offset).toBe(16 + 10 + 1)
        expect(ext.read(file)?.toString()).toBe("{\"n\":1}\n{\"n\":2}\n{\"torn\":tr\n{\"n\":3}\n")
        const again = yield* tf.append(file, ["{\"n\":4}"])
        expect(again.prefixedNewline).toBe(false)
        const lines = yield* collect(file)
        expect(lines.map((l) => l.text)).toEqual(["{\"n\":1}", "{\"n\":2}", "{\"torn\":tr", "{\"n\":3}", "{\"n\":4}"])
        const empty = yield* tf.append(file, [])
        expect(empty.bytesWritten).toBe(0)
        const bad = yield* Effect.flip(tf.append(file, ["ok", "two\nlines"]))
        expect(bad._tag).toBe("FileSystemError")
        expect(bad.path).toBe(file)
        const noCreate = yield* Effect.flip(tf.append(path.join(dir, "none.jsonl"), ["x"], { create: false }))
        expect(noCreate._tag).toBe("FileNotFoundError")
      }).pipe(Effect.provide(layer))
    })

    it.effect("rewrite replaces the file atomically with a new inode, 0600, no temp file left", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "deep", "c.jsonl")
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        const snapshots = yield* FileSnapshot
        yield* tf.rewrite(file, "one\n")
        expect(ext.read(file)?.toString()).toBe("one\n")
        expect(ext.mode(file)).toBe(0o600)
        const snap = Option.getOrThrow(yield* snapshots.capture(file))
        yield* tf.rewrite(file, Stream.make("two\n", new TextEncoder().encode("three\n")))
        expect(ext.read(file)?.toString()).toBe("two\nthree\n")
        expect(ext.list(path.dirname(file))).toEqual(["c.jsonl"])
        const change = yield* snapshots.classify(file, snap)
        expect(change).toMatchObject({ _tag: "Replaced", reason: "new-inode" })
        const failing = Stream.concat(Stream.make("partial\n"), Stream.fail("boom" as const))
        const exit = yield* Effect.exit(tf.rewrite(file, failing))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(ext.read(file)?.toString()).toBe("two\nthree\n")
        expect(ext.list(path.dirname(file))).toEqual(["c.jsonl"])
      }).pipe(Effect.provide(layer))
    })

    it.effect("backup copies the exact bytes to a sidecar and leaves the original alone", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "d.jsonl")
      const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x0a, 0x00, 0x41])
      ext.write(file, bytes)
      return Effect.gen(function*() {
        const tf = yield* TranscriptFile
        const backup = yield* tf.backup(file, { label: "corrupt" })
        expect(path.basename(backup)).toMatch(/^d\.jsonl\.corrupt-.+-[0-9a-f]{8}\.jsonl$/)
        expect(ext.read(backup)).toEqual(bytes)
        expect(ext.read(file)).toEqual(bytes)
        expect(ext.mode(backup)).toBe(0o600)
        const missing = yield* Effect.flip(tf.backup(path.join(dir, "nope.jsonl")))
        expect(missing._tag).toBe("FileNotFoundError")
      }).pipe(Effect.provide(layer))
    })

    it.effect("FileSnapshot: missing, unchanged, appended from the old end, appended with a changed tail", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "e.jsonl")
      return Effect.gen(function*() {
        const snapshots = yield* FileSnapshot
        expect(Option.isNone(yield* snapshots.capture(file))).toBe(true)
        ext.write(file, "line1\nline2\n")
        const snap = Option.getOrThrow(yield* snapshots.capture(file))
        expect(snap.size).toBe(12)
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Unchanged" })
        ext.append(file, "line3\n")
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Appended", fromOffset: 12, size: 18 })
        ext.write(file, "line1\nlineX\nline3\n")
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Replaced", reason: "rewritten" })
        ext.write(file, "line1\n")
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Replaced", reason: "shrunk" })
        ext.remove(file)
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Missing" })
      }).pipe(Effect.provide(layer))
    })

    it.live("FileSnapshot: a same-length in-place rewrite is caught by mtime ns; a rename-over by the inode", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "f.jsonl")
      ext.write(file, "aaaa\n")
      return Effect.gen(function*() {
        const snapshots = yield* FileSnapshot
        const snap = Option.getOrThrow(yield* snapshots.capture(file))
        yield* sleep(20) // coarse kernel timestamps tick every few ms
        ext.write(file, "bbbb\n")
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Replaced", reason: "rewritten" })
        const snap2 = Option.getOrThrow(yield* snapshots.capture(file))
        ext.replace(file, "bbbb\n")
        expect(yield* snapshots.classify(file, snap2)).toMatchObject({ _tag: "Replaced", reason: "new-inode" })
      }).pipe(Effect.provide(layer))
    })

    it.effect("FileSnapshot.capture upTo fingerprints only what was read, so a later append shows as Appended", () => {
      const { dir, ext, layer } = harness.make()
      const file = path.join(dir, "g.jsonl")
      ext.write(file, "x".repeat(5000) + "\n" + "y\n")
      return Effect.gen(function*() {
        const snapshots = yield* FileSnapshot
        const snap = Option.getOrThrow(yield* snapshots.capture(file, { upTo: 5001 }))
        expect(snap.size).toBe(5001)
        expect(snap.tailLength).toBe(4096)
        expect(yield* snapshots.classify(file, snap)).toMatchObject({ _tag: "Appended", fromOffset: 5001, size: 5003 })
      }).pipe(Effect.provide(layer))
    })
  })
}
