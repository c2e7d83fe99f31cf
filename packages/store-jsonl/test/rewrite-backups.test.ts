import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionStore from "../src/SessionStore.js"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { assistant, entryLine, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

/** The backup files beside `file` (what every destructive rewrite must leave). */
const backupsOf = (file: string): Array<string> =>
  fs.readdirSync(path.dirname(file)).filter((name) =>
    name.startsWith(path.basename(file) + ".") && name.endsWith(".jsonl")
  ).map((name) => path.join(path.dirname(file), name))

describe("every destructive rewrite keeps a backup of the exact bytes it replaces (real files)", () => {
  it.effect("rewrite()", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/p", dir)
      yield* sm.appendMessage(user("1"))
      yield* sm.appendMessage(assistant("1"))
      const file = sm.getSessionFile()!
      const before = fs.readFileSync(file)
      yield* sm.setIdentity({ sessionId: "renamed-session", cwd: "/q" })
      const backups = yield* sm.rewrite("backup")
      expect(backups).toHaveLength(1)
      expect(backupsOf(file)).toEqual(backups)
      expect(fs.readFileSync(backups[0]!)).toEqual(before)
      expect(fs.readFileSync(file, "utf8")).toContain("renamed-session")
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("migration on a writable open", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "v1.jsonl")
      const v1 = [
        headerLine("s-v1", "/p", 1),
        JSON.stringify({ type: "message", timestamp: "2026-05-01T09:00:01.000Z", message: user("old") })
      ].join("\n") + "\n"
      fs.writeFileSync(file, v1)
      const sm = yield* SessionManager.open(file)
      expect(sm.loadReport()).toMatchObject({ migratedFrom: 1, rewritten: true })
      expect(sm.loadReport().backups).toHaveLength(1)
      expect(backupsOf(file)).toEqual(sm.loadReport().backups)
      expect(fs.readFileSync(sm.loadReport().backups[0]!, "utf8")).toBe(v1)
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("header recovery on a writable open", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "headerless.jsonl")
      const original = [
        entryLine("a0000001", null, user("u")),
        headerLine("s-late", "/p"),
        entryLine("a0000002", "a0000001", assistant("a"))
      ].join("\n") + "\n"
      fs.writeFileSync(file, original)
      const sm = yield* SessionManager.open(file)
      expect(sm.wasRecoveredFromCorruptHeader()).toBe(true)
      expect(sm.loadReport().backups).toHaveLength(1)
      expect(backupsOf(file)).toEqual(sm.loadReport().backups)
      expect(fs.readFileSync(sm.loadReport().backups[0]!, "utf8")).toBe(original)
      expect(JSON.parse(fs.readFileSync(file, "utf8").split("\n")[0]!).id).toBe("s-late")
    }).pipe(Effect.provide(SessionStore.layerNode)))

  it.effect("resetTranscript (prepareForRun's reset)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
      yield* sm.appendMessage(user("only a user message"))
      const file = sm.getSessionFile()!
      const before = fs.readFileSync(file)
      const backup = yield* sm.resetTranscript()
      expect(backup).toBeDefined()
      expect(backupsOf(file)).toEqual([backup])
      expect(fs.readFileSync(backup!)).toEqual(before)
    }).pipe(Effect.provide(SessionStore.layerNode)))
})
