import type { AgentMessage } from "@branchlog/session-core"
import { Diagnostics } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as Importer from "../src/Importer.js"
import * as OpenClawDatabase from "../src/OpenClawDatabase.js"
import { samples, textOf, toolIds } from "./support/samples.js"

const temp = mkdtempSync(join(tmpdir(), "branchlog-importers-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let n = 0
const fresh = () => join(temp, `case-${++n}`)

const run = <A, E>(effect: Effect.Effect<A, E, Importer.Requirements>) =>
  Effect.runPromise(Effect.provide(effect, SessionStore.layerNode))
const importInto = (src: string, out: string, format: Importer.Options["format"] = "auto") =>
  run(Importer.importSource(src, { out, format }))
const open = (file: string) => run(SessionManager.open(file, undefined, undefined, { readOnly: true, cache: false }))

/** Every file under `dir` with the sha256 of its bytes. */
const tree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue
    const path = join(e.parentPath, e.name)
    out[path] = createHash("sha256").update(readFileSync(path)).digest("hex")
  }
  return out
}

/** A copy of a sample (with its subagents folder) in a folder of its own. */
const copyOf = (sample: string) => {
  const dir = fresh()
  cpSync(dirname(sample), dir, { recursive: true })
  return join(dir, basename(sample))
}

/** The source's first prompt and last assistant text, read straight from its lines. */
const sourceEnds = (path: string) => {
  const records = readFileSync(path, "utf8").split("\n").flatMap((l) => {
    try {
      return [JSON.parse(l)]
    } catch {
      return []
    }
  })
  const texts = (content: unknown): string =>
    typeof content === "string"
      ? content
      : Array.isArray(content)
      ? content.map((b) => (b?.type === "text" || b?.type === "input_text" || b?.type === "output_text" ? b.text : ""))
        .join("")
      : ""
  if (path.includes("rollout-")) {
    const prompts = records.filter((r) => r.type === "event_msg" && r.payload?.type === "user_message").map((r) =>
      r.payload.message
    )
    const legacyPrompts = records.filter((r) => r.type === "message" && r.role === "user").map((r) => texts(r.content))
      .filter((t) => !t.startsWith("<environment_context>"))
    const answers = records.map((r) => r.payload ?? r).filter((p) => p.type === "message" && p.role === "assistant")
      .map((p) => texts(p.content))
    return { first: prompts[0] ?? legacyPrompts[0], last: answers.at(-1) }
  }
  const main = records.filter((r) => r.isSidechain !== true || records.every((x) => x.isSidechain === true))
  const prompts = main.filter((r) => r.type === "user" && r.isMeta !== true && r.isCompactSummary !== true).map((r) =>
    texts(r.message?.content)
  ).filter((t) => t.length > 0)
  const answers = main.filter((r) => r.type === "assistant").map((r) => texts(r.message?.content)).filter((t) =>
    t.length > 0
  )
  return { first: prompts[0], last: answers.at(-1) }
}

const jsonlSamples = [samples.claudeV1, samples.claudeV2, samples.codex, samples.codexLegacy]

