/**
 * AgentSession beyond the loop: compaction (on demand and automatic), tree navigation, fork,
 * and a second process appending to the same session while the model streams.
 */
import type { Entry } from "@branchlog/session-core"
import { LlmMessages, SessionContext } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { bundledChild } from "@branchlog/tooling/children"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type * as ScriptedModel from "../src/ScriptedModel.js"
import { cleanup, rowsOf, scripted, storeLayer, tempDir } from "./support/env.js"

afterAll(cleanup)

const here = path.dirname(fileURLToPath(import.meta.url))
const long = (label: string) => `${label} ${"lorem ipsum dolor sit amet ".repeat(8)}`

const messagesOf = (entries: ReadonlyArray<Entry.Entry>) =>
  entries.map(SessionContext.messageOf).filter((m) => m !== undefined)

describe("AgentSession compaction", () => {
  it.live("compact(): the rebuilt context starts with the summary and keeps exactly the entries from firstKeptEntryId", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const script: ScriptedModel.Script = (_request, turn) =>
        turn === 0
          ? {
            toolCalls: [{ name: "read", arguments: { path: "a.txt" } }, {
              name: "edit",
              arguments: { path: "b.txt", oldText: "beta", newText: "BETA" }
            }]
          }
          : { text: long(`reply ${turn}`) }
      const { events, files, session } = yield* scripted(sm, {
        script,
        compaction: { enabled: true, thresholdRatio: 0.99, keepRecentTokens: 120 }
      })
      for (const p of ["first", "second", "third", "fourth"]) yield* session.prompt(long(p))
      expect(files.get("b.txt")).toBe("BETA\n")
      expect(events.some((e) => e._tag === "Compacted")).toBe(false)

      const result = yield* session.compact()
      const kept = sm.getEntry(result.firstKeptEntryId)!
      expect(kept.type === "message" && kept.message.role).toBe("user")
      expect(result.summary).toMatch(/^Summary \(compaction\): first lorem/)
      expect(result.details).toEqual({ readFiles: ["a.txt"], modifiedFiles: ["b.txt"] })
      const leaf = sm.getLeafEntry()!
      expect(leaf).toMatchObject({
        type: "compaction",
        id: result.entryId,
        firstKeptEntryId: result.firstKeptEntryId,
        tokensBefore: result.tokensBefore
      })

      const branch = sm.getBranch()
      const from = branch.findIndex((e) => e.id === result.firstKeptEntryId)
      const context = sm.buildSessionContext().messages
      expect(context[0]).toMatchObject({
        role: "compactionSummary",
        summary: result.summary,
        tokensBefore: result.tokensBefore
      })
      expect(context.slice(1)).toEqual(messagesOf(branch.slice(from, branch.length - 1)))
      const llm = session.messages()
      expect(llm[0]!.role).toBe("user")
      expect((llm[0]!.content as any)[0].text).toBe(
        LlmMessages.COMPACTION_SUMMARY_PREFIX + result.summary + LlmMessages.COMPACTION_SUMMARY_SUFFIX
      )

      // A later compaction builds on the previous summary and its file details.
      for (const p of ["fifth", "sixth"]) yield* session.prompt(long(p))
      const second = yield* session.compact()
      expect(second.details.readFiles).toEqual(["a.txt"])
      expect(second.firstKeptEntryId).not.toBe(result.firstKeptEntryId)
      expect(sm.buildSessionContext().messages[0]).toMatchObject({ role: "compactionSummary", summary: second.summary })

      // Nothing left to compact.
      const none = yield* Effect.flip(session.compact())
      expect(none._tag).toBe("CompactionError")
    }).pipe(Effect.provide(storeLayer)))

  it.live("compacts automatically when the context passes the threshold of the model's window", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const { events, session } = yield* scripted(sm, {
        current: { provider: "scripted", modelId: "tiny" },
        compaction: { enabled: true, thresholdRatio: 0.8, keepRecentTokens: 100 }
      })
      yield* session.prompt(long("one"))
      expect(events.some((e) => e._tag === "Compacted")).toBe(false)
      yield* session.prompt(long("two"))
      yield* session.prompt(long("three"))
      const compacted = events.filter((e) => e._tag === "Compacted")
      expect(compacted.length).toBeGreaterThanOrEqual(1)
      expect(sm.getEntries().filter((e) => e.type === "compaction")).toHaveLength(compacted.length)
      expect(sm.buildSessionContext().messages[0]!.role).toBe("compactionSummary")
    }).pipe(Effect.provide(storeLayer)))
})

