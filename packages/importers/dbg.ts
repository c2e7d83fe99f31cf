import { readFileSync } from "node:fs"
import * as ClaudeCode from "./src/ClaudeCode.js"
import * as Codex from "./src/Codex.js"
import { splitLines } from "./src/internal/jsonl.js"
const f = process.argv[2]!
const lines = splitLines(readFileSync(f))
const out = f.includes("codex") ? [Codex.convert(lines, { source: f, fallbackSessionId: "x" })] : ClaudeCode.convert(lines, { source: f, fallbackSessionId: "x" })
for (const s of out) {
  console.log("SESSION", s.sessionId, s.cwd, s.timestamp, s.parentSessionId, "leaf", s.leafId)
  for (const e of s.entries) console.log(" ", e.id, e.parentId, e.type, JSON.stringify((e as any).message ?? (e as any).summary ?? (e as any).content ?? (e as any).name ?? (e as any).modelId ?? (e as any).thinkingLevel ?? "").slice(0, 110))
  console.log("  skipped", JSON.stringify(s.skipped)); console.log("  warnings", JSON.stringify(s.warnings))
}
