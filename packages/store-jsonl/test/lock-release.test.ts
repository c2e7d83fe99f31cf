/**
 * The release of a lock removes the lock file only while the lock path still names the file this
 * process created: one that was taken over (moved away, or removed, and a new one made there) is
 * left to its new holder, whether its bytes differ or are the very same. On files the release
 * compares inodes through the descriptor it kept open; in memory it compares the text.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as MemoryFileSystem from "../src/MemoryFileSystem.js"
import * as Testing from "../src/testing.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import * as TranscriptLock from "../src/TranscriptLock.js"

afterAll(cleanupTempRoots)

const fds = () => (fs.existsSync("/proc/self/fd") ? fs.readdirSync("/proc/self/fd").length : 0)

describe("lock release (node)", () => {
  const withLock = <A>(file: string, use: (lockPath: string) => A) =>
    Effect.flatMap(
      TranscriptLock.TranscriptLock,
      (locks) => locks.withLock(file, Effect.sync(() => use(`${file}.lock`)))
    ).pipe(Effect.provide(TranscriptLock.layer))

  it.effect("removes its own lock file and closes it", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "t.jsonl")
      const before = fds()
      const during = yield* withLock(file, (lockPath) => {
        expect(fs.existsSync(lockPath)).toBe(true)
        return fds()
      })
      expect(fs.existsSync(`${file}.lock`)).toBe(false)
      if (before > 0) {
        expect(during).toBe(before + 1)
        expect(fds()).toBe(before)
      }
    }))

  it.effect("leaves a lock file made in its place, even one of the same bytes", () =>
    Effect.gen(function*() {
      for (const sameBytes of [false, true]) {
        const file = path.join(tempDir(), "t.jsonl")
        const before = fds()
        yield* withLock(file, (lockPath) => {
          const ours = fs.readFileSync(lockPath, "utf8")
          fs.renameSync(lockPath, `${lockPath}.moved`)
          fs.writeFileSync(lockPath, sameBytes ? ours : "{\"pid\":1,\"token\":\"theirs\"}\n")
        })
        expect(fs.existsSync(`${file}.lock`), `same bytes: ${sameBytes}`).toBe(true)
        expect(fs.existsSync(`${file}.lock.moved`)).toBe(true)
        if (before > 0) expect(fds()).toBe(before)
      }
    }))

  it.effect("a lock file removed during the hold: the release does nothing and fails nothing", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "t.jsonl")
      yield* withLock(file, (lockPath) => fs.unlinkSync(lockPath))
      expect(fs.existsSync(`${file}.lock`)).toBe(false)
      yield* withLock(file, (lockPath) => expect(fs.existsSync(lockPath)).toBe(true))
      expect(fs.existsSync(`${file}.lock`)).toBe(false)
    }))
})

describe("lock release (memory)", () => {
  it.effect("removes its own lock file, and leaves one of other bytes made in its place", () => {
    const volume = MemoryFileSystem.make({ pid: 100 })
    volume.mkdir("/s")
    return Effect.gen(function*() {
      const locks = yield* TranscriptLock.TranscriptLock
      yield* locks.withLock("/s/t.jsonl", Effect.sync(() => expect(volume.exists("/s/t.jsonl.lock")).toBe(true)))
      expect(volume.exists("/s/t.jsonl.lock")).toBe(false)
      yield* locks.withLock(
        "/s/t.jsonl",
        Effect.sync(() => {
          volume.remove("/s/t.jsonl.lock")
          volume.writeFile("/s/t.jsonl.lock", "{\"pid\":200,\"token\":\"theirs\"}\n")
        })
      )
      expect(volume.readText("/s/t.jsonl.lock")).toContain("theirs")
    }).pipe(Effect.provide(Testing.layerMemory(volume)))
  })
})
