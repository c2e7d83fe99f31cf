/**
 * Claude Code's turns, regrouped before conversion (pure). Claude Code 2.x writes one line per
 * content block of an API message (same `message.id`), and with parallel tool calls its lines
 * and the `tool_result` lines chain through `parentUuid` in the order they were written, not as
 * one call/result sequence: a result may hang on its own `tool_use` line, beside the next one.
 * A first pass over the records finds:
 *
 * - each **group**: the assistant lines of one `message.id` (a line without one is a group of its
 *   own), merged into one message whose entry is keyed by the first line that adds a block;
 * - each group's **chain**: the tool-result records answering its calls, their results in the
 *   order of the calls (then the records' other content), one after another after the message;
 * - the **tail** of a group: the chain's last entry (the message itself when nothing answers it).
 *   A record outside the group whose parent is any line of the group or of its chain hangs on the
 *   tail, so the context after a turn always holds every call followed by its result, whatever
 *   order the lines were written in; a rewind (a second child) stays a branch, at the tail.
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as Anthropic from "./anthropic.js"
import { isObject, str } from "./builder.js"
import type { SourceLine } from "./jsonl.js"

/** A record line of the source. */
export type Rec = Extract<SourceLine, { _tag: "Record" }>

type AssistantBlock = AgentMessage.AssistantMessage["content"][number]

/** The assistant lines of one API message, merged. */
export interface Group {
  /** The key of the message's entry: the first line that adds a block (none: every line only repeated). */
  readonly key: string | undefined
  /** The lines, in file order. */
  readonly lines: ReadonlyArray<Rec>
  /** The merged content: each line's new blocks, in file order. */
  readonly blocks: ReadonlyArray<AssistantBlock>
  /** Blocks that repeated earlier ones (cumulative lines, a call written twice). */
  readonly duplicates: number
  /** Blocks of other types (kept as a note). */
  readonly other: number
  /** The key of the last entry of the group's turn (its chain's last, else the message's). */
  readonly tail: string | undefined
}

/** One part of a user record: a tool result, or the record's other content (one user message). */
export type UserPart =
  | { readonly _tag: "Result"; readonly key: string; readonly block: Record<string, unknown> }
  | { readonly _tag: "Rest"; readonly key: string; readonly content: unknown }

/** What the first pass found. */
export interface Turns {
  /** The group of an assistant line, by its uuid. */
  readonly groupOf: (uuid: string) => Group | undefined
  /** The parent key of a part of a tool-result record that answers a group (undefined: not in a chain). */
  readonly chainParent: (partKey: string) => string | undefined
  /** The parent key a record outside a turn hangs on, given its `parentUuid`. */
  readonly parentOf: (parentUuid: string | null) => string | null
  /** The parent key of a group's message: where its first line hangs (a root when that is inside the group). */
  readonly entryParent: (group: Group) => string | null
  /** The tool name of a call id. */
  readonly toolName: (callId: string) => string | undefined
}

/**
 * The parts of a user record: one per `tool_result` block, then its other content when there is
 * any (or when the content is not an array); the last part is keyed by the record's uuid, the
 * others `uuid#i`, so the record's children hang on the last.
 */
export const userParts = (uuid: string, content: unknown): Array<UserPart> => {
  const results: Array<Record<string, unknown>> = []
  const rest: Array<unknown> = []
  if (Array.isArray(content)) {
    for (const block of content) {
      if (isObject(block) && block.type === "tool_result") results.push(block)
      else rest.push(block)
    }
  }
  const restContent = !Array.isArray(content) ? [content] : rest.length > 0 ? [rest] : []
  const n = results.length + restContent.length
  const keyOf = (i: number) => (i === n - 1 ? uuid : `${uuid}#${i}`)
  return [
    ...results.map((block, i): UserPart => ({ _tag: "Result", key: keyOf(i), block })),
    ...restContent.map((c): UserPart => ({ _tag: "Rest", key: keyOf(results.length), content: c }))
  ]
}

const messageOf = (r: Rec) => (isObject(r.value.message) ? r.value.message : undefined)

