/**
 * The one destructive rewrite (`TranscriptFile.replace`) and the manager's rewrites on real
 * files: bytes kept as bytes, owner and mode kept, a read-only file refused and kept, nothing
 * left behind on failure, no second backup of the same bytes, symlinks rewritten at their target,
 * and rewrites that fold what other writers did first.
 */
import * as PrepareForRun from "@branchlog/session-store/PrepareForRun"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { TranscriptFile } from "../src/TranscriptFile.js"
import { assistant, entryLine, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const layer = SessionStore.layerNode
const newline = new Uint8Array([0x0a])
const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** A file's lines copied through `rawLines` (each piece at most `chunkSize`), blank lines dropped. */
const copyRaw = (file: string, chunkSize?: number) =>
  Effect.map(TranscriptFile, (files) =>
    files.rawLines(file, chunkSize === undefined ? {} : { chunkSize }).pipe(
      Stream.filter((line) => line.byteLength > 0),
      Stream.flatMap((line) => Stream.fromIterable([...line.pieces, newline]))
    ))

const names = (dir: string) => fs.readdirSync(dir).sort()

const v1 = [
  JSON.stringify({ type: "session", id: "old", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" }),
  JSON.stringify({ type: "message", timestamp: "2026-05-01T09:00:01.000Z", message: user("hi") }),
  JSON.stringify({ type: "message", timestamp: "2026-05-01T09:00:02.000Z", message: assistant("yo") })
].join("\n") + "\n"

describe("TranscriptFile.replace (node)", () => {
  it.effect("keeps invalid UTF-8 bytes and every other byte of kept lines; lines stream in pieces of at most one read", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "bytes.jsonl")
      const bad = Buffer.concat([
        Buffer.from(`{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"`),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        Buffer.from(`"}}`)
      ])
      const long = Buffer.from(JSON.stringify({ type: "custom", pad: "é".repeat(600_000) }))
      const original = Buffer.concat([
        Buffer.from(headerLine("s") + "\n\n"),
        bad,
        newline,
        long,
        newline,
        Buffer.from("\n")
      ])
      fs.writeFileSync(file, original)
      const files = yield* TranscriptFile
      let largest = 0
      const content = (yield* copyRaw(file, 64 * 1024)).pipe(Stream.tap((piece) =>
        Effect.sync(() => {
          largest = Math.max(largest, piece.length)
        })
      ))
      const result = yield* files.replace(file, content, { backup: "repair" })
      expect(largest).toBeLessThanOrEqual(64 * 1024)
      const after = fs.readFileSync(file)
      // Buffer#equals: vitest's toEqual walks a megabyte element by element
      expect(after.equals(Buffer.concat([Buffer.from(headerLine("s") + "\n"), bad, newline, long, newline]))).toBe(true)
      expect(after.includes(Buffer.from([0xff, 0xfe, 0xc3, 0x28]))).toBe(true)
      expect(fs.readFileSync(result.backup!).equals(original)).toBe(true)
    }).pipe(Effect.provide(layer)))

  it.effect("keeps the owner and the mode of the file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "owned.jsonl")
      fs.writeFileSync(file, headerLine("s") + "\n\n")
      fs.chmodSync(file, 0o640)
      if (isRoot) fs.chownSync(file, 1234, 2345)
      const files = yield* TranscriptFile
      yield* files.replace(file, yield* copyRaw(file), { backup: "repair" })
      const st = fs.statSync(file)
      expect(st.mode & 0o7777).toBe(0o640)
      if (isRoot) expect([st.uid, st.gid]).toEqual([1234, 2345])
      expect(fs.readFileSync(file, "utf8")).toBe(headerLine("s") + "\n")
    }).pipe(Effect.provide(layer)))

  it.effect("refuses a read-only file and keeps it as it is (no backup, no temporary file)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "ro.jsonl")
      fs.writeFileSync(file, headerLine("s") + "\n\n")
      fs.chmodSync(file, 0o444)
      const files = yield* TranscriptFile
      const error = yield* Effect.flip(files.replace(file, "x\n", { backup: "repair" }))
      expect(error).toMatchObject({ _tag: "FileSystemError", code: "EACCES" })
      expect(error.message).toContain("read-only")
      expect(fs.readFileSync(file, "utf8")).toBe(headerLine("s") + "\n\n")
      expect(fs.statSync(file).mode & 0o7777).toBe(0o444)
      expect(names(dir)).toEqual(["ro.jsonl"])
    }).pipe(Effect.provide(layer)))

  it.effect("a rewrite that fails half-way leaves nothing behind: no temporary file, no backup, the original untouched", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "fail.jsonl")
      const original = headerLine("s") + "\n" + "x".repeat(3 * 1024 * 1024) + "\n"
      fs.writeFileSync(file, original)
      const files = yield* TranscriptFile
      const failing = (yield* copyRaw(file, 64 * 1024)).pipe(
        Stream.zipWithIndex,
        Stream.mapEffect(([piece, i]) => i === 20 ? Effect.fail("injected" as const) : Effect.succeed(piece))
      )
      for (let attempt = 0; attempt < 3; attempt++) {
        expect(yield* Effect.flip(files.replace(file, failing, { backup: "repair" }))).toBe("injected")
        expect(names(dir)).toEqual(["fail.jsonl"])
      }
      expect(fs.readFileSync(file, "utf8")).toBe(original)
    }).pipe(Effect.provide(layer)))

  it.effect("no second backup of identical bytes; temporary files of dead processes are removed", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "same.jsonl")
      const original = headerLine("s") + "\n\n"
      fs.writeFileSync(file, original)
      const orphan = path.join(dir, ".same.jsonl.999999999.0.0badbeef.tmp")
      fs.writeFileSync(orphan, "half a rewrite")
      const files = yield* TranscriptFile
      const first = yield* files.replace(file, yield* copyRaw(file), { backup: "repair" })
      expect(fs.existsSync(orphan)).toBe(false)
      // the same bytes again (e.g. restored by hand): the backup that holds them is reused
      fs.writeFileSync(file, original)
      const second = yield* files.replace(file, yield* copyRaw(file), { backup: "repair" })
      expect(second.backup).toBe(first.backup)
      expect(yield* files.backup(file)).not.toBe(first.backup) // other bytes now: a new copy
      const copy = yield* files.backup(file)
      expect(yield* files.backup(file)).toBe(copy) // unchanged: the same backup
      expect(names(dir).filter((n) => n.includes(".repair-"))).toHaveLength(1)
      expect(fs.readFileSync(first.backup!, "utf8")).toBe(original)
    }).pipe(Effect.provide(layer)))

  it.effect("through a symlink the target is rewritten and the link stays a link", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const real = path.join(dir, "target", "real.jsonl")
      fs.mkdirSync(path.dirname(real))
      const link = path.join(dir, "link.jsonl")
      fs.writeFileSync(real, headerLine("s") + "\n\n")
      fs.symlinkSync(real, link)
      const files = yield* TranscriptFile
      const result = yield* files.replace(link, yield* copyRaw(link), { backup: "repair" })
      expect(result.path).toBe(fs.realpathSync(real))
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(real, "utf8")).toBe(headerLine("s") + "\n")
      expect(path.dirname(result.backup!)).toBe(path.dirname(fs.realpathSync(real)))
    }).pipe(Effect.provide(layer)))
})

