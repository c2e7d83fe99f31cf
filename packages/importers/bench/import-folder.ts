/**
 * Imports a folder of generated Claude Code sessions (default 1,000, each a 12-turn session with
 * tool calls and results, a thinking block, progress and file-snapshot records, and a rewind) into
 * a fresh session folder, and prints the time and the process's peak memory; then imports it again
 * (nothing to write). Run: `npx -y pnpm@12.4.2 -F @branchlog/importers bench` (SESSIONS=N to change
 * the count). Figures go in the README; they are never asserted in tests.
 */
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Importer from "../src/Importer.js"

const count = Number(process.env.SESSIONS ?? 1000)
const root = mkdtempSync(join(tmpdir(), "branchlog-import-bench-"))
const src = join(root, "projects", "-home-dev-app")
mkdirSync(src, { recursive: true })

const session = (i: number): string => {
  const sid = randomUUID()
  const lines: Array<string> = []
  let t = Date.parse("2026-01-01T00:00:00.000Z") + i * 3_600_000
  let parent: string | null = null
  const rec = (r: Record<string, unknown>) => {
    const uuid = randomUUID()
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd: "/home/dev/app",
        sessionId: sid,
        version: "2.1.12",
        gitBranch: "main",
        ...r,
        uuid,
        timestamp: new Date(t += 1500).toISOString()
      })
    )
    parent = uuid
    return uuid
  }
  let fork: string | null = null
  for (let turn = 0; turn < 12; turn++) {
    lines.push(
      JSON.stringify({
        type: "file-history-snapshot",
        messageId: randomUUID(),
        snapshot: { trackedFileBackups: {} },
        isSnapshotUpdate: false
      })
    )
    rec({
      type: "user",
      message: {
        role: "user",
        content: `Turn ${turn}: please look at src/module${turn}.ts and fix the failing test ${
          "lorem ipsum ".repeat(10)
        }`
      }
    })
    if (turn === 6) fork = parent
    const mid = `msg_${i}_${turn}`
    rec({
      type: "assistant",
      message: {
        id: mid,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "thinking", thinking: "Let me read the file first. ".repeat(8), signature: "sig" }],
        usage: { input_tokens: 10, output_tokens: 20 }
      }
    })
    const tool = `toolu_${i}_${turn}`
    rec({
      type: "assistant",
      message: {
        id: mid,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{
          type: "tool_use",
          id: tool,
          name: "Read",
          input: { file_path: `/home/dev/app/src/module${turn}.ts` }
        }],
        stop_reason: "tool_use",
        usage: { input_tokens: 10, output_tokens: 20 }
      }
    })
    rec({ type: "progress", data: { type: "hook_progress" } })
    rec({
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: tool, content: "export const f = () => 1\n".repeat(40) }]
      }
    })
    rec({
      type: "assistant",
      message: {
        id: `${mid}b`,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: `Fixed module ${turn}. ${"The test passes now. ".repeat(6)}` }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 20 }
      }
    })
  }
  parent = fork
  rec({ type: "user", message: { role: "user", content: "Rewind: try another approach." } })
  rec({
    type: "assistant",
    message: {
      id: `msg_${i}_r`,
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "Trying another approach." }],
      stop_reason: "end_turn"
    }
  })
  writeFileSync(join(src, `${sid}.jsonl`), lines.join("\n") + "\n")
  return sid
}

let bytes = 0
for (let i = 0; i < count; i++) {
  session(i)
}
for (const name of (await import("node:fs")).readdirSync(src)) bytes += statSync(join(src, name)).size
const out = join(root, "out")
const run = (label: string) =>
  Effect.gen(function*() {
    const start = performance.now()
    const outcome = yield* Importer.importSource(src, { out })
    const ms = performance.now() - start
    const entries = outcome.reports.reduce((n, r) => n + r.entries, 0)
    console.log(
      `${label}: ${outcome.reports.length} sessions, ${entries} entries, ${(bytes / 1e6).toFixed(1)} MB of source in ${
        (ms / 1000).toFixed(1)
      } s (${(outcome.reports.length / (ms / 1000)).toFixed(0)} sessions/s); peak RSS so far ${
        (process.resourceUsage().maxRSS / 1024).toFixed(0)
      } MB; failures ${outcome.failures.length}`
    )
  })
await Effect.runPromise(
  Effect.provide(Effect.zipRight(run("first import"), run("import again")), SessionStore.layerNode)
)
rmSync(root, { recursive: true, force: true })