/** The first pass over a file's records (file order; a uuid seen before is passed over, as the conversion does). */
export const scan = (records: ReadonlyArray<Rec>): Turns => {
  interface Building {
    key: string | undefined
    readonly lines: Array<Rec>
    readonly blocks: Array<AssistantBlock>
    readonly seen: Set<string>
    duplicates: number
    other: number
    tail: string | undefined
    readonly calls: Array<string>
  }
  const groups = new Map<string, Building>()
  const groupOfLine = new Map<string, Building>()
  const callOwner = new Map<string, Building>()
  const toolNames = new Map<string, string>()
  const seenToolIds = new Set<string>()
  const seenUuids = new Set<string>()
  const answers = new Map<Building, Array<{ readonly uuid: string; readonly parts: Array<UserPart> }>>()

  for (const r of records) {
    const uuid = str(r.value.uuid)
    const message = messageOf(r)
    if (uuid === undefined || message === undefined || seenUuids.has(uuid)) continue
    seenUuids.add(uuid)
    if (r.value.type === "assistant") {
      const id = str(message.id) ?? `line:${uuid}`
      let g = groups.get(id)
      if (g === undefined) {
        g = {
          key: undefined,
          lines: [],
          blocks: [],
          seen: new Set(),
          duplicates: 0,
          other: 0,
          tail: undefined,
          calls: []
        }
        groups.set(id, g)
      }
      g.lines.push(r)
      groupOfLine.set(uuid, g)
      const mapped = Anthropic.assistantBlocks(message.content, seenToolIds)
      g.duplicates += mapped.duplicates
      g.other += mapped.other
      let added = 0
      for (const block of mapped.blocks) {
        // a line that repeats blocks an earlier line of the message wrote (versions that write the
        // message so far on each line) adds only its new ones; calls are kept once by their id
        const text = JSON.stringify(block)
        if (block.type !== "toolCall" && g.seen.has(text)) {
          g.duplicates++
          continue
        }
        g.seen.add(text)
        g.blocks.push(block)
        added++
        if (block.type === "toolCall") {
          g.calls.push(block.id)
          callOwner.set(block.id, g)
          toolNames.set(block.id, block.name)
        }
      }
      if (g.key === undefined && added > 0) g.key = uuid
    } else if (r.value.type === "user" && r.value.isCompactSummary !== true && Array.isArray(message.content)) {
      const parts = userParts(uuid, message.content)
      const owner = parts.map((p) => p._tag === "Result" ? callOwner.get(str(p.block.tool_use_id) ?? "") : undefined)
        .find((g) => g !== undefined)
      if (owner === undefined || owner.key === undefined) continue
      const list = answers.get(owner) ?? []
      answers.set(owner, list)
      list.push({ uuid, parts })
    }
  }

  // each group's chain: its results in the order of its calls (file order for the rest), then the
  // records' other content
  const chainParents = new Map<string, string>()
  const inTurn = new Map<string, Building>()
  for (const [g, list] of answers) {
    const callIndex = (p: UserPart) => {
      const i = p._tag === "Result" ? g.calls.indexOf(str(p.block.tool_use_id) ?? "") : -1
      return i === -1 ? Number.MAX_SAFE_INTEGER : i
    }
    const all = list.flatMap((a) => a.parts)
    const results = all.filter((p) => p._tag === "Result")
      .map((p, order) => ({ p, order, at: callIndex(p) }))
      .sort((a, b) => a.at - b.at || a.order - b.order)
      .map((x) => x.p)
    let previous = g.key!
    for (const p of [...results, ...all.filter((p) => p._tag === "Rest")]) {
      chainParents.set(p.key, previous)
      previous = p.key
    }
    g.tail = previous
    for (const a of list) inTurn.set(a.uuid, g)
  }
  for (const g of groups.values()) g.tail ??= g.key

  const parentOf = (parentUuid: string | null): string | null => {
    let p = parentUuid
    const visited = new Set<string>()
    while (p !== null && !visited.has(p)) {
      visited.add(p)
      const g = groupOfLine.get(p) ?? inTurn.get(p)
      if (g === undefined) return p
      if (g.tail !== undefined) return g.tail
      // a group that kept nothing (every line only repeated): where its first line hangs
      p = groupParentUuid(g)
    }
    return null
  }
  const groupParentUuid = (g: Building): string | null => {
    const own = new Set(g.lines.map((l) => str(l.value.uuid)))
    const first = g.lines.find((l) => !own.has(str(l.value.parentUuid))) ?? g.lines[0]!
    return str(first.value.parentUuid) ?? null
  }

  return {
    groupOf: (uuid) => groupOfLine.get(uuid),
    chainParent: (key) => chainParents.get(key),
    parentOf,
    entryParent: (group) => {
      const g = group as Building
      const p = groupParentUuid(g)
      return p !== null && (groupOfLine.get(p) === g || inTurn.get(p) === g) ? null : parentOf(p)
    },
    toolName: (id) => toolNames.get(id)
  }
}
