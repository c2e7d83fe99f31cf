/**
 * Lines are streamed without a whole-file string: a file larger than V8's string limit (~512 MiB)
 * opens. The 600 MB run is opt-in (`BRANCHLOG_LARGE=1`); the default run uses 24 MB with one
 * line of 3 MiB spanning several 1 MiB chunks.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptFile from "../src/TranscriptFile.js"

afterAll(cleanupTempRoots)

const writeBigFile = (file: string, targetBytes: number): { lines: number; bytes: number } => {
  const line = JSON.stringify({ type: "message", pad: "é".repeat(400) }) + "\n"
  const block = line.repeat(2048)
  const blockBytes = Buffer.byteLength(block)
  const fd = fs.openSync(file, "w")
  let bytes = 0
  let lines = 0
  try {
    const huge = JSON.stringify({ type: "huge", pad: "x".repeat(3 * 1024 * 1024) }) + "\n"
    fs.writeSync(fd, huge)
    bytes += Buffer.byteLength(huge)
    lines += 1
    while (bytes < targetBytes) {
      fs.writeSync(fd, block)
      bytes += blockBytes
      lines += 2048
    }
  } finally {
    fs.closeSync(fd)
  }
  return { lines, bytes }
}

const run = (targetBytes: number) =>
  Effect.gen(function*() {
    const file = path.join(tempDir(), "big.jsonl")
    const expected = writeBigFile(file, targetBytes)
    const tf = yield* TranscriptFile.TranscriptFile
    const result = yield* tf.lines(file).pipe(
      Stream.runFold({ lines: 0, end: 0, maxLength: 0, unterminated: 0 }, (acc, line) => ({
        lines: acc.lines + 1,
        end: line.offset + line.byteLength + (line.terminated ? 1 : 0),
        maxLength: Math.max(acc.maxLength, line.byteLength),
        unterminated: acc.unterminated + (line.terminated ? 0 : 1)
      }))
    )
    expect(result.lines).toBe(expected.lines)
    expect(result.end).toBe(expected.bytes)
    expect(result.maxLength).toBeGreaterThan(3 * 1024 * 1024)
    expect(result.unterminated).toBe(0)
    fs.rmSync(file)
  }).pipe(Effect.provide(TranscriptFile.layer))

describe("TranscriptFile on large files (node)", () => {
  it.live("streams a 24 MB file with a 3 MiB line across chunks", () => run(24 * 1024 * 1024))

  it.live.skipIf(process.env.BRANCHLOG_LARGE === undefined)(
    "streams a 600 MB file (beyond V8's string limit)",
    () => run(600 * 1000 * 1000),
    300_000
  )
})
