/**
 * pi 1.6's appends: `appendUsage`, `appendContextEdit` (and its refusals), `appendCompaction`
 * with `firstKeptEntryId: null` and `usage`; run against the Node layer (real temporary folders)
 * and the memory layer.
 */
import * as SessionManager from "@branchlog/session-store/SessionManager"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import { afterAll } from "vitest"
import type { Services as StoreServices } from "../src/SessionStore.js"
import { cleanupTempRoots, type Harness, harnesses } from "../src/testing/Harness.js"
import { assistant, linesOf, rowsOf, user } from "./support/messages.js"

afterAll(cleanupTempRoots)

const usage = {
  input: 100,
  output: 0,
  cacheRead: 0,
  cacheWrite: 90,
  totalTokens: 190,
  cost: { input: 0.1, output: 0, cacheRead: 0, cacheWrite: 0.2, total: 0.3 }
}

const suite = (harness: Harness) =>
  describe(`pi 1.6 appends (${harness.name})`, () => {
    const setup = () => {
      const env = harness.make()
      const text = (file: string) => env.ext.read(file)?.toString("utf8")
      const run = <A, E>(effect: Effect.Effect<A, E, StoreServices>) =>
        effect.pipe(Effect.provide(env.layer as Layer.Layer<StoreServices>))
      return { ...env, text, run }
    }
    /** A written session: user, assistant. */
    const started = (dir: string) =>
      Effect.gen(function*() {
        const sm = yield* SessionManager.create("/work/project", dir)
        const u = yield* sm.appendMessage(user("hello"))
        const a = yield* sm.appendMessage(assistant("hi"))
        return { sm, u, a, file: sm.getSessionFile()! }
      })

    it.live("appendUsage writes pi 1.6's row, returns the entry, and changes neither the context nor the model", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { file, sm } = yield* started(dir)
        const before = sm.buildSessionContext()
        const entry = yield* sm.appendUsage("cache_warm", "openai", "gpt-x", usage)
        expect(entry).toMatchObject({ type: "usage", kind: "cache_warm", provider: "openai", model: "gpt-x", usage })
        expect(sm.getLeafId()).toBe(entry.id)
        expect(sm.getEntry(entry.id)).toBe(entry)
        const line = linesOf(text(file)).at(-1)!
        expect(line).toBe(JSON.stringify(entry))
        expect(Object.keys(JSON.parse(line))).toEqual([
          "type",
          "id",
          "parentId",
          "timestamp",
          "kind",
          "provider",
          "model",
          "usage"
        ])
        const noted = yield* sm.appendUsage("title", "google", "g", usage, "a qualifier")
        expect(Object.keys(noted).at(-1)).toBe("note")
        expect(sm.buildSessionContext()).toEqual(before)

        const reopened = yield* SessionManager.open(file)
        expect(reopened.getEntries().map((e) => e.type)).toEqual(["message", "message", "usage", "usage"])
        expect(reopened.getLeafId()).toBe(noted.id)
        expect(reopened.buildSessionContext()).toEqual(before)
      }))
    })

    it.live("appendContextEdit swaps or removes a target's contribution, stored as pi 1.6 stores it", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { a, file, sm, u } = yield* started(dir)
        const e1 = yield* sm.appendContextEdit(u, { content: "hello, edited" })
        const e2 = yield* sm.appendContextEdit(a, { content: "hi, edited" })
        const rows = rowsOf(text(file))
        expect(Object.keys(rows.at(-2)!)).toEqual(["type", "id", "parentId", "timestamp", "targetId", "replacement"])
        expect(rows.at(-2)).toMatchObject({ id: e1, targetId: u, replacement: { content: "hello, edited" } })
        // a string for an assistant is stored as one text block
        expect(rows.at(-1)).toMatchObject({
          id: e2,
          targetId: a,
          replacement: { content: [{ type: "text", text: "hi, edited" }] }
        })
        expect(sm.getLeafId()).toBe(e2)
        const contents = () => sm.buildSessionContext().messages.map((m) => (m as { content: unknown }).content)
        expect(contents()).toEqual(["hello, edited", [{ type: "text", text: "hi, edited" }]])
        yield* sm.appendContextEdit(u, null)
        expect(contents()).toEqual([[{ type: "text", text: "hi, edited" }]])
        expect(rowsOf(text(file)).at(-1)).toMatchObject({ type: "context_edit", targetId: u, replacement: null })

        const reopened = yield* SessionManager.open(file)
        expect(reopened.buildSessionContext()).toEqual(sm.buildSessionContext())
      }))
    })

    it.live("appendContextEdit refuses, with typed errors and without writing, what pi 1.6 refuses", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { a, file, sm, u } = yield* started(dir)
        const custom = yield* sm.appendCustomMessageEntry("ext", "from an extension", true)
        yield* sm.branch(a)
        yield* sm.appendMessage(user("another branch"))
        const model = yield* sm.appendModelChange("p", "m")
        const plain = yield* sm.appendCustomEntry("ext", { state: 1 })
        const system = yield* sm.appendMessage({ role: "system", content: "a system message", timestamp: 1 })
        const bytes = text(file)
        const leaf = sm.getLeafId()
        const refusal = (targetId: string, replacement: unknown) =>
          sm.appendContextEdit(targetId, replacement as { content: string }).pipe(Effect.either)

        const unknown = yield* refusal("ffffffff", null)
        expect(Either.isLeft(unknown) && unknown.left._tag).toBe("EntryNotFoundError")
        const offBranch = yield* refusal(custom, null) // on the first branch, not the active one
        expect(Either.isLeft(offBranch) && offBranch.left).toMatchObject({
          _tag: "ContextEditRefusedError",
          targetId: custom,
          reason: "not on the active branch",
          path: file
        })
        expect(Either.isLeft(offBranch) && offBranch.left.message).toContain(
          `Entry ${custom} is not on the active branch`
        )
        for (const target of [model, plain, system]) {
          const notEditable = yield* refusal(target, { content: "x" })
          expect(Either.isLeft(notEditable) && notEditable.left).toMatchObject({ reason: "not editable" })
        }
        for (const replacement of [undefined, "text", { content: 5 }, { other: "x" }, []]) {
          const invalid = yield* refusal(u, replacement)
          expect(Either.isLeft(invalid) && invalid.left).toMatchObject({ reason: "invalid replacement" })
        }
        expect(text(file)).toBe(bytes)
        expect(sm.getLeafId()).toBe(leaf)
        expect(sm.getEntries()).toHaveLength(7)
        // the custom message is editable once it is on the active branch
        yield* sm.branch(custom)
        const edit = yield* sm.appendContextEdit(custom, { content: "custom, edited" })
        expect(sm.getLeafId()).toBe(edit)
        expect(sm.buildSessionContext().messages.at(-1)).toMatchObject({ role: "custom", content: "custom, edited" })
      }))
    })

    it.live("a file with a byte-order mark and CRLF line ends opens whole, and appends and rewrites keep its bytes", () => {
      const { dir, ext, run } = setup()
      return run(Effect.gen(function*() {
        const plain = [
          JSON.stringify({ type: "session", version: 3, id: "bom", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/p" }),
          JSON.stringify({
            type: "message",
            id: "a0000001",
            parentId: null,
            timestamp: "2026-05-01T09:00:01.000Z",
            message: user("hello")
          }),
          JSON.stringify({
            type: "message",
            id: "a0000002",
            parentId: "a0000001",
            timestamp: "2026-05-01T09:00:02.000Z",
            message: assistant("hi")
          })
        ]
        const original = "\uFEFF" + plain.join("\r\n") + "\r\n"
        const file = `${dir}/bom.jsonl`
        ext.write(file, original)
        const bytes = () => ext.read(file)!.toString("utf8")
        const sm = yield* SessionManager.open(file)
        expect(sm.getHeader()).toMatchObject({ id: "bom" })
        expect(sm.getEntries()).toHaveLength(2)
        expect(sm.wasRecoveredFromCorruptHeader()).toBe(false)
        expect(sm.loadReport().corrupt).toEqual([])
        yield* sm.appendMessage(user("more"))
        expect(bytes().startsWith(original)).toBe(true)
        yield* sm.rewrite("test")
        expect(bytes().startsWith(original)).toBe(true) // every line as it was, BOM and CR included
        const reopened = yield* SessionManager.open(file, undefined, undefined, { cache: false })
        expect(reopened.getEntries()).toHaveLength(3)
        // a fork copies every entry's line as it is, CR included, under its own new header
        const fork = yield* SessionManager.forkFrom(file, "/elsewhere", dir)
        const forked = ext.read(fork.getSessionFile()!)!.toString("utf8").split("\n")
        expect(forked.slice(1, 3)).toEqual(plain.slice(1).map((line) => line + "\r"))
        expect(fork.getEntries()).toHaveLength(3)
      }))
    })

    it.live("appendCompaction stores a null firstKeptEntryId as its own id, and pi 1.6's usage in its place", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { file, sm } = yield* started(dir)
        const id = yield* sm.appendCompaction("summary", null, 1234, { readFiles: [] }, undefined, usage)
        const row = rowsOf(text(file)).at(-1)!
        expect(row).toMatchObject({ type: "compaction", id, firstKeptEntryId: id, usage })
        expect(Object.keys(row)).toEqual([
          "type",
          "id",
          "parentId",
          "timestamp",
          "summary",
          "firstKeptEntryId",
          "tokensBefore",
          "details",
          "usage"
        ])
        expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["compactionSummary"])
      }))
    })

    it.live("branchWithSummary stores pi 1.6's usage before fromHook, and nothing when there is none", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { file, sm, u } = yield* started(dir)
        const id = yield* sm.branchWithSummary(u, "went back", { n: 1 }, true, usage)
        const row = rowsOf(text(file)).at(-1)!
        expect(row).toMatchObject({ type: "branch_summary", id, parentId: u, summary: "went back", usage })
        expect(Object.keys(row).slice(-4)).toEqual(["summary", "details", "usage", "fromHook"])
        const plain = yield* sm.branchWithSummary(u, "again")
        expect(rowsOf(text(file)).at(-1)).toMatchObject({ id: plain })
        expect(rowsOf(text(file)).at(-1)!.usage).toBeUndefined()
      }))
    })

    it.live("appendCompaction stores the context's system messages replayed into its systemMessage, emitted before the summary", () => {
      const { dir, text, run } = setup()
      return run(Effect.gen(function*() {
        const { file, sm } = yield* started(dir)
        const system = (content: string, extra: object, timestamp: number) =>
          ({ role: "system", content, ...extra, timestamp }) as unknown as Parameters<typeof sm.appendMessage>[0]
        yield* sm.appendMessage(system("be brief", { sections: { tone: "dry" }, toolsAdded: [{ name: "read" }] }, 10))
        yield* sm.appendMessage(user("and?"))
        yield* sm.appendMessage(
          system("use tools", { toolsAdded: [{ name: "bash" }], toolsRemoved: [{ name: "read" }] }, 20)
        )
        const id = yield* sm.appendCompaction("summary", null, 99)
        const row = rowsOf(text(file)).at(-1)!
        expect(row.id).toBe(id)
        expect(row.systemMessage).toEqual({
          role: "system",
          content: "be brief\n\nuse tools",
          sections: { tone: "dry" },
          toolsAdded: [{ name: "bash" }],
          timestamp: Date.parse(row.timestamp)
        })
        expect(Object.keys(row).at(-1)).toBe("systemMessage")
        expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["system", "compactionSummary"])
        // none without a system message on the path
        const plain = yield* started(dir)
        yield* plain.sm.appendCompaction("summary", null, 1)
        expect(rowsOf(text(plain.file)).at(-1)!.systemMessage).toBeUndefined()
      }))
    })
  })

for (const harness of harnesses) suite(harness)
