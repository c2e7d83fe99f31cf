/**
 * The descriptors the Node backend keeps for appends that each take the lock
 * (`internal/nodeKnownAppends.ts`): the next append to a file still exactly as its writer knows it
 * reuses the open descriptor (one stat of the path instead of open and close); a file replaced,
 * changed, removed or renamed over is never written through an old descriptor, and the old one is
 * closed; at most `capacity` stay open, and all are closed with the backend. Real files; the open
 * descriptors are counted in /proc/self/fd.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { makeKnownAppends } from "../src/internal/nodeKnownAppends.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { rowsOf, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const hasFds = fs.existsSync("/proc/self/fd")
const fds = () => (hasFds ? fs.readdirSync("/proc/self/fd").length : 0)
const knownOf = (file: string) => {
  const st = fs.statSync(file, { bigint: true })
  return { dev: st.dev, ino: st.ino, size: Number(st.size), mtimeNs: st.mtimeNs }
}
const contents = (file: string) =>
  rowsOf(fs.readFileSync(file, "utf8")).filter((row) => row.type === "message").map((row) => row.message.content)

describe("kept descriptors (unit)", () => {
  it("reuses the descriptor while the file is as known; refuses a changed or replaced file", () => {
    const appends = makeKnownAppends(4)
    const file = path.join(tempDir(), "t.jsonl")
    fs.writeFileSync(file, "a\n")
    const before = fds()
    const fd = appends.take(file, knownOf(file))!
    expect(fd).toBeTypeOf("number")
    fs.writeSync(fd, "b\n")
    expect(appends.take(file, knownOf(file))).toBe(fd)
    // known no longer matches (someone appended): nothing to append to as known
    const stale = knownOf(file)
    fs.appendFileSync(file, "c\n")
    expect(appends.take(file, stale)).toBeUndefined()
    // replaced by another file (a rename over it): the old descriptor is closed, a new one opened
    const other = `${file}.new`
    fs.writeFileSync(other, "x\n")
    fs.renameSync(other, file)
    const again = appends.take(file, knownOf(file))!
    fs.writeSync(again, "y\n")
    expect(fs.readFileSync(file, "utf8")).toBe("x\ny\n")
    if (hasFds) expect(fds()).toBe(before + 1)
    // removed: nothing to open
    fs.unlinkSync(file)
    expect(appends.take(file, { ...stale, size: 4 })).toBeUndefined()
    appends.closeAll()
    if (hasFds) expect(fds()).toBe(before)
  })

  it("keeps at most `capacity` descriptors, closing the least recently used", () => {
    const appends = makeKnownAppends(2)
    const dir = tempDir()
    const files = ["a", "b", "c"].map((name) => path.join(dir, `${name}.jsonl`))
    for (const file of files) fs.writeFileSync(file, "{}\n")
    const before = fds()
    const [a, b, c] = files as [string, string, string]
    const fa = appends.take(a, knownOf(a))
    appends.take(b, knownOf(b))
    expect(appends.take(a, knownOf(a))).toBe(fa) // a is now the most recent
    appends.take(c, knownOf(c)) // b goes
    if (hasFds) expect(fds()).toBe(before + 2)
    expect(appends.take(a, knownOf(a))).toBe(fa)
    appends.forget(a)
    appends.forget(c)
    if (hasFds) expect(fds()).toBe(before)
  })
})

describe("kept descriptors (SessionManager, appends that each take the lock)", () => {
  it.effect("one descriptor for all its appends; a foreign replacement goes to the new file; closed with the layer", () =>
    Effect.gen(function*() {
      const before = fds()
      const file = yield* Effect.scoped(
        Effect.gen(function*() {
          const sm = yield* SessionManager.create("/p", tempDir(), { eagerFlush: true })
          for (let i = 0; i < 20; i++) yield* sm.appendMessage(user(`m${i}`))
          const file = sm.getSessionFile()!
          if (hasFds) expect(fds()).toBeLessThanOrEqual(before + 1)
          // another tool rewrites the session (a new inode, the rows kept)
          fs.writeFileSync(`${file}.tmp`, fs.readFileSync(file))
          fs.renameSync(`${file}.tmp`, file)
          yield* sm.appendMessage(user("after"))
          yield* sm.appendMessage(user("and more"))
          expect(contents(file)).toEqual([...Array.from({ length: 20 }, (_, i) => `m${i}`), "after", "and more"])
          if (hasFds) expect(fds()).toBeLessThanOrEqual(before + 1)
          return file
        }).pipe(Effect.provide(SessionStore.layerNode))
      )
      expect(fs.existsSync(file)).toBe(true)
      if (hasFds) expect(fds()).toBe(before)
    }))
})
