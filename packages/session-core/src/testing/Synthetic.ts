/**
 * Deterministic synthetic sessions for benchmarks and tests: realistic rows (user, assistant with
 * thinking and tool calls, tool results, settings changes, labels, compactions, branches) from a
 * seeded generator, with ids and timestamps that repeat from run to run.
 *
 * @since 0.1.0
 */
import { CURRENT_SESSION_VERSION } from "../Entry.js"

/** A small seeded PRNG (mulberry32). */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const words = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "epsilon",
  "zeta",
  "eta",
  "theta",
  "iota",
  "kappa",
  "lambda",
  "mu",
  "naïve",
  "café",
  "\"quoted\"",
  "<tag/>"
]

/** Options of {@link session}. */
export interface SessionOptions {
  readonly entries: number
  readonly seed?: number
  /** Probability that an entry starts a new branch from an earlier entry (0 = one linear chain). */
  readonly branchRate?: number
}

/** The rows of a synthetic session: the header, then `entries` entries. */
export const session = (options: SessionOptions): Array<Record<string, unknown>> => {
  const random = prng(options.seed ?? 1)
  const branchRate = options.branchRate ?? 0.02
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(" ")
  let clock = Date.parse("2026-05-01T09:00:00.000Z")
  const rows: Array<Record<string, unknown>> = [{
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: "019e0000-0000-7000-8000-000000000000",
    timestamp: new Date(clock).toISOString(),
    cwd: "/home/dev/projects/synthetic"
  }]
  const ids: Array<string> = []
  let parent: string | null = null
  for (let i = 0; i < options.entries; i++) {
    clock += 1 + Math.floor(random() * 3000)
    const id = (0x10000000 + i * 2654435761 % 0xefffffff).toString(16).slice(-8).padStart(8, "0")
    if (ids.length > 2 && random() < branchRate) parent = ids[Math.floor(random() * ids.length)]!
    const base = { id, parentId: parent, timestamp: new Date(clock).toISOString() }
    const kind = i % 10
    let row: Record<string, unknown>
    if (kind === 0) {
      row = { type: "message", ...base, message: { role: "user", content: `user: ${text(20)}`, timestamp: clock } }
    } else if (kind === 1 || kind === 4 || kind === 7) {
      row = {
        type: "message",
        ...base,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: `think: ${text(12)}` },
            { type: "text", text: `assistant: ${text(25)}` },
            ...(kind !== 7
              ? [{
                type: "toolCall",
                id: `toolu_${id}`,
                name: "read",
                arguments: { path: `src/${words[i % 12]}.ts`, offset: i % 400 }
              }]
              : [])
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {
            input: 4000 + i % 900,
            output: 1200,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 5200,
            cost: { input: 0.012, output: 0.018, cacheRead: 0, cacheWrite: 0, total: 0.03 }
          },
          stopReason: kind === 7 ? "stop" : "toolUse",
          timestamp: clock
        }
      }
    } else if (kind === 2 || kind === 5) {
      row = {
        type: "message",
        ...base,
        message: {
          role: "toolResult",
          toolCallId: `toolu_${ids[ids.length - 1] ?? id}`,
          toolName: "read",
          content: [{ type: "text", text: `output: ${text(40)}` }],
          isError: false,
          timestamp: clock
        }
      }
    } else if (kind === 3) {
      row = { type: "thinking_level_change", ...base, thinkingLevel: ["off", "low", "medium", "high"][i % 4] }
    } else if (kind === 6) {
      row = { type: "label", ...base, targetId: ids[ids.length - 1] ?? id, label: `label ${i % 7}` }
    } else if (kind === 8) {
      row = { type: "custom_message", ...base, customType: "note", content: text(10), display: true }
    } else {row = i % 1000 === 9 && ids.length > 10
        ? {
          type: "compaction",
          ...base,
          summary: `summary: ${text(60)}`,
          firstKeptEntryId: ids[ids.length - 8]!,
          tokensBefore: 50000,
          details: { readFiles: ["a.ts"], modifiedFiles: [] }
        }
        : { type: "model_change", ...base, provider: "anthropic", modelId: "claude-sonnet-4-5" }}
    rows.push(row)
    ids.push(id)
    parent = id
  }
  return rows
}

/** The JSONL text of rows, each line ended by `\n`. */
export const toText = (rows: ReadonlyArray<unknown>): string => rows.map((row) => JSON.stringify(row)).join("\n") + "\n"
