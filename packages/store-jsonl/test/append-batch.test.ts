/**
 * `appendMessages`: a batch written in order under one hold of the lock; a batch that stops
 * part-way (a full disk, here the memory volume's size limit) says how many of its entries were
 * written, so a retry of the rest duplicates nothing.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as SessionStore from "../src/SessionStore.js"
import { assistant, rowsOf, user } from "./support/messages.js"

const file = "/s/batch.jsonl"
const contents = (volume: MemoryFileSystem.MemoryVolume) =>
  rowsOf(volume.readText(file)).filter((row) => row.type === "message").map((row) => row.message.content)

describe("SessionManager.appendMessages", () => {
  it.effect("appends every message in order and returns their ids", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      const ids = yield* sm.appendMessages([user("one"), user("two"), user("three")])
      expect(ids).toHaveLength(3)
      expect(sm.getBranch().map((entry) => entry.id)).toEqual(ids)
      expect(contents(volume)).toEqual(["one", "two", "three"])
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("stopped by a full disk, says how many entries were written; a retry of the rest duplicates nothing", () => {
    const volume = MemoryFileSystem.make()
    return Effect.gen(function*() {
      const sm = yield* SessionManager.open(file, undefined, undefined, { eagerFlush: true })
      yield* sm.appendMessages([user("m0")])
      const one = volume.readFile(file)!.length - volume.readText(file)!.indexOf("\n") - 1
      // room for two more lines of the same size (and not a third)
      volume.setSizeLimit(file, volume.readFile(file)!.length + 2 * one + Math.floor(one / 2))
      const batch = [user("m1"), user("m2"), user("m3"), user("m4"), user("m5")]
      const error = yield* Effect.flip(sm.appendMessages(batch))
      expect(error._tag).toBe("AppendBatchError")
      expect(error).toMatchObject({ path: file, written: 2, pending: 0, total: 5 })
      expect(error.error).toMatchObject({ _tag: "FileSystemError", code: "ENOSPC" })
      expect(error.message).toContain("2 of 5 entries written before it stopped")
      expect(contents(volume)).toEqual(["m0", "m1", "m2"])
      volume.setSizeLimit(file, undefined)
      yield* sm.appendMessages(batch.slice(error.written))
      expect(contents(volume)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"])
      const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      expect(
        reopened.getBranch().map((entry) =>
          entry.type === "message" && "content" in entry.message ? entry.message.content : ""
        )
      ).toEqual([
        "m0",
        "m1",
        "m2",
        "m3",
        "m4",
        "m5"
      ])
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })

  it.effect("counts messages that wait for the first flush as pending, not written", () => {
    const volume = MemoryFileSystem.make()
    volume.writeFile(file, "")
    volume.setSizeLimit(file, 10)
    return Effect.gen(function*() {
      // not eager: header and user messages wait for the first assistant message, whose write fails
      const sm = yield* SessionManager.open(file)
      const error = yield* Effect.flip(sm.appendMessages([user("a"), user("b"), assistant("c")]))
      expect(error).toMatchObject({ written: 0, pending: 2, total: 3 })
      expect(error.message).toContain("0 of 3 entries written before it stopped (2 more accepted, not yet written)")
      expect(volume.readText(file)).toBe("")
    }).pipe(Effect.provide(SessionStore.layerMemory(volume)))
  })
})