describe("AgentSession navigation", () => {
  it.live("navigateTree: a user target moves the leaf to its parent and returns its text; summaries attach at the new leaf", () =>
    Effect.gen(function*() {
      const sm = yield* SessionManager.inMemory("/work/project")
      const { session } = yield* scripted(sm)
      const first = yield* session.prompt("first")
      const second = yield* session.prompt("second")
      const [u2, a2] = second.entryIds
      const nav = yield* session.navigateTree(u2!)
      expect(nav).toEqual({ leafId: first.entryIds[1], editorText: "second" })
      expect(sm.getLeafId()).toBe(first.entryIds[1])
      const alt = yield* session.prompt("alternative")
      expect(sm.getEntry(alt.entryIds[0]!)!.parentId).toBe(first.entryIds[1])

      const back = yield* session.navigateTree(a2!, { summarize: true, label: "came back" })
      expect(back.leafId).toBe(a2)
      const summary = sm.getEntry(back.summaryEntryId!)!
      expect(summary).toMatchObject({ type: "branch_summary", parentId: a2, fromId: a2 })
      expect((summary as any).summary).toBe("Summary (branchSummary): alternative")
      expect(sm.getLabel(back.summaryEntryId!)).toBe("came back")
      const roles = sm.buildSessionContext().messages.map((m) => m.role)
      expect(roles).toEqual(["user", "assistant", "user", "assistant", "branchSummary"])

      const plain = yield* session.navigateTree(first.entryIds[1]!, { label: "start" })
      expect(plain).toEqual({ leafId: first.entryIds[1] })
      expect(sm.getLabel(first.entryIds[1]!)).toBe("start")
      expect((yield* Effect.flip(session.navigateTree("deadbeef")))._tag).toBe("NavigationError")
    }).pipe(Effect.provide(storeLayer)))

  it.live("fork(user message) starts a new session file with the path to its parent", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const sm = yield* SessionManager.create("/work/project", dir)
      const { session } = yield* scripted(sm)
      const first = yield* session.prompt("first")
      const second = yield* session.prompt("second")
      const oldFile = sm.getSessionFile()!
      const notUser = yield* Effect.flip(session.fork(second.entryIds[1]!))
      expect(notUser._tag).toBe("NavigationError")
      const forked = yield* session.fork(second.entryIds[0]!)
      expect(forked.editorText).toBe("second")
      expect(forked.sessionFile).not.toBe(oldFile)
      expect(sm.getSessionFile()).toBe(forked.sessionFile)
      expect(sm.getHeader()!.parentSession).toBe(oldFile)
      expect(sm.getBranch().map((e) => e.id)).toEqual([sm.getBranch()[0]!.id, ...first.entryIds])
      const next = yield* session.prompt("branched")
      expect(next.stopReason).toBe("stop")
      expect(rowsOf(forked.sessionFile!).filter((r) => r.type === "message")).toHaveLength(4)
    }).pipe(Effect.provide(storeLayer)))
})

describe("AgentSession with a second writer", () => {
  const runChild = (file: string, text: string) =>
    Effect.async<string>((resume) => {
      execFile(
        process.execPath,
        [bundledChild(path.join(here, "support/child.ts")), file, text],
        { cwd: path.join(here, ".."), timeout: 180_000 },
        (error, stdout, stderr) =>
          resume(error ? Effect.die(new Error(`child failed: ${stderr}`)) : Effect.succeed(stdout.trim()))
      )
    })

  it.live(
    "survives another process appending to the same session while the model streams",
    () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const sm = yield* SessionManager.create("/work/project", dir)
        let childId = ""
        const file = () => sm.getSessionFile()!
        const { session } = yield* scripted(sm, {
          script: [
            { text: "Ready." },
            {
              text: "Streaming while someone else writes.",
              pause: Effect.map(Effect.suspend(() => runChild(file(), "written by the child")), (id) =>
                void (childId = id))
            },
            { text: "Still fine." }
          ]
        })
        yield* session.prompt("one")
        const two = yield* session.prompt("two")
        expect(childId).toMatch(/^[0-9a-f]{8}$/)
        const [u2, a2] = two.entryIds
        const rows = rowsOf(file())
        const child = rows.find((r) =>
          r.id === childId
        )!
        expect(child).toMatchObject({
          type: "custom_message",
          customType: "note",
          content: "written by the child",
          parentId: u2
        })
        const mine = rows.find((r) => r.id === a2)!
        expect(mine.parentId).toBe(u2)
        expect(rows.indexOf(child)).toBeLessThan(rows.indexOf(mine))
        // Our leaf stays on our reply; the foreign entry is known but not on our path.
        expect(sm.getLeafId()).toBe(a2)
        expect(sm.getEntry(childId)).toBeDefined()
        const three = yield* session.prompt("three")
        expect(sm.getEntry(three.entryIds[0]!)!.parentId).toBe(a2)
        const reread = yield* SessionManager.open(file(), undefined, undefined, { cache: false })
        expect(reread.loadReport()).toMatchObject({ corrupt: [], tornTail: undefined, recoveredCorruptHeader: false })
        expect(reread.getEntries()).toHaveLength(sm.getEntries().length)
        expect(rowsOf(file()).every((r) => typeof r.type === "string")).toBe(true)
      }).pipe(Effect.provide(storeLayer)),
    { timeout: 180_000 }
  )
})