describe("importing each sample into a folder", () => {
  for (const sample of jsonlSamples) {
    it(`${basename(sample)}: fsck clean, tool calls paired, first prompt and last answer the source's, source untouched`, async () => {
      const src = copyOf(sample)
      const before = tree(dirname(src))
      const out = fresh()
      const outcome = await importInto(src, out)
      expect(tree(dirname(src))).toEqual(before)
      expect(outcome.failures).toEqual([])
      const main = outcome.reports[0]!
      expect(main.from).toBe(src)
      expect(main.parentSessionId).toBeUndefined()
      for (const report of outcome.reports) {
        expect(report.warnings.filter((w) => /not written|was written as/.test(w))).toEqual([])
        const session = await open(report.to)
        expect(Diagnostics.diagnose(session.getState())).toEqual([])
        expect(session.getSessionId()).toBe(report.sessionId)
        expect(session.getEntries()).toHaveLength(report.entries + 1)
        const { calls, results } = toolIds(session.getEntries())
        expect(new Set(calls).size).toBe(calls.length)
        for (const id of results) expect(calls).toContain(id)
      }
      const session = await open(main.to)
      const ends = sourceEnds(src)
      const all = session.getEntries().flatMap((e) => (e.type === "message" ? [e.message] : []))
      expect(textOf(all.find((m) => m.role === "user"))).toBe(ends.first)
      const answers = all.filter((m): m is AgentMessage.AssistantMessage => m.role === "assistant").map(textOf).filter((
        t
      ) => t.length > 0)
      expect(answers.at(-1)).toBe(ends.last)
      // the context opens and its model matches the source's
      const context = session.buildSessionContext()
      expect(context.messages.length).toBeGreaterThan(0)
    })
  }

  it("writes sidechains (inline and subagent files) to sessions whose header points at the main one", async () => {
    for (const sample of [samples.claudeV1, samples.claudeV2]) {
      const src = copyOf(sample)
      const outcome = await importInto(src, fresh())
      const [main, agent] = outcome.reports
      expect(outcome.reports).toHaveLength(2)
      expect(agent!.parentSessionId).toBe(main!.sessionId)
      const header = (await open(agent!.to)).getHeader()!
      expect(header.parentSession).toBe(main!.to)
      expect(header.cwd).toBe("/home/dev/projects/shop")
    }
  })

  it("importing again writes nothing twice (every file byte-identical)", async () => {
    const src = copyOf(samples.claudeV2)
    const out = fresh()
    const first = await importInto(src, out)
    const written = tree(out)
    const again = await importInto(src, out)
    expect(tree(out)).toEqual(written)
    expect(again.reports.map((r) => r.to)).toEqual(first.reports.map((r) => r.to))
    expect(again.reports[0]!.warnings.at(-1)).toMatch(/^\d+ entries were already in .* \(not written again\)$/)
  })

  it("a source that grew adds only its new entries", async () => {
    const src = copyOf(samples.codexLegacy)
    const full = readFileSync(src, "utf8")
    const lines = full.trimEnd().split("\n")
    writeFileSync(src, lines.slice(0, 5).join("\n") + "\n")
    const out = fresh()
    const first = await importInto(src, out)
    writeFileSync(src, full)
    const second = await importInto(src, out)
    expect(second.reports[0]!.to).toBe(first.reports[0]!.to)
    const session = await open(second.reports[0]!.to)
    expect(session.getEntries()).toHaveLength(second.reports[0]!.entries + 1)
    expect(new Set(session.getEntries().map((e) => e.id)).size).toBe(session.getEntries().length)
    expect(textOf(session.buildSessionContext().messages.at(-1) as AgentMessage.AgentMessage)).toBe(
      "Two entries: README.md and src."
    )
  })

  it("imports into a .jsonl file (subagents beside it) and keeps the source's leaf", async () => {
    const src = copyOf(samples.claudeV1)
    const file = join(fresh(), "imported.jsonl")
    const outcome = await importInto(src, file)
    expect(outcome.reports[0]!.to).toBe(file)
    expect(dirname(outcome.reports[1]!.to)).toBe(dirname(file))
    const session = await open(file)
    expect(session.getSessionId()).toBe(outcome.reports[0]!.sessionId)
    expect(session.getCwd()).toBe("/home/dev/projects/shop")
    expect(session.getSessionName()).toBe("Fix the cart total rounding")
    expect(textOf(session.buildSessionContext().messages.at(-1) as AgentMessage.AgentMessage)).toContain(
      "Here is src/cart.ts"
    )
    // again into the same file: nothing written; another session into it: refused, the file kept
    const bytes = readFileSync(file)
    await importInto(src, file)
    expect(readFileSync(file)).toEqual(bytes)
    const refused = await run(Effect.flip(Importer.importSource(copyOf(samples.codex), { out: file })))
    expect(refused).toMatchObject({ _tag: "DestinationError", path: file })
    expect(readFileSync(file)).toEqual(bytes)
  })
})

