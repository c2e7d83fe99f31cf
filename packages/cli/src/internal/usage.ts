/**
 * Token and cost totals of a session for `info`: the `usage` of assistant messages, of `usage`
 * entries (pi 1.6, spec §15: model calls that are no message, such as a title) and of compactions
 * and branch summaries that carry one, summed over every entry and over the active path.
 * Fields are read defensively: a missing or non-numeric number counts as 0.
 */
import type { Entry } from "@branchlog/session-core"

/** Summed usage, and how many records of each kind went into it. */
export interface UsageTotals {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly totalTokens: number
  /** `cost.total`, summed (the provider's currency, usually US dollars). */
  readonly cost: number
  readonly assistantMessages: number
  readonly usageEntries: number
  readonly summaries: number
}

/** The totals over every entry (`all`) and over the active path from the root to the leaf (`activePath`). */
export interface SessionUsage {
  readonly all: UsageTotals
  readonly activePath: UsageTotals
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)

/** Where an entry's usage is, and of which kind, or `undefined`. */
const usageOf = (
  entry: Entry.Entry
): { readonly kind: "assistantMessages" | "usageEntries" | "summaries"; readonly usage: unknown } | undefined => {
  const e = entry as { readonly type: string; readonly usage?: unknown; readonly message?: unknown }
  if (e.type === "message") {
    const m = e.message as { readonly role?: unknown; readonly usage?: unknown } | undefined
    return m?.role === "assistant" && typeof m.usage === "object" && m.usage !== null
      ? { kind: "assistantMessages", usage: m.usage }
      : undefined
  }
  if (typeof e.usage !== "object" || e.usage === null) return undefined
  if (e.type === "usage") return { kind: "usageEntries", usage: e.usage }
  if (e.type === "compaction" || e.type === "branch_summary") return { kind: "summaries", usage: e.usage }
  return undefined
}

/** The usage totals of `entries`. */
export const totals = (entries: Iterable<Entry.Entry>): UsageTotals => {
  const sum = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: 0,
    assistantMessages: 0,
    usageEntries: 0,
    summaries: 0
  }
  for (const entry of entries) {
    const found = usageOf(entry)
    if (found === undefined) continue
    const u = found.usage as Record<string, unknown>
    sum.input += num(u.input)
    sum.output += num(u.output)
    sum.cacheRead += num(u.cacheRead)
    sum.cacheWrite += num(u.cacheWrite)
    sum.totalTokens += num(u.totalTokens)
    sum.cost += num((u.cost as { readonly total?: unknown } | undefined)?.total)
    sum[found.kind] += 1
  }
  return sum
}

/** One line of totals for people: tokens in, out, cache read / write, total, and the cost. */
export const describe = (t: UsageTotals): string =>
  `${t.totalTokens} tokens (input ${t.input}, output ${t.output}, cache read ${t.cacheRead}, cache write ${t.cacheWrite}), cost ${
    Number(t.cost.toFixed(6))
  } from ${t.assistantMessages} assistant message(s), ${t.usageEntries} usage entr${
    t.usageEntries === 1 ? "y" : "ies"
  }, ${t.summaries} summar${t.summaries === 1 ? "y" : "ies"}`
