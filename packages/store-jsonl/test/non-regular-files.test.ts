/**
 * Only regular files (or symlinks to them) are opened for reading: a FIFO, a device or a folder
 * given where a session file belongs fails with `NotRegularFileError` before any open, through
 * every entry point that reads a session file (the file services, open, continueRecent, forkFrom,
 * the catalog). A FIFO opened for reading would block the process in `open(2)` for good, so each
 * test here has a bounded way out: a helper process that opens every FIFO for writing after a
 * while (which would release a blocked open and turn a hang into a failed assertion).
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { NotRegularFileError } from "@branchlog/session-store/StoreError"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as FileSnapshot from "../src/FileSnapshot.js"
import * as SessionCatalog from "../src/SessionCatalog.js"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, memoryHarness, tempDir } from "../src/testing/Harness.js"
import * as TranscriptFile from "../src/TranscriptFile.js"
import { headerLine } from "./support/messages.js"

const unblockers: Array<ChildProcess> = []
afterAll(() => {
  for (const child of unblockers) child.kill("SIGKILL")
  cleanupTempRoots()
})

/**
 * A FIFO, and a helper that, after 20 s, opens it for writing again and again (each blocked reader
 * is released and sees an empty file) until the end of the file's tests.
 */
const fifo = (dir: string, name: string): string => {
  const file = path.join(dir, name)
  execFileSync("mkfifo", [file])
  const child = spawn("sh", ["-c", `sleep 20; while :; do : > "$1"; done`, "sh", file], { stdio: "ignore" })
  child.unref()
  unblockers.push(child)
  return file
}

const layer = SessionStore.layerNode as Layer.Layer<SessionStore.Services>

const refused = <A, E>(effect: Effect.Effect<A, E, SessionStore.Services>, kind: string) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    expect(error).toBeInstanceOf(NotRegularFileError)
    expect((error as NotRegularFileError).kind).toBe(kind)
    return error as NotRegularFileError
  })

const hasMkfifo = (() => {
  try {
    execFileSync("sh", ["-c", "command -v mkfifo"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

describe.skipIf(!hasMkfifo)("a FIFO where a session file belongs (real files)", () => {
  it.live("the file services refuse it unopened, and say what it is", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = fifo(dir, "pipe.jsonl")
      const files = yield* TranscriptFile.TranscriptFile
      const snapshots = yield* FileSnapshot.FileSnapshot
      const error = yield* refused(snapshots.capture(file), "fifo")
      expect(error.path).toBe(file)
      expect(error.message).toBe(`read: not a regular file (a fifo): ${file}`)
      yield* refused(files.forEachChunk(file, () => {}), "fifo")
      yield* refused(files.readFrom(file, 0), "fifo")
      yield* refused(Stream.runDrain(files.lines(file)), "fifo")
    }).pipe(Effect.provide(layer)), 60_000)

  it.live(
    "open (read-only and writable) and forkFrom refuse it; nothing is created or written",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const file = fifo(dir, "pipe.jsonl")
        yield* refused(SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }), "fifo")
        yield* refused(SessionManager.open(file), "fifo")
        yield* refused(SessionManager.forkFrom(file, "/work/project", path.join(dir, "forks")), "fifo")
        expect(fs.statSync(file).isFIFO()).toBe(true)
        expect(fs.readdirSync(dir)).toEqual(["pipe.jsonl"])
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live(
    "the catalog and continueRecent pass it over and use the real session beside it",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const real = path.join(dir, "2026-05-01T09-00-00-000Z_real.jsonl")
        fs.writeFileSync(real, headerLine("real") + "\n")
        fs.utimesSync(real, new Date("2026-01-01"), new Date("2026-01-01"))
        fifo(dir, "2026-06-01T09-00-00-000Z_pipe.jsonl")
        fs.mkdirSync(path.join(dir, "2026-07-01T09-00-00-000Z_folder.jsonl"))
        expect((yield* SessionCatalog.list("/work/project", dir)).map((info) => info.id)).toEqual(["real"])
        expect(yield* SessionCatalog.findMostRecent(dir)).toEqual(Option.some(real))
        const session = yield* SessionManager.continueRecent("/work/project", dir)
        expect(session.getSessionId()).toBe("real")
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live("a symlink to a FIFO is refused; a symlink to a regular file is read", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const pipe = fifo(dir, "pipe")
      const toPipe = path.join(dir, "to-pipe.jsonl")
      fs.symlinkSync(pipe, toPipe)
      yield* refused(SessionManager.open(toPipe, undefined, undefined, { readOnly: true }), "fifo")
      const target = path.join(dir, "target.jsonl")
      fs.writeFileSync(target, headerLine("linked") + "\n")
      const link = path.join(dir, "link.jsonl")
      fs.symlinkSync(target, link)
      const session = yield* SessionManager.open(link, undefined, undefined, { readOnly: true, cache: false })
      expect(session.getSessionId()).toBe("linked")
    }).pipe(Effect.provide(layer)), 60_000)
})

describe("other files that are not regular files", () => {
  it.live(
    "a folder says it is a folder (real files), and open does not start a session in its place",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const folder = path.join(dir, "folder.jsonl")
        fs.mkdirSync(folder)
        const error = yield* refused(SessionManager.open(folder), "directory")
        expect(error.message).toBe(`read: is a directory: ${folder}`)
        yield* refused(SessionManager.open(folder, undefined, undefined, { readOnly: true }), "directory")
        yield* refused(SessionManager.forkFrom(folder, "/work/project", path.join(dir, "forks")), "directory")
        expect(fs.readdirSync(folder)).toEqual([])
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live.skipIf(!fs.existsSync("/dev/null"))(
    "a character device (/dev/null) is refused, not read as an empty file",
    () =>
      Effect.gen(function*() {
        yield* refused(SessionManager.open("/dev/null", undefined, undefined, { readOnly: true }), "character device")
      }).pipe(Effect.provide(layer)),
    60_000
  )

  it.live("a folder in the in-memory volume says the same", () => {
    const { dir, layer } = memoryHarness.make()
    return Effect.gen(function*() {
      const files = yield* TranscriptFile.TranscriptFile
      const folder = path.posix.join(dir, "sub.jsonl")
      yield* files.append(path.posix.join(folder, "x.jsonl"), [headerLine("x")])
      const error = yield* refused(SessionManager.open(folder), "directory")
      expect(error.message).toBe(`read: is a directory: ${folder}`)
      yield* refused(files.forEachChunk(folder, () => {}), "directory")
    }).pipe(Effect.provide(layer as Layer.Layer<SessionStore.Services>))
  })
})
