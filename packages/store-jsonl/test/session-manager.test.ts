/**
 * The behavioural suite of SessionManager, written once as a function of a harness and run
 * against the Node layer (real temporary folders) and the memory layer.
 */
import * as IdSource from "@branchlog/session-store/IdSource"
import * as PrepareForRun from "@branchlog/session-store/PrepareForRun"
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { TranscriptObserver } from "@branchlog/session-store/TranscriptObserver"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, type Harness, harnesses, nodeHarness } from "../src/testing/Harness.js"
import { TranscriptFile } from "../src/TranscriptFile.js"
import { assistant, entryLine, headerLine, linesOf, rowsOf, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const suite = (harness: Harness) =>
  describe(`SessionManager (${harness.name})`, () => {
    const setup = () => {
      const env = harness.make()
      const text = (file: string) => env.ext.read(file)?.toString("utf8")
      const run = <A, E>(effect: Effect.Effect<A, E, StoreServices>) =>
        effect.pipe(Effect.provide(env.layer as Layer.Layer<StoreServices>))
      return { ...env, text, run }
    }

    it.live("writes nothing until the first assistant message, then header + entries in one write, then one line per append", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/work/project", dir)
        const file = sm.getSessionFile()!
        expect(path.dirname(file)).toBe(dir)
        expect(path.basename(file)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/)
        const u = yield* sm.appendMessage(user("hello"))
        expect(u).toMatch(/^[0-9a-f]{8}$/)
        expect(text(file)).toBeUndefined()
        expect(sm.pendingCount()).toBe(2)
        const a = yield* sm.appendMessage(assistant("hi"))
        const rows = rowsOf(text(file))
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
        expect(rows[1]).toMatchObject({ id: u, parentId: null })
        expect(rows[2]).toMatchObject({ id: a, parentId: u })
        yield* sm.appendThinkingLevelChange("high")
        expect(rowsOf(text(file))).toHaveLength(4)
        // byte-compatible with the references: header then entries, exactly JSON.stringify
        const lines = linesOf(text(file))
        expect(lines[0]).toBe(JSON.stringify(sm.getHeader()))
        expect(Object.keys(JSON.parse(lines[0]!))).toEqual(["type", "version", "id", "timestamp", "cwd"])
        expect(lines.slice(1)).toEqual(sm.getEntries().map((e) => JSON.stringify(e)))
        expect(Object.keys(JSON.parse(lines[3]!))).toEqual(["type", "id", "parentId", "timestamp", "thinkingLevel"])
        expect(text(file)!.endsWith("\n")).toBe(true)
      }))
    })

    it.live("public flush() and eagerFlush write before any assistant message, and never a second header", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        yield* sm.appendMessage(user("one"))
        yield* sm.flush()
        expect(rowsOf(text(sm.getSessionFile()!)).map((r) => r.type)).toEqual(["session", "message"])
        yield* sm.appendMessage(user("two"))
        yield* sm.appendMessage(assistant("reply"))
        expect(rowsOf(text(sm.getSessionFile()!)).filter((r) => r.type === "session")).toHaveLength(1)
        expect(rowsOf(text(sm.getSessionFile()!))).toHaveLength(4)

        const eager = yield* SessionManager.create("/p", dir, { eagerFlush: true })
        expect(rowsOf(text(eager.getSessionFile()!)).map((r) => r.type)).toEqual(["session"])
        yield* eager.appendMessage(user("now"))
        expect(rowsOf(text(eager.getSessionFile()!)).map((r) => r.type)).toEqual(["session", "message"])
      }))
    })

    it.live("reopening a header-only or assistant-less file and appending never writes the header twice", () => {
      const { dir, ext, text, run } = setup()
      const headerOnly = path.join(dir, "header-only.jsonl")
      const userOnly = path.join(dir, "user-only.jsonl")
      ext.write(headerOnly, headerLine("s-1") + "\n")
      ext.write(userOnly, headerLine("s-2") + "\n" + entryLine("aaaa0001", null, user("q")) + "\n")
      return run(Effect.gen(function*() {
        for (const file of [headerOnly, userOnly]) {
          const sm = yield* SessionManager.open(file)
          const before = linesOf(text(file)).length
          yield* sm.appendMessage(user("again"))
          expect(linesOf(text(file))).toHaveLength(before)
          yield* sm.appendMessage(assistant("answer"))
          const rows = rowsOf(text(file))
          expect(rows.filter((r) => r.type === "session")).toHaveLength(1)
          expect(rows).toHaveLength(before + 2)
          expect(rows[rows.length - 2]!.parentId).toBe(before === 1 ? null : "aaaa0001")
        }
      }))
    })

    it.live("branch() and resetLeaf() persist the leaf as a leaf-control row that survives reopen", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        const u1 = yield* sm.appendMessage(user("1"))
        const a1 = yield* sm.appendMessage(assistant("1"))
        yield* sm.appendMessage(user("2"))
        const a2 = yield* sm.appendMessage(assistant("2"))
        const file = sm.getSessionFile()!
        yield* sm.branch(a1)
        expect(sm.getLeafId()).toBe(a1)
        const control = rowsOf(text(file)).at(-1)!
        expect(control).toMatchObject({ type: "leaf", parentId: a2, targetId: a1 })
        expect(Object.keys(control)).toEqual(["type", "id", "parentId", "timestamp", "targetId"])
        for (const cache of [true, false]) {
          const again = yield* SessionManager.open(file, undefined, undefined, { cache })
          expect(again.getLeafId()).toBe(a1)
          expect(again.getEntries()).toHaveLength(4)
        }
        const fork = yield* sm.appendMessage(user("fork"))
        expect(sm.getEntry(fork)!.parentId).toBe(a1)
        yield* sm.resetLeaf()
        expect(sm.getLeafId()).toBeNull()
        expect((yield* SessionManager.open(file)).getLeafId()).toBeNull()
        const root = yield* sm.appendMessage(user("root"))
        expect(sm.getEntry(root)!.parentId).toBeNull()
        expect((yield* SessionManager.open(file)).getLeafId()).toBe(root)
        const unknown = yield* Effect.flip(sm.branch("nope0000"))
        expect(unknown._tag).toBe("EntryNotFoundError")
        expect(unknown.message).toContain("Entry nope0000 not found")
        expect(u1).not.toBe(a1)
      }))
    })

    it.live("in memory, branch() writes nothing and moves the leaf", () => {
      const { run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.inMemory("/p")
        const u = yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(assistant("1"))
        yield* sm.branch(u)
        expect(sm.getLeafId()).toBe(u)
        expect(sm.isPersisted()).toBe(false)
        expect(sm.getSessionFile()).toBeUndefined()
        expect(sm.getSessionDir()).toBe("")
        expect(sm.getEntries()).toHaveLength(2)
        expect(yield* sm.createBranchedSession(u)).toBeUndefined()
        expect(sm.getEntries()).toHaveLength(1)
      }))
    })

    it.live("branchWithSummary appends a branch_summary at the target (or a root with null) and the position survives reopen", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        const u1 = yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(assistant("1"))
        yield* sm.appendMessage(user("2"))
        const s = yield* sm.branchWithSummary(u1, "summary of the abandoned branch", { readFiles: ["a.ts"] }, true)
        const entry = sm.getEntry(s)!
        expect(entry).toMatchObject({
          type: "branch_summary",
          parentId: u1,
          fromId: u1,
          summary: "summary of the abandoned branch",
          fromHook: true
        })
        expect(sm.getLeafId()).toBe(s)
        const file = sm.getSessionFile()!
        const rows = rowsOf(text(file))
        expect(rows.at(-1)).toMatchObject({ type: "branch_summary", id: s })
        expect((yield* SessionManager.open(file)).getLeafId()).toBe(s)
        const r = yield* sm.branchWithSummary(null, "from root")
        expect(sm.getEntry(r)).toMatchObject({ parentId: null, fromId: "root" })
        expect(Object.keys(rowsOf(text(file)).at(-1)!)).toEqual([
          "type",
          "id",
          "parentId",
          "timestamp",
          "fromId",
          "summary"
        ])
        const context = sm.buildSessionContext()
        expect(context.messages.map((m) => m.role)).toEqual(["branchSummary"])
        expect((yield* Effect.flip(sm.branchWithSummary("missing0", "x")))._tag).toBe("EntryNotFoundError")
      }))
    })

    it.live("createBranchedSession copies the path without labels and re-creates the labels on it", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        const u1 = yield* sm.appendMessage(user("1"))
        const a1 = yield* sm.appendMessage(assistant("1"))
        yield* sm.appendLabelChange(u1, "start")
        const u2 = yield* sm.appendMessage(user("2"))
        const a2 = yield* sm.appendMessage(assistant("2"))
        yield* sm.branch(a1)
        const other = yield* sm.appendMessage(user("other branch"))
        yield* sm.appendLabelChange(other, "elsewhere")
        const oldFile = sm.getSessionFile()!
        const oldId = sm.getSessionId()
        const newFile = yield* sm.createBranchedSession(a2)
        expect(newFile).toBeDefined()
        expect(newFile).not.toBe(oldFile)
        expect(path.dirname(newFile!)).toBe(dir)
        expect(sm.getSessionId()).not.toBe(oldId)
        expect(sm.getHeader()!.parentSession).toBe(oldFile)
        const rows = rowsOf(text(newFile!))
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message", "message", "message", "label"])
        expect(rows.slice(1, 5).map((r) => r.id)).toEqual([u1, a1, u2, a2])
        expect(rows[3]!.parentId).toBe(a1)
        expect(rows[5]).toMatchObject({ targetId: u1, label: "start", parentId: a2 })
        expect(sm.getLabel(u1)).toBe("start")
        expect(sm.getLabel(other)).toBeUndefined()
        expect(sm.getLeafId()).toBe(rows[5]!.id)
        expect(rowsOf(text(oldFile)).length).toBeGreaterThan(6)
        expect((yield* Effect.flip(sm.createBranchedSession("zzzzzzzz")))._tag).toBe("EntryNotFoundError")
      }))
    })

    it.live("createBranchedSession without an assistant on the path defers the write", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        const u1 = yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(assistant("1"))
        const file = yield* sm.createBranchedSession(u1)
        expect(text(file!)).toBeUndefined()
        yield* sm.appendMessage(assistant("now"))
        expect(rowsOf(text(file!)).map((r) => r.type)).toEqual(["session", "message", "message"])
      }))
    })

    it.live("forkFrom writes a new file at once with a fresh header and every source row; the source is untouched", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const src = yield* SessionManager.create("/src", dir)
        const u = yield* src.appendMessage(user("1"))
        const a = yield* src.appendMessage(assistant("1"))
        yield* src.branch(u)
        const source = src.getSessionFile()!
        const before = text(source)
        const target = path.join(dir, "forks")
        const fork = yield* SessionManager.forkFrom(source, "/dst", target)
        const rows = rowsOf(text(fork.getSessionFile()!))
        expect(rows[0]).toMatchObject({ type: "session", version: 3, cwd: "/dst", parentSession: source })
        expect(rows[0]!.id).not.toBe(src.getSessionId())
        expect(rows.slice(1).map((r) => r.id)).toEqual(rowsOf(before).slice(1).map((r) => r.id))
        expect(fork.getCwd()).toBe("/dst")
        expect(fork.getLeafId()).toBe(u)
        expect(fork.getEntry(a)).toBeDefined()
        expect(text(source)).toBe(before)
        const same = yield* SessionManager.forkFrom(source, undefined, target)
        expect(same.getCwd()).toBe("/src")
        expect(rowsOf(text(same.getSessionFile()!))[0]).toMatchObject({ cwd: "/src", parentSession: source })
        const bad = yield* Effect.flip(SessionManager.forkFrom(path.join(dir, "missing.jsonl"), "/dst", target))
        expect(bad._tag).toBe("InvalidSessionFileError")
        expect(bad.message).toContain("Cannot fork: source session file is empty or invalid")
      }))
    })

    it.live("newSession starts a fresh file (id and parentSession honoured) and defers its write", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(assistant("1"))
        const first = sm.getSessionFile()!
        const file = yield* sm.newSession({ id: "my-session", parentSession: first })
        expect(file).toMatch(/_my-session\.jsonl$/)
        expect(sm.getSessionId()).toBe("my-session")
        expect(sm.getEntries()).toHaveLength(0)
        expect(sm.getLeafId()).toBeNull()
        expect(text(file!)).toBeUndefined()
        yield* sm.appendMessage(user("2"))
        yield* sm.appendMessage(assistant("2"))
        expect(rowsOf(text(file!))[0]).toMatchObject({ id: "my-session", parentSession: first })
        expect(rowsOf(text(first))).toHaveLength(3)
      }))
    })

    it.live("labels: set, overwrite, clear; unknown targets fail with EntryNotFoundError; session names are trimmed", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
        const u = yield* sm.appendMessage(user("1"))
        const l1 = yield* sm.appendLabelChange(u, "first")
        expect(sm.getLabel(u)).toBe("first")
        expect(sm.getLeafId()).toBe(l1)
        expect(sm.getEntry(l1)!.parentId).toBe(u)
        yield* sm.appendLabelChange(u, "second")
        expect(sm.getLabel(u)).toBe("second")
        yield* sm.appendLabelChange(u, undefined)
        expect(sm.getLabel(u)).toBeUndefined()
        expect(Object.keys(rowsOf(text(sm.getSessionFile()!)).at(-1)!)).toEqual([
          "type",
          "id",
          "parentId",
          "timestamp",
          "targetId"
        ])
        const error = yield* Effect.flip(sm.appendLabelChange("deadbeef", "x"))
        expect(error).toMatchObject({ _tag: "EntryNotFoundError", id: "deadbeef" })
        yield* sm.appendSessionInfo("  My session  ")
        expect(sm.getSessionName()).toBe("My session")
        expect(rowsOf(text(sm.getSessionFile()!)).at(-1)!.name).toBe("My session")
        yield* sm.appendSessionInfo("   ")
        expect(sm.getSessionName()).toBeUndefined()
        const reopened = yield* SessionManager.open(sm.getSessionFile()!)
        expect(reopened.getLabel(u)).toBeUndefined()
        expect(reopened.getSessionName()).toBeUndefined()
      }))
    })

    it.live("a legacy file is migrated on a writable open (backup first, atomic rewrite); read-only leaves it byte-identical", () => {
      const { dir, ext, run } = setup()
      const legacy = [
        JSON.stringify({ type: "session", id: "legacy-1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/old" }),
        JSON.stringify({
          type: "message",
          timestamp: "2025-01-01T00:00:01.000Z",
          message: { role: "user", content: "hi", timestamp: 1 }
        }),
        JSON.stringify({
          type: "message",
          timestamp: "2025-01-01T00:00:02.000Z",
          message: { role: "hookMessage", customType: "x", content: "h", display: true, timestamp: 2 }
        })
      ].join("\n") + "\n"
      const ro = path.join(dir, "ro.jsonl")
      const rw = path.join(dir, "rw.jsonl")
      ext.write(ro, legacy)
      ext.write(rw, legacy)
      return run(Effect.gen(function*() {
        const readOnly = yield* SessionManager.open(ro, undefined, undefined, { readOnly: true })
        expect(readOnly.getHeader()!.version).toBe(3)
        expect(readOnly.getEntries()).toHaveLength(2)
        expect(readOnly.loadReport()).toMatchObject({ migratedFrom: 1, rewritten: false, backups: [] })
        expect(ext.read(ro)!.toString()).toBe(legacy)
        expect(ext.list(dir).filter((n) => n.startsWith("ro.jsonl"))).toEqual(["ro.jsonl"])
        expect((yield* Effect.flip(readOnly.appendMessage(user("x"))))._tag).toBe("ReadOnlySessionError")

        const writable = yield* SessionManager.open(rw)
        const report = writable.loadReport()
        expect(report).toMatchObject({ migratedFrom: 1, rewritten: true })
        expect(report.backups).toHaveLength(1)
        expect(ext.read(report.backups[0]!)!.toString()).toBe(legacy)
        expect(path.basename(report.backups[0]!)).toMatch(/^rw\.jsonl\.backup-.+-[0-9a-f]{8}\.jsonl$/)
        const rows = rowsOf(ext.read(rw)!.toString())
        expect(rows[0]).toMatchObject({ type: "session", version: 3, id: "legacy-1" })
        expect(rows[1]!.id).toMatch(/^[0-9a-f]{8}$/)
        expect(rows[2]).toMatchObject({ parentId: rows[1]!.id, message: { role: "custom" } })
        expect(writable.getLeafId()).toBe(rows[2]!.id)
      }))
    })

    it.live("a corrupt header is recovered, every original byte kept in a .corrupt- backup; read-only never writes", () => {
      const { dir, ext, run } = setup()
      const noHeader = path.join(dir, "no-header.jsonl")
      const late = path.join(dir, "late-header.jsonl")
      const noHeaderBytes = "garbage {\n" + entryLine("aaaa0001", null, user("kept")) + "\n" +
        entryLine("aaaa0002", "aaaa0001", assistant("kept too")) + "\n"
      const lateBytes = entryLine("bbbb0001", null, user("before header")) + "\n" + headerLine("late-id", "/late") +
        "\n" + entryLine("bbbb0002", "bbbb0001", assistant("a")) + "\n"
      ext.write(noHeader, noHeaderBytes)
      ext.write(late, lateBytes)
      return run(Effect.gen(function*() {
        const ro = yield* SessionManager.open(noHeader, undefined, "/cwd", { readOnly: true })
        expect(ro.wasRecoveredFromCorruptHeader()).toBe(true)
        expect(ro.getEntries().map((e) => e.id)).toEqual(["aaaa0001", "aaaa0002"])
        expect(ext.read(noHeader)!.toString()).toBe(noHeaderBytes)

        const sm = yield* SessionManager.open(noHeader, undefined, "/cwd")
        expect(sm.wasRecoveredFromCorruptHeader()).toBe(true)
        const backup = sm.loadReport().backups[0]!
        expect(path.basename(backup)).toMatch(/^no-header\.jsonl\.corrupt-.+-[0-9a-f]{8}\.jsonl$/)
        expect(ext.read(backup)!.toString()).toBe(noHeaderBytes)
        const lines = linesOf(ext.read(noHeader)!.toString())
        expect(JSON.parse(lines[0]!)).toMatchObject({ type: "session", version: 3, cwd: "/cwd" })
        expect(lines.slice(1)).toEqual(linesOf(noHeaderBytes))
        expect(sm.getLeafId()).toBe("aaaa0002")

        const lateSm = yield* SessionManager.open(late)
        expect(lateSm.wasRecoveredFromCorruptHeader()).toBe(true)
        expect(lateSm.getSessionId()).toBe("late-id")
        expect(lateSm.getCwd()).toBe("/late")
        const lateLines = linesOf(ext.read(late)!.toString())
        expect(lateLines).toHaveLength(3)
        expect(JSON.parse(lateLines[0]!).id).toBe("late-id")
        expect(ext.read(lateSm.loadReport().backups[0]!)!.toString()).toBe(lateBytes)
        expect(lateSm.getEntries().map((e) => e.id)).toEqual(["bbbb0001", "bbbb0002"])
        // the recovered file is valid now: a second open does not recover again
        expect((yield* SessionManager.open(late)).wasRecoveredFromCorruptHeader()).toBe(false)
      }))
    })

    it.live("a torn last line is reported and kept; the next append starts on a new line", () => {
      const { dir, ext, text, run } = setup()
      const file = path.join(dir, "torn.jsonl")
      const head = headerLine("torn") + "\n" + entryLine("cccc0001", null, user("q")) + "\n" +
        entryLine("cccc0002", "cccc0001", assistant("a")) + "\n"
      const torn = "{\"type\":\"message\",\"id\":\"cccc0003\",\"parentId\":\"cccc0002\",\"timestamp\":\"2026"
      ext.write(file, head + torn)
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.open(file)
        const report = sm.loadReport()
        expect(report.tornTail).toEqual({
          line: 4,
          offset: Buffer.byteLength(head),
          reason: "no newline at end of file"
        })
        expect(report.corrupt).toHaveLength(1)
        expect(report.corrupt[0]).toMatchObject({ line: 4, offset: Buffer.byteLength(head) })
        expect(text(file)).toBe(head + torn)
        const id = yield* sm.appendMessage(user("after the crash"))
        expect(sm.getEntry(id)!.parentId).toBe("cccc0002")
        const lines = linesOf(text(file))
        expect(lines[3]).toBe(torn)
        expect(JSON.parse(lines[4]!).id).toBe(id)
        const again = yield* SessionManager.open(file, undefined, undefined, { cache: false })
        expect(again.loadReport().tornTail).toBeUndefined()
        expect(again.loadReport().corrupt).toHaveLength(1)
        expect(again.getLeafId()).toBe(id)
      }))
    })

    it.live("foreign appends are folded from the old end (tail only) and do not move this manager's leaf", () => {
      const { dir, ext, text, run } = setup()
      return run(Effect.gen(function*() {
        const files = yield* TranscriptFile
        const sm = yield* SessionManager.create("/p", dir)
        yield* sm.appendMessage(user("1"))
        const a1 = yield* sm.appendMessage(assistant("1"))
        const file = sm.getSessionFile()!
        const foreign = entryLine("f0000001", a1, user("from another writer")) + "\n" +
          entryLine("f0000002", "f0000001", assistant("other")) + "\n"
        ext.append(file, foreign)
        const before = yield* files.bytesRead
        const mine = yield* sm.appendMessage(user("mine"))
        const read = (yield* files.bytesRead) - before
        expect(read).toBe(Buffer.byteLength(foreign))
        expect(sm.getEntry(mine)!.parentId).toBe(a1)
        expect(sm.getEntry("f0000002")).toBeDefined()
        expect(sm.getChildren(a1).map((e) => e.id)).toEqual(["f0000001", mine])
        expect(sm.getLeafId()).toBe(mine)
        const rows = rowsOf(text(file))
        expect(rows.map((r) => r.id).slice(-3)).toEqual(["f0000001", "f0000002", mine])
        const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
        expect(reopened.getTree()).toHaveLength(1)
        expect(reopened.getEntries()).toHaveLength(5)
      }))
    })

    it.live("a foreign rewrite in place forces a full re-parse; a replace by rename (new inode) too", () => {
      const { dir, ext, text, run } = setup()
      return run(Effect.gen(function*() {
        const files = yield* TranscriptFile
        const sm = yield* SessionManager.create("/p", dir)
        const u1 = yield* sm.appendMessage(user("1"))
        const a1 = yield* sm.appendMessage(assistant("1"))
        const file = sm.getSessionFile()!
        // another process rewrites the file in place (same inode): a label row inserted in the middle
        const lines = linesOf(text(file))
        const inserted = JSON.stringify({
          type: "label",
          id: "eeee0001",
          parentId: u1,
          timestamp: "2026-05-01T10:00:00.000Z",
          targetId: u1,
          label: "x"
        })
        yield* Effect.sleep("20 millis")
        ext.write(file, [lines[0], lines[1], inserted, lines[2]].join("\n") + "\n")
        const before = yield* files.bytesRead
        const mine = yield* sm.appendMessage(user("2"))
        expect((yield* files.bytesRead) - before).toBeGreaterThan(Buffer.byteLength(inserted))
        expect(sm.getLabel(u1)).toBe("x")
        expect(sm.getEntry(mine)!.parentId).toBe(a1)
        // replaced by rename: a new inode with one more entry
        const current = text(file)!
        ext.replace(file, current + entryLine("eeee0002", mine, assistant("foreign")) + "\n")
        const next = yield* sm.appendMessage(user("3"))
        expect(sm.getEntry("eeee0002")).toBeDefined()
        expect(sm.getEntry(next)!.parentId).toBe(mine)
        const final = rowsOf(text(file))
        expect(final.map((r) => r.id)).toEqual([sm.getSessionId(), u1, "eeee0001", a1, mine, "eeee0002", next])
      }))
    })

    it.live("a file deleted under the manager is written back whole before the next append", () => {
      const { dir, ext, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir)
        yield* sm.appendMessage(user("1"))
        yield* sm.appendMessage(assistant("1"))
        const file = sm.getSessionFile()!
        ext.remove(file)
        const id = yield* sm.appendMessage(user("2"))
        expect(rowsOf(text(file)).map((r) => r.type)).toEqual(["session", "message", "message", "message"])
        expect(rowsOf(text(file)).at(-1)!.id).toBe(id)
      }))
    })

    it.live("reopen after appends by another writer parses only the new bytes (in-process cache)", () => {
      const { dir, ext, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
        for (let i = 0; i < 20; i++) yield* sm.appendMessage(user(`m${i}`))
        const file = sm.getSessionFile()!
        const first = yield* SessionManager.open(file)
        expect(first.loadReport().fromCache).toBe(false)
        const added = entryLine("abcd0001", first.getLeafId(), user("tail")) + "\n"
        ext.append(file, added)
        const second = yield* SessionManager.open(file)
        expect(second.loadReport()).toMatchObject({ fromCache: true, bytesRead: Buffer.byteLength(added) })
        expect(second.getLeafId()).toBe("abcd0001")
        expect(second.getEntries()).toHaveLength(21)
        // the clone handed out is private: appending to it does not touch the cached copy or `first`
        yield* second.appendMessage(assistant("x"))
        expect(first.getEntries()).toHaveLength(20)
        const third = yield* SessionManager.open(file)
        expect(third.getEntries()).toHaveLength(22)
      }))
    })

    it.live("a TranscriptObserver sees every verified append; none is needed", () => {
      const { dir, run } = setup()
      const seen: Array<string> = []
      const observer = Layer.succeed(TranscriptObserver, {
        onAppend: (event) =>
          Effect.sync(() => void seen.push(`${event.sessionId}:${event.entry.type}:${event.entry.id}`))
      })
      return run(
        Effect.gen(function*() {
          const sm = yield* SessionManager.create("/p", dir)
          const u = yield* sm.appendMessage(user("1"))
          expect(seen).toEqual([])
          const a = yield* sm.appendMessage(assistant("1"))
          expect(seen).toEqual([`${sm.getSessionId()}:message:${u}`, `${sm.getSessionId()}:message:${a}`])
        }).pipe(Effect.provide(observer))
      )
    })

    it.live("ids come from the injectable source, re-drawn on collision", () => {
      const { run } = setup()
      let n = 0
      const colliding = Layer.succeed(IdSource.IdSource, {
        uuid: () => (n++ < 3 ? "aaaaaaaa-0000-4000-8000-000000000000" : `bbbbbbb${n}-0000-4000-8000-000000000000`)
      })
      return run(
        Effect.gen(function*() {
          const sm = yield* SessionManager.inMemory("/p")
          expect(yield* sm.appendMessage(user("1"))).toBe("aaaaaaaa")
          expect(yield* sm.appendMessage(user("2"))).toBe("bbbbbbb4")
          const always = Layer.succeed(IdSource.IdSource, { uuid: () => "cccccccc-0000-4000-8000-000000000000" })
          const sm2 = yield* Effect.provide(SessionManager.inMemory("/p"), always)
          yield* sm2.appendMessage(user("1"))
          expect(yield* sm2.appendMessage(user("2"))).toBe("cccccccc-0000-4000-8000-000000000000")
        }).pipe(Effect.provide(colliding))
      )
    })

    it.live("prepareForRun: new file, assistant-less file reset with a backup, file with an assistant left alone when unchanged", () => {
      const { dir, ext, text, run } = setup()
      const noReply = path.join(dir, "no-reply.jsonl")
      const noReplyBytes = headerLine("old-id") + "\n" + entryLine("dddd0001", null, user("lost turn")) + "\n"
      ext.write(noReply, noReplyBytes)
      return run(Effect.gen(function*() {
        const fresh = yield* SessionManager.open(path.join(dir, "fresh.jsonl"))
        expect(
          yield* PrepareForRun.prepareForRun(fresh, {
            sessionFile: fresh.getSessionFile()!,
            hadSessionFile: false,
            sessionId: "run-1",
            cwd: "/run"
          })
        ).toBe("identity")
        expect(fresh.getSessionId()).toBe("run-1")
        expect(fresh.getCwd()).toBe("/run")
        expect(text(fresh.getSessionFile()!)).toBeUndefined()

        const sm = yield* SessionManager.open(noReply)
        expect(
          yield* PrepareForRun.prepareForRun(sm, {
            sessionFile: noReply,
            hadSessionFile: true,
            sessionId: "run-2",
            cwd: "/run"
          })
        ).toBe("reset")
        expect(text(noReply)).toBe("")
        expect(
          ext.list(dir).some((n) =>
            n.startsWith("no-reply.jsonl.reset-") && ext.read(path.join(dir, n))!.toString() === noReplyBytes
          )
        ).toBe(true)
        expect(sm.getEntries()).toHaveLength(0)
        yield* sm.appendMessage(user("q"))
        yield* sm.appendMessage(assistant("a"))
        const rows = rowsOf(text(noReply))
        expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
        expect(rows[0]).toMatchObject({ id: "run-2", cwd: "/run" })

        const again = yield* SessionManager.open(noReply)
        const bytes = text(noReply)
        expect(
          yield* PrepareForRun.prepareForRun(again, {
            sessionFile: noReply,
            hadSessionFile: true,
            sessionId: "run-2",
            cwd: "/run"
          })
        ).toBe("unchanged")
        expect(text(noReply)).toBe(bytes)
        expect(
          yield* PrepareForRun.prepareForRun(again, {
            sessionFile: noReply,
            hadSessionFile: true,
            sessionId: "run-3",
            cwd: "/run"
          })
        ).toBe("rewritten")
        expect(rowsOf(text(noReply))[0]!.id).toBe("run-3")
        expect(rowsOf(text(noReply))).toHaveLength(3)
      }))
    })

    it.live("withWriteLock holds the lock across several appends and leaves a correct snapshot behind", () => {
      const { dir, ext, text, run } = setup()
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
        const ids = yield* sm.withWriteLock(Effect.forEach([1, 2, 3], (i) => sm.appendMessage(user(`${i}`))))
        const file = sm.getSessionFile()!
        expect(rowsOf(text(file)).slice(1).map((r) => r.id)).toEqual(ids)
        ext.append(file, entryLine("ffff0001", ids[2]!, user("foreign")) + "\n")
        const next = yield* sm.appendMessage(user("4"))
        expect(sm.getEntry("ffff0001")).toBeDefined()
        expect(sm.getEntry(next)!.parentId).toBe(ids[2])
      }))
    })

    it.live("withWriteLock: held appends interleaved with another manager, a reset and an observer stay exact", () => {
      const { dir, ext, text, run } = setup()
      const seen: Array<string> = []
      const observer = Layer.succeed(TranscriptObserver, {
        onAppend: (event) => Effect.sync(() => void seen.push(event.entry.id))
      })
      return run(
        Effect.gen(function*() {
          const files = yield* TranscriptFile
          const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
          const file = sm.getSessionFile()!
          const mine: Array<string> = []
          const foreign = yield* sm.withWriteLock(Effect.gen(function*() {
            for (let i = 0; i < 4; i++) mine.push(yield* sm.appendMessage(user(`a${i} é ✓ 😀`)))
            // another manager of this process writes under the same (re-entrant) lock
            const other = yield* SessionManager.open(file, undefined, undefined, { cache: false, eagerFlush: true })
            const id = yield* other.appendMessage(user("other"))
            for (let i = 4; i < 7; i++) mine.push(yield* sm.appendMessage(user(`a${i}`)))
            return id
          }))
          expect(rowsOf(text(file)).slice(1).map((r) => r.id)).toEqual([...mine.slice(0, 4), foreign, ...mine.slice(4)])
          expect(text(file)!.endsWith("\n")).toBe(true)
          // the foreign entry was folded, and did not move this manager's leaf
          expect(sm.getEntry(foreign)!.parentId).toBe(mine[3])
          expect(sm.getEntry(mine[4]!)!.parentId).toBe(mine[3])
          expect(seen).toEqual([...mine.slice(0, 4), foreign, ...mine.slice(4)])
          const fresh = yield* SessionManager.open(file, undefined, undefined, { cache: false, readOnly: true })
          expect(fresh.getEntries().map((e) => JSON.stringify(e))).toEqual(
            sm.getEntries().map((e) => JSON.stringify(e))
          )
          // offsets and snapshot are exact: a later foreign append is read tail-only
          const added = entryLine("ffff0001", mine[6]!, user("foreign")) + "\n"
          ext.append(file, added)
          const before = yield* files.bytesRead
          const next = yield* sm.appendMessage(user("after"))
          expect((yield* files.bytesRead) - before).toBe(Buffer.byteLength(added))
          expect(sm.getEntry(next)!.parentId).toBe(mine[6])
          // a reset inside the held scope: later appends go to the new file, after the header
          const afterReset = yield* sm.withWriteLock(Effect.gen(function*() {
            yield* sm.appendMessage(user("before reset"))
            yield* sm.resetTranscript()
            const a = yield* sm.appendMessage(user("x"))
            const b = yield* sm.appendMessage(user("y"))
            return [a, b]
          }))
          const rows = rowsOf(text(file))
          expect(rows.map((r) => r.type)).toEqual(["session", "message", "message"])
          expect(rows.slice(1).map((r) => r.id)).toEqual(afterReset)
        }).pipe(Effect.provide(observer))
      )
    })

    it.live("withWriteLock: the held file is closed and the lock let go on failure and on interruption", () => {
      const { dir, ext, text, run } = setup()
      const fds =
        () => (harness === nodeHarness && fs.existsSync("/proc/self/fd") ? fs.readdirSync("/proc/self/fd").length : 0)
      return run(Effect.gen(function*() {
        const sm = yield* SessionManager.create("/p", dir, { eagerFlush: true })
        const file = sm.getSessionFile()!
        const open = fds()
        const failed = yield* Effect.flip(sm.withWriteLock(Effect.gen(function*() {
          yield* sm.appendMessage(user("1"))
          yield* sm.appendMessage(user("2"))
          return yield* Effect.fail("boom" as const)
        })))
        expect(failed).toBe("boom")
        expect(fds()).toBe(open)
        expect(ext.read(`${file}.lock`)).toBeUndefined()
        const fiber = yield* Effect.fork(sm.withWriteLock(Effect.gen(function*() {
          yield* sm.appendMessage(user("3"))
          yield* sm.appendMessage(user("4"))
          return yield* Effect.never
        })))
        while (rowsOf(text(file)).length < 5) yield* Effect.sleep("5 millis")
        yield* Fiber.interrupt(fiber)
        expect(fds()).toBe(open)
        expect(ext.read(`${file}.lock`)).toBeUndefined()
        yield* sm.appendMessage(user("5"))
        expect(rowsOf(text(file)).slice(1).map((r) => (r.message as { content: string }).content)).toEqual(
          ["1", "2", "3", "4", "5"]
        )
      }))
    })
  })

for (const harness of harnesses) suite(harness)

describe("SessionManager (clock)", () => {
  it.effect("timestamps and session ids come from the Effect Clock (TestClock)", () =>
    Effect.gen(function*() {
      const { TestClock } = yield* Effect.promise(() => import("effect"))
      yield* TestClock.setTime(Date.parse("2030-01-02T03:04:05.678Z"))
      const sm = yield* SessionManager.inMemory("/p")
      const id = yield* sm.appendMessage(user("1"))
      expect(sm.getEntry(id)!.timestamp).toBe("2030-01-02T03:04:05.678Z")
      expect(sm.getHeader()!.timestamp).toBe("2030-01-02T03:04:05.678Z")
      expect(sm.getSessionId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(sm.getSessionId().replace(/-/g, "").slice(0, 12)).toBe(
        Date.parse("2030-01-02T03:04:05.678Z").toString(16).padStart(12, "0")
      )
    }).pipe(Effect.provide(harnesses[1]!.make().layer)))
})
