// The `pi16` shape of the differential run: a session written through pi 1.6's own SessionManager
// API (usage entries, context edits, compactions that carry a system message and usage or keep
// nothing, system-role messages, null content), then rows that pi 1.6's API refuses to write but
// files may hold (spec §15): edits of later or non-editable entries, string replacements on
// assistant and toolResult targets, a literal `null` firstKeptEntryId, edits of missing entries.
// Runs inside pi16-worker.mjs (under Node 22), beside pi 1.6's SessionManager class.
import { readFileSync, writeFileSync } from "node:fs"
import { commonDamage, parse, prng, usage, withClock, words } from "./generate.mjs"

const EDITABLE_ROLES = ["user", "assistant", "toolResult"]

/** Whether pi 1.6's `appendContextEdit` accepts `entry` as a target (custom messages and three roles). */
export const editable = (entry) =>
  entry.type === "custom_message" || (entry.type === "message" && EDITABLE_ROLES.includes(entry.message?.role))

/** A session of `ops` random operations written by pi 1.6 into `dir`; returns the file. */
export const pi16Session = (Pi16SessionManager, dir, seed, ops) => {
  const r = prng(seed * 13 + 5)
  const text = (n) => Array.from({ length: n }, () => r.pick(words)).join(" ")
  const clock = { now: 1_777_000_000_000 }
  const sm = Pi16SessionManager.create("/home/dev/project", dir)
  const ids = []
  const remember = () => {
    const leaf = sm.getLeafId()
    if (leaf !== null && !ids.includes(leaf)) ids.push(leaf)
  }
  const maybeNull = (content) => (r.next() < 0.06 ? null : content)
  const system = () => ({
    role: "system",
    content: r.next() < 0.1 ? null : `You are a helper. ${text(3)}`,
    ...(r.next() < 0.3 ? { sections: { tools: text(2) } } : {}),
    timestamp: clock.now
  })
  const assistant = (stopReason) => ({
    role: "assistant",
    content: maybeNull([
      ...(r.next() < 0.4 ? [{ type: "thinking", thinking: text(2) }] : []),
      { type: "text", text: text(4) },
      ...(stopReason === "toolUse"
        ? [{ type: "toolCall", id: `call_${r.hex()}`, name: "read", arguments: { path: text(1) } }]
        : [])
    ]),
    api: "anthropic-messages",
    provider: r.pick(["anthropic", "openai"]),
    model: r.pick(["m1", "m2"]),
    usage,
    stopReason,
    timestamp: clock.now
  })
  const replacement = (target) => {
    const k = r.next()
    if (k < 0.25) return null
    if (k < 0.6) return { content: `edited ${text(2)}` } // the API turns it into a text block for assistant / toolResult
    const role = target.type === "message" ? target.message.role : "custom"
    const blocks = [{ type: "text", text: `edited ${text(2)}` }]
    if (role !== "assistant" && r.next() < 0.3) {
      blocks.push({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" })
    }
    return { content: blocks }
  }
  withClock(clock, () => {
    if (r.next() < 0.6) sm.appendMessage(system())
    remember()
    sm.appendMessage({ role: "user", content: text(5), timestamp: clock.now })
    remember()
    sm.appendMessage(assistant("stop"))
    remember()
    for (let i = 0; i < ops; i++) {
      if (r.next() < 0.7) clock.now += r.int(3) * 1000
      const op = r.next()
      const target = r.pick(ids)
      if (op < 0.17) {
        sm.appendMessage({
          role: "user",
          content: maybeNull(r.next() < 0.5 ? text(4) : [{ type: "text", text: text(3) }]),
          timestamp: clock.now
        })
      } else if (op < 0.31) sm.appendMessage(assistant(r.pick(["stop", "toolUse", "aborted"])))
      else if (op < 0.37) {
        sm.appendMessage({
          role: "toolResult",
          toolCallId: `call_${r.hex()}`,
          toolName: "read",
          content: maybeNull([{ type: "text", text: text(3) }]),
          isError: r.next() < 0.2,
          timestamp: clock.now
        })
      } else if (op < 0.41) sm.appendMessage(system())
      else if (op < 0.47) {
        sm.appendUsage(
          r.pick(["cache_warm", "title", "compaction"]),
          r.pick(["anthropic", "openai"]),
          r.pick(["m7", "m8"]), // never a model of the messages: usage must not change context.model
          usage,
          r.next() < 0.3 ? `note ${text(1)}` : undefined
        )
      } else if (op < 0.60) {
        // recent targets, so that several edits of one entry are common (the last one wins)
        const candidates = sm.getBranch().filter(editable).slice(-5)
        if (candidates.length > 0) {
          const entry = r.pick(candidates)
          sm.appendContextEdit(entry.id, replacement(entry))
        }
      } else if (op < 0.66) {
        const branch = sm.getBranch()
        const k = r.next()
        sm.appendCompaction(
          `summary ${text(3)}`,
          k < 0.25 ? null : k < 0.9 && branch.length > 0 ? r.pick(branch).id : "00000000",
          1000 + i,
          r.next() < 0.5 ? { readFiles: ["a.ts"], modifiedFiles: [] } : undefined,
          r.next() < 0.2 ? true : undefined,
          r.next() < 0.5 ? usage : undefined
        )
      } else if (op < 0.69) sm.appendModelChange(r.pick(["anthropic", "openai"]), r.pick(["m1", "m2", "m3"]))
      else if (op < 0.71) sm.appendThinkingLevelChange(r.pick(["off", "low", "high"]))
      else if (op < 0.76) {
        sm.appendCustomMessageEntry(
          "note",
          r.next() < 0.15 ? undefined : r.next() < 0.5 ? text(3) : [{ type: "text", text: text(2) }],
          r.next() < 0.5,
          r.next() < 0.5 ? { step: i } : undefined
        )
      } else if (op < 0.78) sm.appendCustomEntry("extension-state", { step: i })
      else if (op < 0.81) sm.appendLabelChange(target, r.next() < 0.7 ? `label ${r.int(4)}` : undefined)
      else if (op < 0.83) sm.appendSessionInfo(`name ${text(1)}`)
      else if (op < 0.90) sm.branch(target)
      else if (op < 0.94) {
        sm.branchWithSummary(
          target,
          `branch summary ${text(2)}`,
          undefined,
          undefined,
          r.next() < 0.5 ? usage : undefined
        )
      } else if (op < 0.96) {
        sm.appendMessage({
          role: "bashExecution",
          command: "ls",
          output: text(2),
          exitCode: 0,
          cancelled: false,
          truncated: false,
          timestamp: clock.now
        })
      } else if (op < 0.97) sm.resetLeaf()
      else sm.appendUsage("cache_warm", "anthropic", "m7", usage)
      remember()
    }
    if (r.next() < 0.3) sm.appendUsage("cache_warm", "anthropic", "m7", usage) // usage as the leaf
  })
  return sm.getSessionFile()
}

/** The rows of a file, the entry map (the last row of an id wins, as in pi) and the leaf's path. */
const pathOf = (rows) => {
  const byId = new Map()
  let leaf
  for (const row of rows.slice(1)) {
    if (typeof row?.id !== "string") continue
    byId.set(row.id, row)
    leaf = row
  }
  const path = []
  const seen = new Set()
  for (let row = leaf; row !== undefined && !seen.has(row); row = byId.get(row.parentId)) {
    seen.add(row)
    path.push(row)
  }
  return { byId, leaf, path: path.reverse() }
}

/** Adds rows pi 1.6's API would refuse (§15: files may hold them); returns the kinds applied. */
export const reshapePi16 = (file, seed) => {
  const r = prng(seed * 11 + 3)
  const lines = readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
  const rows = lines.map(parse)
  const { byId, leaf, path } = pathOf(rows)
  const kinds = []
  const rewrite = (row) => {
    lines[rows.indexOf(row)] = JSON.stringify(row)
  }
  const editsOnPath = path.filter((row) => row.type === "context_edit")
  if (editsOnPath.length > 0 && r.next() < 0.35) {
    const edit = r.pick(editsOnPath)
    const later = path.slice(path.indexOf(edit) + 1).filter(editable)
    if (later.length > 0) {
      edit.targetId = r.pick(later).id
      rewrite(edit)
      kinds.push("crafted-edit-of-a-later-entry")
    }
  }
  const onBlocks = editsOnPath.filter((row) =>
    row.replacement !== null && ["assistant", "toolResult"].includes(byId.get(row.targetId)?.message?.role)
  )
  if (onBlocks.length > 0 && r.next() < 0.4) {
    const edit = r.pick(onBlocks)
    edit.replacement = { content: "a string replacement written by hand" }
    rewrite(edit)
    kinds.push("crafted-string-replacement-on-block-role")
  }
  if (editsOnPath.length > 0 && r.next() < 0.35) {
    const edit = r.pick(editsOnPath)
    const others = path.slice(0, path.indexOf(edit)).filter((row) =>
      ["compaction", "branch_summary", "model_change", "usage"].includes(row.type) ||
      (row.type === "message" && ["system", "bashExecution"].includes(row.message?.role))
    )
    if (others.length > 0) {
      const target = r.pick(others)
      edit.targetId = target.id
      edit.replacement = r.next() < 0.5 ? null : { content: "edit of an entry the API refuses" }
      rewrite(edit)
      kinds.push(`crafted-edit-of-${target.type === "message" ? target.message.role : target.type}`)
    }
  }
  const compactions = path.filter((row) => row.type === "compaction")
  if (compactions.length > 0 && r.next() < 0.25) {
    const compaction = compactions[compactions.length - 1]
    compaction.firstKeptEntryId = null
    rewrite(compaction)
    kinds.push("crafted-literal-null-firstKeptEntryId")
  }
  const withContent = path.filter((row) =>
    row.type === "message" && [...EDITABLE_ROLES, "system"].includes(row.message?.role) && row.message.content != null
  )
  if (withContent.length > 0 && r.next() < 0.25) {
    const row = r.pick(withContent)
    delete row.message.content
    rewrite(row)
    kinds.push(`crafted-missing-content-${row.message.role}`)
  }
  if (leaf !== undefined && r.next() < 0.15) {
    lines.push(JSON.stringify({
      type: "context_edit",
      id: r.hex(),
      parentId: leaf.id,
      timestamp: leaf.timestamp,
      targetId: "0badf00d",
      replacement: null
    }))
    kinds.push("crafted-edit-of-a-missing-entry")
  }
  if (r.next() < 0.25) kinds.push(...commonDamage(lines, r))
  writeFileSync(file, lines.join("\n") + "\n")
  return kinds
}
