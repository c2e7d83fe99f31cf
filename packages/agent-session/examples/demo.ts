/**
 * A scripted agent over a real session file: one prompt with two tool calls, a model switch,
 * a compaction, and the transcript printed line by line. No network.
 *
 *   node --conditions=@branchlog/source --import tsx examples/demo.ts
 */
import {
  AgentSession,
  BuiltinTools,
  ModelRegistry,
  ScriptedModel,
  ToolRegistry,
  Workspace
} from "@branchlog/agent-session"
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const program = Effect.gen(function*() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branchlog-demo-"))
  const files = new Map([["notes.md", "# Notes\nship it\n"]])
  const sm = yield* SessionManager.create("/work/demo", dir)
  const session = yield* AgentSession.make({
    sessionManager: sm,
    tools: ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.memory(files)) }),
    models: ModelRegistry.make({ models: [ModelRegistry.scriptedModel] }),
    compaction: { enabled: true, thresholdRatio: 0.8, keepRecentTokens: 5 }
  }).pipe(Effect.provide(ScriptedModel.layer({
    script: [
      {
        text: "Reading and updating the notes.",
        toolCalls: [
          { name: "read", arguments: { path: "notes.md" } },
          { name: "edit", arguments: { path: "notes.md", oldText: "ship it", newText: "shipped" } }
        ]
      },
      { text: "Done: the notes now say shipped." },
      { text: "You are welcome." }
    ]
  })))

  const first = yield* session.prompt("Mark the notes as shipped.")
  console.log("stop:", first.stopReason, "| notes.md:", JSON.stringify(files.get("notes.md")))
  yield* session.prompt("Thanks!")
  const compaction = yield* session.compact()
  console.log("compacted, kept from", compaction.firstKeptEntryId, "details", JSON.stringify(compaction.details))
  for (const line of fs.readFileSync(sm.getSessionFile()!, "utf8").trim().split("\n")) {
    const row = JSON.parse(line)
    console.log(
      row.type === "message" ? `message ${row.message.role}` : row.type,
      row.id ?? "",
      "<-",
      row.parentId ?? ""
    )
  }
  fs.rmSync(dir, { recursive: true, force: true })
})

Effect.runPromise(program.pipe(Effect.provide(SessionStore.layerNode)))
