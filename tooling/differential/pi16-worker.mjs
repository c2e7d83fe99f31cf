// pi 1.6 as a child process: pi 1.6 needs Node ≥ 22.19, the rest of the differential runs on the
// project's Node 20. references.mjs starts this file under the pinned Node 22 binary with the path
// of pi 1.6's `dist/core/session-manager.js`; requests and answers are JSON lines on stdin / stdout:
//
//   {"id":1,"op":"write","dir":"…","seed":7,"ops":60}   → {"id":1,"ok":true,"value":{"file":"…","kinds":[…]}}
//   {"id":2,"op":"answers","file":"…","sessionDir":"…"} → {"id":2,"ok":true,"value":{"answers":{…},"rules":[…]}}
//   {"id":3,"op":"leaves","file":"…","sessionDir":"…"}  → {"id":3,"ok":true,"value":[["id",{context}],…]}
//
// A request that throws answers `{"id":…,"ok":false,"error":"message"}`.
import { copyFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { pathToFileURL } from "node:url"
import { answersOfManager, contextsAtEveryLeaf } from "./answers.mjs"
import { editable, pi16Session, reshapePi16 } from "./generate16.mjs"

const pi16 = await import(pathToFileURL(process.argv[2]).href)
const Pi16 = pi16.SessionManager

/** The roles whose null content pi 1.6 normalises (`[]`, or `""` for system). */
const NULLABLE = new Set(["user", "assistant", "toolResult", "system"])

const roleOf = (entry) => (entry.type === "message" ? entry.message?.role : entry.type)

/**
 * Which §15 rules the file exercises at its leaf, read off pi 1.6's own selection
 * (`buildContextEntries`): the labels the fixtures are chosen by.
 */
const rulesOf = (sm) => {
  const rules = new Set()
  const entries = sm.getEntries()
  const path = sm.getBranch()
  const selected = new Set(pi16.buildContextEntries(entries, sm.getLeafId(), sm.byId))
  const position = new Map(path.map((entry, i) => [entry, i]))
  const byId = (id) => sm.getEntry(id)
  if (sm.getLeafEntry()?.type === "usage") rules.add("usage-as-leaf")
  if (path.some((entry) => entry.type === "usage")) rules.add("usage-on-path")
  if (entries.some((entry) => entry.type === "context_edit" && !position.has(entry))) rules.add("edit-off-the-path")
  const winners = new Map()
  const editsPerTarget = new Map()
  for (const entry of path) {
    if (entry.type !== "context_edit") continue
    const target = byId(entry.targetId)
    if (!selected.has(entry)) rules.add("edit-summarised-away")
    else if (target === undefined) rules.add("edit-of-a-missing-entry")
    else if (!position.has(target)) rules.add("edit-of-an-entry-off-the-path")
    else if (!selected.has(target)) rules.add("edit-of-a-summarised-entry")
    else {
      if (position.get(target) > position.get(entry)) rules.add("edit-of-a-later-entry")
      winners.set(target, entry)
      editsPerTarget.set(target, (editsPerTarget.get(target) ?? 0) + 1)
    }
  }
  for (const [target, edit] of winners) {
    const role = roleOf(target)
    if (editsPerTarget.get(target) > 1) rules.add("edit-last-wins")
    const content = edit.replacement?.content
    const form = edit.replacement === null ? "null" : typeof content === "string" ? "string" : "blocks"
    rules.add(`edit-${form}`)
    rules.add(`edit-on-${role}`)
    // null removes anything, other content leaves non-editable roles alone, a string becomes a text
    // block for assistant and toolResult only
    if (!editable(target) || form === "string") rules.add(`edit-${form}-on-${role}`)
  }
  const compactions = path.filter((entry) => entry.type === "compaction")
  const compaction = compactions[compactions.length - 1]
  if (compaction !== undefined) {
    if (compaction.systemMessage !== undefined) rules.add("compaction-system-message")
    if (compaction.usage !== undefined) rules.add("compaction-usage")
    if (compaction.firstKeptEntryId === compaction.id) rules.add("compaction-keeps-nothing-api-null")
    else if (compaction.firstKeptEntryId === null) rules.add("compaction-keeps-nothing-literal-null")
    if (compactions.length > 1 && selected.has(compactions[compactions.length - 2])) {
      rules.add("older-compaction-in-kept-range")
    }
    const at = position.get(compaction)
    const keptFrom = path.findIndex((entry, i) => i < at && entry.id === compaction.firstKeptEntryId)
    for (const [i, entry] of path.entries()) {
      if (roleOf(entry) !== "system") continue
      if (i > at) rules.add("system-message-after-compaction")
      else if (keptFrom >= 0 && i >= keptFrom) rules.add("system-message-dropped-in-kept-range")
    }
  } else if (path.some((entry) => roleOf(entry) === "system")) rules.add("system-message")
  for (const entry of selected) {
    if (entry.type === "message" && NULLABLE.has(entry.message?.role) && entry.message.content == null) {
      rules.add(`null-content-${entry.message.role}`)
    }
    if (entry.type === "custom_message" && entry.content == null) rules.add("null-content-custom_message")
    if (entry.type === "branch_summary" && entry.usage !== undefined) rules.add("branch-summary-usage")
  }
  return [...rules].sort()
}

const handle = (request) => {
  switch (request.op) {
    case "write": {
      const file = pi16Session(Pi16, request.dir, request.seed, request.ops)
      return { file, kinds: reshapePi16(file, request.seed) }
    }
    case "answers": {
      const copy = `${request.file}.pi16.jsonl` // pi 1.6 may write to what it opens (a torn last line)
      copyFileSync(request.file, copy)
      const sm = Pi16.open(copy, request.sessionDir)
      return { answers: answersOfManager(sm), rules: rulesOf(sm) }
    }
    case "leaves":
      return contextsAtEveryLeaf(Pi16, request.file, "pi16", request.sessionDir)
    default:
      throw new Error(`unknown op ${request.op}`)
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line)
  let reply
  try {
    reply = { id: request.id, ok: true, value: handle(request) }
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }
  }
  process.stdout.write(JSON.stringify(reply) + "\n")
}
