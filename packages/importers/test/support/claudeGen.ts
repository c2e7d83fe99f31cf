/**
 * Claude Code 2.1.x transcripts, generated in the shapes it writes (pure, deterministic for a
 * given spec): one line per content block of an API message (same `message.id`), each line's
 * `parentUuid` the line written before it; parallel `tool_use` blocks whose results are written
 * in the order the tools finish, each result's `parentUuid` either the line written before it or
 * its own `tool_use` line (with `sourceToolAssistantUUID`), a result sometimes written before the
 * next `tool_use` line (streaming tool execution); progress records between them; rewinds, where
 * a prompt hangs on an earlier prompt's parent.
 */
import { Synthetic } from "@branchlog/session-core/testing"
import type { SourceLine } from "../../src/internal/jsonl.js"
import { splitLines } from "../../src/internal/jsonl.js"

/** One turn: a prompt, then API messages (each with its parallel calls) until a final reply. */
export interface TurnSpec {
  /** The number of parallel tool calls of each API message before the final reply. */
  readonly rounds: ReadonlyArray<number>
  /** Whether each message starts with a thinking block. */
  readonly thinking: boolean
  /** A permutation seed: the order the tools finish and how results link. */
  readonly seed: number
  /** Rewind: the prompt hangs on the parent of the prompt this many turns back (0: no rewind). */
  readonly rewind: number
}

/** What the generator wrote, to check an import against. */
export interface Generated {
  readonly lines: Array<Record<string, unknown>>
  /** Every API message's id and its tool call ids, in order. */
  readonly messages: Array<{ readonly id: string; readonly calls: ReadonlyArray<string> }>
}

/** Writes a session of `turns`. */
export const generate = (turns: ReadonlyArray<TurnSpec>): Generated => {
  const lines: Array<Record<string, unknown>> = []
  const messages: Array<{ id: string; calls: Array<string> }> = []
  let n = 0
  const uuid = () => `${(++n).toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`
  let clock = Date.parse("2026-11-20T10:00:00.000Z")
  const base = () => ({
    isSidechain: false,
    userType: "external",
    cwd: "/work/app",
    sessionId: "5e551011-0000-4000-8000-000000000000",
    version: "2.1.37",
    gitBranch: "main",
    timestamp: new Date(clock += 1000).toISOString()
  })
  let last: string | null = null
  const write = (record: Record<string, unknown>, parentUuid: string | null = last) => {
    const id = uuid()
    lines.push({ parentUuid, ...base(), ...record, uuid: id })
    last = id
    return id
  }
  const prompts: Array<{ readonly parent: string | null }> = []
  turns.forEach((turn, t) => {
    const rnd = Synthetic.prng(turn.seed)
    // a rewind: the edited prompt hangs where an earlier prompt hung
    const back = turn.rewind > 0 && turn.rewind <= prompts.length ? prompts[prompts.length - turn.rewind]! : undefined
    const promptParent = back === undefined ? last : back.parent
    prompts.push({ parent: promptParent })
    write({ type: "user", message: { role: "user", content: `prompt ${t}` }, permissionMode: "default" }, promptParent)
    if (rnd() < 0.3) lines.push({ type: "permission-mode", permissionMode: "acceptEdits", sessionId: "s" })
    const rounds = [...turn.rounds, 0]
    rounds.forEach((calls, r) => {
      const messageId = `msg_${t}_${r}`
      const callIds = Array.from({ length: calls }, (_, i) => `toolu_${t}_${r}_${i}`)
      messages.push({ id: messageId, calls: callIds })
      const assistant = (block: Record<string, unknown>, stop: string | null) =>
        write({
          type: "assistant",
          requestId: `req_${t}_${r}`,
          message: {
            id: messageId,
            type: "message",
            role: "assistant",
            model: "claude-opus-4-5-20251101",
            content: [block],
            stop_reason: stop,
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 20, cache_read_input_tokens: 100 }
          }
        })
      if (turn.thinking) assistant({ type: "thinking", thinking: `thinking ${t}.${r}`, signature: "sig" }, null)
      if (calls === 0) {
        assistant({ type: "text", text: `reply ${t}` }, "end_turn")
        return
      }
      if (rnd() < 0.5) assistant({ type: "text", text: `calling ${calls} tools` }, null)
      // the calls' lines, with results written as tools finish (some before the next call's line)
      const callLine = new Map<string, string>()
      const pending: Array<string> = []
      const writeResult = (id: string) => {
        const own = rnd() < 0.5
        if (rnd() < 0.3) {
          write({ type: "progress", data: { type: "hook_progress", hookEvent: "PostToolUse" }, toolUseID: id })
        }
        write(
          {
            type: "user",
            message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: `result of ${id}` }] },
            toolUseResult: { stdout: `result of ${id}` },
            sourceToolAssistantUUID: callLine.get(id)
          },
          own ? callLine.get(id)! : last
        )
      }
      callIds.forEach((id, i) => {
        callLine.set(
          id,
          assistant(
            { type: "tool_use", id, name: "Read", input: { file_path: id } },
            i === calls - 1 ? "tool_use" : null
          )
        )
        pending.push(id)
        // streaming tool execution: a finished tool's result may come before the next call's line
        while (pending.length > 0 && i < calls - 1 && rnd() < 0.3) {
          writeResult(pending.splice(Math.floor(rnd() * pending.length), 1)[0]!)
        }
      })
      while (pending.length > 0) writeResult(pending.splice(Math.floor(rnd() * pending.length), 1)[0]!)
    })
  })
  return { lines, messages }
}

/** The lines as a source would be split. */
export const sourceLines = (g: Generated): Array<SourceLine> =>
  splitLines(new TextEncoder().encode(g.lines.map((l) => JSON.stringify(l)).join("\n") + "\n"))
