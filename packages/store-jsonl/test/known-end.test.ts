/**
 * `TranscriptFile.append`'s `known`: the file as the writer verified it under the lock. When the
 * file the append opens is still exactly that (same inode, size and mtime), the last byte is not
 * read back; when anything changed since (a torn line added, a rewrite in place), it is, and the
 * new lines start on a line of their own. Real files (the in-memory backend reads its last byte
 * anyway).
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { TranscriptFile } from "../src/TranscriptFile.js"

afterAll(cleanupTempRoots)

const knownOf = (file: string) => {
  const st = fs.statSync(file, { bigint: true })
  return { dev: st.dev, ino: st.ino, size: Number(st.size), mtimeNs: st.mtimeNs }
}

describe("append with a known end (node)", () => {
  it.effect("the last byte is not read back while the file is exactly as known", () =>
    Effect.gen(function*() {
      const tf = yield* TranscriptFile
      const file = path.join(tempDir(), "a.jsonl")
      // a file that does not end with a newline, described as known: the append trusts the caller
      // (which only passes what it verified ends with one), so no newline goes first
      fs.writeFileSync(file, "{\"a\":1}")
      const result = yield* tf.append(file, ["{\"b\":2}"], { known: knownOf(file) })
      expect(result.prefixedNewline).toBe(false)
      expect(fs.readFileSync(file, "utf8")).toBe("{\"a\":1}{\"b\":2}\n")
    }).pipe(Effect.provide(SessionStore.layerFilesNode)))

  it.effect("a torn line added since, or a rewrite in place, is seen: the lines start on a new line", () =>
    Effect.gen(function*() {
      const tf = yield* TranscriptFile
      const dir = tempDir()
      const grown = path.join(dir, "grown.jsonl")
      fs.writeFileSync(grown, "{\"a\":1}\n")
      const known = knownOf(grown)
      fs.appendFileSync(grown, "{\"torn\":")
      const afterTorn = yield* tf.append(grown, ["{\"b\":2}"], { known })
      expect(afterTorn.prefixedNewline).toBe(true)
      expect(fs.readFileSync(grown, "utf8")).toBe("{\"a\":1}\n{\"torn\":\n{\"b\":2}\n")

      const rewritten = path.join(dir, "rewritten.jsonl")
      fs.writeFileSync(rewritten, "{\"a\":1}\n")
      const before = knownOf(rewritten)
      // same size, same inode, last byte no longer a newline, another mtime
      const fd = fs.openSync(rewritten, "r+")
      fs.writeSync(fd, "{\"a\":12}", 0)
      fs.closeSync(fd)
      fs.utimesSync(rewritten, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000))
      expect(knownOf(rewritten).size).toBe(before.size)
      const afterRewrite = yield* tf.append(rewritten, ["{\"b\":2}"], { known: before })
      expect(afterRewrite.prefixedNewline).toBe(true)
      expect(fs.readFileSync(rewritten, "utf8")).toBe("{\"a\":12}\n{\"b\":2}\n")
    }).pipe(Effect.provide(SessionStore.layerFilesNode)))

  it.effect("a manager appending outside withWriteLock after a foreign torn line writes its entry on a line of its own", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/work/project", dir, { eagerFlush: true })
      yield* sm.appendMessage({ role: "user", content: "one", timestamp: 1 })
      const file = sm.getSessionFile()!
      fs.appendFileSync(file, "{\"type\":\"message\",\"id\":\"torn")
      const id = yield* sm.appendMessage({ role: "user", content: "two", timestamp: 2 })
      const lines = fs.readFileSync(file, "utf8").split("\n")
      expect(lines.at(-1)).toBe("")
      expect(lines.at(-3)).toBe("{\"type\":\"message\",\"id\":\"torn")
      expect(JSON.parse(lines.at(-2)!).id).toBe(id)
      const reopened = yield* SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false })
      expect(reopened.getEntry(id)).toBeDefined()
    }).pipe(Effect.provide(SessionStore.layerNode)))
})
