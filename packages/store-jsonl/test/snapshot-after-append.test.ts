/**
 * `FileSnapshot.afterAppend`: the snapshot derived from a write's own stat and the bytes written
 * (on top of the tail known before) is the snapshot a capture of the file would take, and it is
 * refused whenever the stat does not prove that the write landed right at the known end of the
 * same file (real files).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as FileSnapshot from "../src/FileSnapshot.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"

afterAll(cleanupTempRoots)

const bytesOf = (n: number, seed: number) => {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = 0x61 + ((i * 7 + seed) % 26)
  if (n > 0) out[n - 1] = 0x0a
  return out
}

/** Appends `bytes` through one descriptor and gives its stat right after the write (as the Node backend does). */
const appendWithStat = (file: string, bytes: Uint8Array): FileSnapshot.StatAfterWrite => {
  const fd = fs.openSync(file, fs.constants.O_APPEND | fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600)
  try {
    fs.writeSync(fd, bytes)
    const st = fs.fstatSync(fd, { bigint: true })
    return { dev: st.dev, ino: st.ino, size: Number(st.size), mtimeNs: st.mtimeNs }
  } finally {
    fs.closeSync(fd)
  }
}

const captured = (file: string) =>
  Effect.map(
    Effect.flatMap(FileSnapshot.FileSnapshot, (s) => s.captureTailed(file)),
    Option.getOrThrow
  )

describe("FileSnapshot.afterAppend (real files)", () => {
  it.effect("equals a capture of the file after the write, for writes shorter and longer than the window", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      let n = 0
      for (const before of [0, 1, 10, 4095, 4096, 4097, 9000]) {
        for (const written of [1, 300, 4095, 4096, 4097, 6000]) {
          const file = path.join(dir, `f${n++}.jsonl`)
          fs.writeFileSync(file, bytesOf(before, n))
          const previous = before === 0 ? undefined : yield* captured(file)
          const bytes = bytesOf(written, n + 3)
          const stat = appendWithStat(file, bytes)
          const derived = FileSnapshot.afterAppend(path.resolve(file), previous, bytes, stat)
          const actual = yield* captured(file)
          expect(derived, `${before} + ${written}`).toBeDefined()
          expect(derived!.snapshot).toEqual(actual.snapshot)
          expect(Buffer.from(derived!.tail).equals(Buffer.from(actual.tail))).toBe(true)
        }
      }
    }).pipe(Effect.provide(FileSnapshot.layer)))

  it.effect("is refused when anything else happened to the file than this write", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "a.jsonl")
      fs.writeFileSync(file, bytesOf(5000, 1))
      const previous = yield* captured(file)
      const bytes = bytesOf(200, 2)

      // a foreign append before ours: the size grew by more than what was written
      fs.appendFileSync(file, "foreign\n")
      expect(FileSnapshot.afterAppend(path.resolve(file), previous, bytes, appendWithStat(file, bytes))).toBeUndefined()

      // a file renamed over the path: another inode
      const other = path.join(dir, "b.jsonl")
      fs.writeFileSync(other, bytesOf(5000, 1))
      fs.renameSync(other, file)
      expect(FileSnapshot.afterAppend(path.resolve(file), previous, bytes, appendWithStat(file, bytes))).toBeUndefined()

      // a truncation then a write that happens to end at the expected size: another inode is not
      // needed to refuse it when the sizes differ; with the same inode, a shrink below the known end
      const third = path.join(dir, "c.jsonl")
      fs.writeFileSync(third, bytesOf(5000, 1))
      const known = yield* captured(third)
      fs.truncateSync(third, 100)
      expect(FileSnapshot.afterAppend(path.resolve(third), known, bytes, appendWithStat(third, bytes))).toBeUndefined()

      // a known tail shorter than the window (a short read): not enough bytes to hash the new window
      const fourth = path.join(dir, "d.jsonl")
      fs.writeFileSync(fourth, bytesOf(5000, 1))
      const full = yield* captured(fourth)
      const short = { snapshot: full.snapshot, tail: full.tail.subarray(1) }
      expect(FileSnapshot.afterAppend(path.resolve(fourth), short, bytes, appendWithStat(fourth, bytes)))
        .toBeUndefined()

      // a file that was not empty where the caller took it for empty
      const fifth = path.join(dir, "e.jsonl")
      fs.writeFileSync(fifth, "x\n")
      expect(FileSnapshot.afterAppend(path.resolve(fifth), undefined, bytes, appendWithStat(fifth, bytes)))
        .toBeUndefined()
    }).pipe(Effect.provide(FileSnapshot.layer)))
})