describe("an OpenClaw database, folders, errors", () => {
  it("imports every session of the database without touching its folder", async () => {
    const src = copyOf(samples.openclaw)
    const before = tree(dirname(src))
    const out = fresh()
    const outcome = await importInto(src, out)
    expect(tree(dirname(src))).toEqual(before)
    expect(outcome.reports).toHaveLength(7)
    const sources = Effect.runSync(OpenClawDatabase.read(src))
    for (const report of outcome.reports) {
      expect(report.format).toBe("openclaw")
      expect(report.warnings.filter((w) => /not written|was written as/.test(w))).toEqual([])
      const session = await open(report.to)
      // every event keeps its id (leaf controls are not copied), its parent and its type
      const rows = sources.find((s) => s.sessionId === report.sessionId)!.rows
      for (const row of rows) {
        const event = row.event as { type: string; id?: string; parentId?: string | null }
        if (event.type === "session" || event.type === "leaf") continue
        const entry = session.getEntry(event.id!)
        const canonical = [
          "message",
          "thinking_level_change",
          "model_change",
          "compaction",
          "branch_summary",
          "custom",
          "custom_message",
          "label",
          "session_info",
          "usage",
          "context_edit"
        ]
        expect(entry?.type).toBe(canonical.includes(event.type) ? event.type : "custom")
        if (event.parentId !== null && event.parentId !== undefined && session.getEntry(event.parentId) !== undefined) {
          expect(entry!.parentId).toBe(event.parentId)
        }
      }
      // clean, but for what the source session itself holds: compactions.jsonl (a reference
      // fixture) keeps an entry off the compaction's path, and so does its import
      const findings = Diagnostics.diagnose(session.getState()).map((p) => `${p._tag} ${"id" in p ? p.id : ""}`)
      expect(findings).toEqual(
        report.sessionId === "019dd8a8-e3b2-725b-989d-fa33839b23f5" ? ["KeptEntryOffPath eb2a99f8"] : []
      )
    }
    const again = await importInto(src, out)
    expect(again.reports.map((r) => r.to)).toEqual(outcome.reports.map((r) => r.to))
  })

  it("imports OpenClaw's own native sessions: the written session's context is what OpenClaw shows", async () => {
    const src = copyOf(join(dirname(samples.openclaw), "native-agent.sqlite"))
    const want = JSON.parse(readFileSync(join(dirname(samples.openclaw), "native.expected.json"), "utf8")).sessions
    const outcome = await importInto(src, fresh())
    expect(outcome.reports.map((r) => r.sessionId)).toEqual(want.map((w: { sessionId: string }) => w.sessionId))
    for (const [i, report] of outcome.reports.entries()) {
      const session = await open(report.to)
      expect(Diagnostics.diagnose(session.getState())).toEqual([])
      expect(JSON.parse(JSON.stringify(session.buildSessionContext().messages))).toEqual(
        want[i].visible.map((v: { message: unknown }) => v.message)
      )
    }
  })

  it("imports a folder of mixed sources, listing the files it cannot read", async () => {
    const dir = fresh()
    cpSync(dirname(samples.claudeV2), join(dir, "claude"), { recursive: true })
    cpSync(dirname(samples.codex), join(dir, "codex", "2025", "11", "03"), { recursive: true })
    writeFileSync(join(dir, "notes.jsonl"), "{\"hello\":1}\n")
    const seen: Array<number> = []
    const outcome = await run(Importer.importSource(dir, { out: fresh(), onProgress: (done) => seen.push(done) }))
    // v1 with its inline sidechain, v2 with its subagent file, two rollouts; the subagents folder is not a source of its own
    expect(outcome.reports.map((r) => r.format)).toEqual([
      "claude-code",
      "claude-code",
      "claude-code",
      "claude-code",
      "codex",
      "codex"
    ])
    expect(outcome.reports.filter((r) => r.parentSessionId !== undefined)).toHaveLength(2)
    expect(outcome.failures).toEqual([{
      path: join(dir, "notes.jsonl"),
      error: expect.objectContaining({ _tag: "UnknownFormat" })
    }])
    expect(seen).toEqual([1, 2, 3, 4, 5])
  })

  it("links a subagent's file beside the sessions (2.0.x layout) to its main session, whatever the file order", async () => {
    const dir = fresh()
    cpSync(samples.claudeV2, join(dir, "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b.jsonl"))
    cpSync(samples.claudeV2Agent, join(dir, "agent-a7f3c21.jsonl"))
    const outcome = await run(Importer.importSource(dir, { out: fresh() }))
    expect(outcome.failures).toEqual([])
    const [main, agent] = outcome.reports
    expect(agent!.parentSessionId).toBe(main!.sessionId)
    expect((await open(agent!.to)).getHeader()!.parentSession).toBe(main!.to)
  })

  it("writes a subagent file imported alone (its parent absent) to exactly the --out FILE given", async () => {
    const dir = fresh()
    const src = join(dir, "agent-a7f3c21.jsonl")
    cpSync(samples.claudeV2Agent, src)
    const dest = join(fresh(), "agent.jsonl")
    const outcome = await importInto(src, dest)
    expect(outcome.reports).toHaveLength(1)
    expect(outcome.reports[0]).toMatchObject({
      to: dest,
      parentSessionId: "7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b",
      warnings: expect.arrayContaining([expect.stringMatching(/was not imported with it/)])
    })
    expect(readdirSync(dirname(dest))).toEqual(["agent.jsonl"])
    expect(readdirSync(dir)).toEqual(["agent-a7f3c21.jsonl"])
    const session = await open(dest)
    expect(session.buildSessionContext().messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant"
    ])
    // a main file with its subagents into a .jsonl file: the main there, the subagents beside it
    const main = copyOf(samples.claudeV2)
    const mainDest = join(fresh(), "main.jsonl")
    const both = await importInto(main, mainDest)
    expect(both.reports.map((r) => r.to === mainDest)).toEqual([true, false])
    expect(dirname(both.reports[1]!.to)).toBe(dirname(mainDest))
  })

  it("detects a transcript whose first record is longer than the bytes detection reads (a pasted image)", async () => {
    const src = fresh() + ".jsonl"
    const big = {
      type: "user",
      uuid: "e5000000-0000-4000-8000-000000000001",
      parentUuid: null,
      sessionId: "big-1",
      cwd: "/w",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: {
        role: "user",
        content: [{ type: "text", text: "look" }, {
          type: "image",
          source: { type: "base64", media_type: "image/png", data: "A".repeat(400_000) }
        }]
      }
    }
    writeFileSync(src, JSON.stringify(big) + "\n")
    const outcome = await importInto(src, fresh())
    expect(outcome.reports[0]).toMatchObject({ format: "claude-code", sessionId: "big-1", entries: 1 })
  })

  it("names the path in its errors: missing source, unknown format, a wrong --format", async () => {
    const failure = (src: string, out: string, format: Importer.Options["format"] = "auto") =>
      run(Effect.flip(Importer.importSource(src, { out, format })))
    const missing = join(temp, "nope.jsonl")
    expect(await failure(missing, fresh())).toMatchObject({ _tag: "SourceNotFound", path: missing })
    const odd = fresh() + ".jsonl"
    writeFileSync(odd, "{\"a\":1}\n")
    expect(await failure(odd, fresh())).toMatchObject({ _tag: "UnknownFormat", path: odd })
    expect(await failure(samples.codex, fresh(), "openclaw")).toMatchObject({
      _tag: "UnknownFormat",
      path: samples.codex
    })
    expect(await failure(samples.openclaw, join(fresh(), "one.jsonl"))).toMatchObject({ _tag: "DestinationError" })
  })
})