describe("SessionManager rewrites (node)", () => {
  it.effect("migration on open through a symlink rewrites the target, keeps the link; a read-only old file is refused", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const real = path.join(dir, "real.jsonl")
      const link = path.join(dir, "link.jsonl")
      fs.writeFileSync(real, v1)
      fs.symlinkSync("real.jsonl", link)
      const sm = yield* SessionManager.open(link, undefined, undefined, { cache: false })
      expect(sm.loadReport().migratedFrom).toBe(1)
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expect(JSON.parse(fs.readFileSync(real, "utf8").split("\n")[0]!).version).toBe(3)
      const id = yield* sm.appendMessage(user("after"))
      expect(fs.readFileSync(real, "utf8")).toContain(id)

      const ro = path.join(dir, "ro.jsonl")
      fs.writeFileSync(ro, v1)
      fs.chmodSync(ro, 0o444)
      const error = yield* Effect.flip(SessionManager.open(ro, undefined, undefined, { cache: false }))
      expect(error).toMatchObject({ _tag: "FileSystemError", code: "EACCES" })
      expect(fs.readFileSync(ro, "utf8")).toBe(v1)
      expect(names(dir)).toEqual(
        ["link.jsonl", "real.jsonl", ...names(dir).filter((n) => n.includes("backup")), "ro.jsonl"].sort()
      )
    }).pipe(Effect.provide(layer)))

  it.effect("rewrite (prepareForRun's case 3) keeps rows another writer appended since this manager read the file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "s.jsonl")
      fs.writeFileSync(
        file,
        [headerLine("s"), entryLine("00000001", null, user("u")), entryLine("00000002", "00000001", assistant("a"))]
          .join("\n") + "\n"
      )
      const mine = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const other = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const foreign = yield* other.appendMessage(user("from the other writer"))
      const result = yield* PrepareForRun.prepareForRun(mine, {
        sessionFile: file,
        hadSessionFile: true,
        sessionId: "new-id",
        cwd: "/new"
      })
      expect(result).toBe("rewritten")
      const rows = fs.readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
      expect(rows[0]).toMatchObject({ type: "session", id: "new-id", cwd: "/new" })
      expect(rows.map((r) => r.id)).toContain(foreign)
      expect(mine.getEntry(foreign)).toBeDefined()
    }).pipe(Effect.provide(layer)))

  it.effect("resetTranscript (prepareForRun's case 2) refuses when another writer added an assistant message meanwhile", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "s.jsonl")
      fs.writeFileSync(file, [headerLine("s"), entryLine("00000001", null, user("u"))].join("\n") + "\n")
      const mine = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const other = yield* SessionManager.open(file, undefined, undefined, { cache: false })
      const reply = yield* other.appendMessage(assistant("a reply"))
      const error = yield* Effect.flip(
        PrepareForRun.prepareForRun(mine, { sessionFile: file, hadSessionFile: true, sessionId: "x", cwd: "/w" })
      )
      expect(error).toMatchObject({ _tag: "InvalidSessionFileError" })
      expect(fs.readFileSync(file, "utf8")).toContain(reply)
      expect(names(dir)).toEqual(["s.jsonl"])
    }).pipe(Effect.provide(layer)))
})
