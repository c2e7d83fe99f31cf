/**
 * SessionCatalog against both layers: folder layout, SessionInfo, newest first, backups and
 * temporary files skipped, progress, findMostRecent / continueRecent.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as path from "node:path"
import { afterAll } from "vitest"
import * as SessionCatalog from "../src/SessionCatalog.js"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, harnesses } from "../src/testing/Harness.js"
import { assistant, headerLine, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

describe("SessionCatalog.readInfo of a transcript with much text", () => {
  it.live("caps allMessagesText at MAX_ALL_MESSAGES_TEXT characters and still counts every message", () => {
    // the memory layer: no 77 MB on disk
    const { dir, ext, layer } = harnesses.find((harness) => harness.name === "memory")!.make()
    const file = path.join(dir, "huge.jsonl")
    const half = Math.ceil(SessionCatalog.MAX_ALL_MESSAGES_TEXT * 0.6)
    const row = (id: string, parentId: string | null, text: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "user", content: text, timestamp: 1 }
      })
    ext.write(
      file,
      [
        headerLine("h"),
        row("a0000001", null, "a".repeat(half)),
        row("a0000002", "a0000001", "b".repeat(half)),
        row(
          "a0000003",
          "a0000002",
          "c"
        )
      ].join("\n") + "\n"
    )
    return Effect.gen(function*() {
      const info = Option.getOrThrow(yield* SessionCatalog.readInfo(file))
      expect(info.messageCount).toBe(3)
      expect(info.allMessagesText.length).toBe(SessionCatalog.MAX_ALL_MESSAGES_TEXT)
      expect(info.allMessagesText.startsWith("aaa")).toBe(true)
      expect(info.allMessagesText.endsWith("b")).toBe(true)
    }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
  }, 60_000)
})

describe("SessionCatalog paths", () => {
  it("encodes cwd as the references do and names files by header timestamp and id", () => {
    expect(SessionCatalog.encodeCwd("/home/u/proj")).toBe("--home-u-proj--")
    expect(SessionCatalog.encodeCwd("C:\\work\\x")).toBe("--C--work-x--")
    expect(SessionCatalog.isSessionFileName("2026-03-15T22-40-18-123Z_0199.jsonl")).toBe(true)
    for (
      const name of [
        "a.jsonl.corrupt-2026-03-15T22-40-18-123Z-1234abcd.jsonl",
        "a.jsonl.backup-2026-03-15T22-40-18-123Z-1234abcd.jsonl",
        "a.jsonl.repair-2026-03-15T22-40-18-123Z-1234abcd.jsonl",
        ".a.jsonl.1.2.ab.tmp",
        "a.jsonl.lock",
        "notes.txt"
      ]
    ) {
      expect(SessionCatalog.isSessionFileName(name), name).toBe(false)
    }
  })

  it.effect("the default folder is under BRANCHLOG_AGENT_DIR (or ~/.branchlog/agent); pi's is selectable", () =>
    Effect.gen(function*() {
      const { ConfigProvider } = yield* Effect.promise(() => import("effect"))
      const dir = yield* SessionCatalog.defaultSessionDir("/home/u/proj").pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["BRANCHLOG_AGENT_DIR", "/agents/b"]])))
      )
      expect(dir).toBe("/agents/b/sessions/--home-u-proj--")
      const fallback = yield* SessionCatalog.agentDir.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
      expect(fallback.endsWith(path.join(".branchlog", "agent"))).toBe(true)
      const pi = yield* SessionCatalog.piAgentDir.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
      expect(pi.endsWith(path.join(".pi", "agent"))).toBe(true)
    }))
})

for (const harness of harnesses) {
  describe(`SessionCatalog (${harness.name})`, () => {
    it.live("list gives SessionInfo newest first, skips backups, temp files and invalid files, and reports progress", () => {
      const { dir, ext, layer } = harness.make()
      const agent = path.join(dir, "agent")
      return Effect.gen(function*() {
        const sessions = yield* SessionCatalog.defaultSessionDir("/home/u/proj", agent)
        const older = yield* SessionManager.create("/home/u/proj", sessions)
        yield* older.appendMessage({ ...user("first question"), timestamp: 1_000 } as never)
        yield* older.appendMessage({ ...assistant("first answer"), timestamp: 2_000 } as never)
        yield* older.appendSessionInfo("  Older  ")
        const newer = yield* SessionManager.create("/home/u/proj", sessions)
        yield* newer.appendMessage({ ...user("second"), timestamp: 5_000 } as never)
        yield* newer.appendMessage({ ...assistant("reply"), timestamp: 6_000 } as never)
        yield* newer.appendMessage(
          {
            role: "toolResult",
            toolCallId: "t",
            toolName: "read",
            content: [],
            isError: false,
            timestamp: 7_000
          } as never
        )
        ext.write(
          path.join(sessions, "x.jsonl.corrupt-2026-01-01T00-00-00-000Z-1234abcd.jsonl"),
          headerLine("backup") + "\n"
        )
        ext.write(
          path.join(sessions, "x.jsonl.backup-2026-01-01T00-00-00-000Z-1234abcd.jsonl"),
          headerLine("backup") + "\n"
        )
        ext.write(path.join(sessions, "invalid.jsonl"), "{\"type\":\"message\"}\n")
        ext.write(path.join(sessions, "notes.txt"), "hello")
        const progress: Array<string> = []
        const list = yield* SessionCatalog.list(
          "/home/u/proj",
          undefined,
          (n, total) => progress.push(`${n}/${total}`),
          { agentDir: agent }
        )
        expect(list.map((s) => s.id)).toEqual([newer.getSessionId(), older.getSessionId()])
        expect(progress).toEqual(["1/3", "2/3", "3/3"])
        expect(list[1]).toMatchObject({
          path: older.getSessionFile(),
          cwd: "/home/u/proj",
          name: "Older",
          messageCount: 2,
          firstMessage: "first question",
          allMessagesText: "first question first answer"
        })
        expect(list[1]!.modified.getTime()).toBe(2_000)
        expect(list[0]!.messageCount).toBe(3)
        expect(list[0]!.created.toISOString()).toBe(newer.getHeader()!.timestamp)
        const other = yield* SessionCatalog.defaultSessionDir("/elsewhere", agent)
        const third = yield* SessionManager.create("/elsewhere", other, { eagerFlush: true })
        expect((yield* SessionCatalog.list("/elsewhere", other)).map((s) => s.firstMessage)).toEqual(["(no messages)"])
        const all = yield* SessionCatalog.listAll(undefined, { agentDir: agent })
        expect(all.map((s) => s.id).sort()).toEqual(
          [older.getSessionId(), newer.getSessionId(), third.getSessionId()].sort()
        )
        expect(yield* SessionCatalog.list("/nowhere", path.join(dir, "missing"))).toEqual([])
      }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
    })

    it.live("findMostRecent picks the newest valid file by mtime; continueRecent opens it or creates a session", () => {
      const { dir, ext, layer } = harness.make()
      const sessions = path.join(dir, "s")
      return Effect.gen(function*() {
        expect(Option.isNone(yield* SessionCatalog.findMostRecent(sessions))).toBe(true)
        const created = yield* SessionManager.continueRecent("/p", sessions, { eagerFlush: true })
        expect(created.getEntries()).toHaveLength(0)
        const a = yield* SessionManager.create("/p", sessions, { eagerFlush: true })
        yield* Effect.sleep("30 millis")
        const b = yield* SessionManager.create("/p", sessions, { eagerFlush: true })
        yield* b.appendMessage(user("latest"))
        yield* Effect.sleep("30 millis")
        ext.write(path.join(sessions, "zzz-invalid.jsonl"), "not json\n{\"type\":\"message\"}\n")
        expect(yield* SessionCatalog.findMostRecent(sessions)).toEqual(Option.some(b.getSessionFile()))
        const again = yield* SessionManager.continueRecent("/p", sessions)
        expect(again.getSessionId()).toBe(b.getSessionId())
        expect(again.getEntries()).toHaveLength(1)
        expect(a.getSessionId()).not.toBe(b.getSessionId())
      }).pipe(Effect.provide(layer as Layer.Layer<StoreServices>))
    })
  })
}
