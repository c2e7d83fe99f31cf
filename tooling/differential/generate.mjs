// Random session files for the differential run: a session written through pi's own
// SessionManager API (so its rows are exactly what pi writes), then damaged or extended on purpose.
// Every shape is seeded: the same seed gives the same bytes.
import { readFileSync, writeFileSync } from "node:fs"

/** A seeded PRNG (mulberry32) with helpers. */
export const prng = (seed) => {
  let s = seed | 0
  const next = () => {
    s = s + 0x6d2b79f5 | 0
    let t = Math.imul(s ^ s >>> 15, 1 | s)
    t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t
    return ((t ^ t >>> 14) >>> 0) / 4294967296
  }
  const pick = (items) => items[Math.floor(next() * items.length)]
  return {
    next,
    pick,
    int: (n) => Math.floor(next() * n),
    hex: () => Math.floor(next() * 0xffffffff).toString(16).padStart(8, "0")
  }
}

/** The words random texts are made of. */
export const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split(" ")
/** The usage every generated assistant message carries. */
export const usage = {
  input: 10,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 30,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }
}

/** Runs `f` with `new Date()` and `Date.now()` reading `clock.now` (pi stamps rows with them). */
export const withClock = (clock, f) => {
  const RealDate = globalThis.Date
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(clock.now)
      else super(...args)
    }
    static now() {
      return clock.now
    }
  }
  try {
    return f()
  } finally {
    globalThis.Date = RealDate
  }
}

/** A session of `ops` random operations written by pi into `dir`; returns the file. */
export const piSession = (PiSessionManager, dir, seed, ops) => {
  const r = prng(seed)
  const text = (n) => Array.from({ length: n }, () => r.pick(words)).join(" ")
  const clock = { now: 1_777_000_000_000 }
  const sm = PiSessionManager.create("/home/dev/project", dir)
  const ids = []
  const remember = () => {
    const leaf = sm.getLeafId()
    if (leaf !== null && !ids.includes(leaf)) ids.push(leaf)
  }
  const assistant = (stopReason) => ({
    role: "assistant",
    content: [
      ...(r.next() < 0.5 ? [{ type: "thinking", thinking: text(2) }] : []),
      { type: "text", text: text(4) },
      ...(stopReason === "toolUse"
        ? [{ type: "toolCall", id: `call_${r.hex()}`, name: "read", arguments: { path: text(1) } }]
        : [])
    ],
    api: "anthropic-messages",
    provider: r.pick(["anthropic", "openai"]),
    model: r.pick(["m1", "m2"]),
    usage,
    stopReason,
    timestamp: clock.now
  })
  withClock(clock, () => {
    sm.appendMessage({ role: "user", content: text(5), timestamp: clock.now })
    remember()
    sm.appendMessage(assistant("stop"))
    remember()
    for (let i = 0; i < ops; i++) {
      if (r.next() < 0.7) clock.now += r.int(3) * 1000 // equal timestamps are common: sibling order must be stable
      const op = r.next()
      const target = r.pick(ids)
      if (op < 0.25) {
        sm.appendMessage({
          role: "user",
          content: r.next() < 0.5 ? text(4) : [{ type: "text", text: text(3) }],
          timestamp: clock.now
        })
      } else if (op < 0.45) sm.appendMessage(assistant(r.pick(["stop", "toolUse", "aborted", "error"])))
      else if (op < 0.52) {
        sm.appendMessage({
          role: "toolResult",
          toolCallId: `call_${r.hex()}`,
          toolName: "read",
          content: r.next() < 0.7
            ? [{ type: "text", text: text(3) }]
            : [{ type: "text", text: text(2) }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
          isError: r.next() < 0.2,
          timestamp: clock.now
        })
      } else if (op < 0.56) sm.appendThinkingLevelChange(r.pick(["off", "low", "medium", "high"]))
      else if (op < 0.60) sm.appendModelChange(r.pick(["anthropic", "openai"]), r.pick(["m1", "m2", "m3"]))
      else if (op < 0.65) {
        sm.appendCompaction(
          `summary ${text(3)}`,
          r.next() < 0.85 ? r.pick(ids) : "00000000",
          1000 + i,
          r.next() < 0.5 ? { readFiles: ["a.ts"], modifiedFiles: [] } : undefined,
          r.next() < 0.3 ? true : undefined
        )
      } else if (op < 0.70) sm.appendLabelChange(target, r.next() < 0.7 ? `label ${r.int(4)}` : r.pick(["", undefined]))
      else if (op < 0.73) sm.appendSessionInfo(r.next() < 0.8 ? `  name ${text(1)} ` : "   ")
      else if (op < 0.77) sm.appendCustomEntry("extension-state", { step: i })
      else if (op < 0.82) {
        sm.appendCustomMessageEntry(
          "note",
          r.next() < 0.5 ? text(3) : [{ type: "text", text: text(2) }],
          r.next() < 0.5,
          r.next() < 0.5 ? { step: i } : undefined
        )
      } else if (op < 0.90) sm.branch(target)
      else if (op < 0.95) {
        sm.branchWithSummary(
          r.next() < 0.1 ? null : target,
          `branch summary ${text(2)}`,
          r.next() < 0.5 ? { readFiles: [] } : undefined,
          r.next() < 0.2 ? true : undefined
        )
      } else if (op < 0.97) sm.resetLeaf()
      else {
        sm.appendMessage({
          role: "bashExecution",
          command: "ls",
          output: text(2),
          exitCode: 0,
          cancelled: false,
          truncated: false,
          timestamp: clock.now,
          ...(r.next() < 0.3 ? { excludeFromContext: true } : {})
        })
      }
      remember()
    }
  })
  return sm.getSessionFile()
}

/** `JSON.parse`, or undefined for a line that is not JSON. */
export const parse = (line) => {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/** Damage both references read the same way (pi's own shapes). Returns the kinds applied. */
export const commonDamage = (lines, r) => {
  const at = () => 1 + r.int(lines.length - 1)
  const m = r.next()
  if (m < 0.12) {
    lines.splice(at(), 1)
    return ["missing-row"] // orphans
  }
  if (m < 0.22) {
    lines.splice(at(), 0, "{not json")
    return ["corrupt-line"]
  }
  if (m < 0.30) {
    for (let i = 1; i < lines.length; i++) {
      if (r.next() < 0.3) {
        lines[i] = lines[i].replace(
          /"timestamp":"(\d{4}-\d\d-\d\dT)(\d\d)(:\d\d:\d\d\.\d{3})Z"/,
          (_, day, hour, rest) => `"timestamp":"${day}${String((+hour + 2) % 24).padStart(2, "0")}${rest}+02:00"`
        )
      }
    }
    return ["offset-timestamps"]
  }
  if (m < 0.38) {
    const i = at()
    lines.splice(Math.min(lines.length, i + 1 + r.int(5)), 0, lines[i])
    return ["duplicate-row"]
  }
  if (m < 0.46) {
    const i = 1 + r.int(lines.length - 2)
    const j = Math.min(lines.length - 1, i + 1 + r.int(3))
    ;[lines[i], lines[j]] = [lines[j], lines[i]]
    return ["child-before-parent"]
  }
  if (m < 0.50) {
    const last = parse(lines[lines.length - 1])
    lines.push(JSON.stringify({
      type: "label",
      id: r.hex(),
      parentId: last?.id ?? null,
      timestamp: "2026-04-24T03:06:40.000Z",
      targetId: "deadbeef",
      label: "dangling"
    }))
    return ["dangling-label"]
  }
  return []
}

/** Rows only OpenClaw understands, and the content shapes it normalizes. */
const openclawRows = (lines, r) => {
  const kinds = []
  const ids = () => lines.slice(1).map((l) => parse(l)?.id).filter((id) => typeof id === "string")
  const lastId = () => {
    for (let i = lines.length - 1; i > 0; i--) {
      const id = parse(lines[i])?.id
      if (typeof id === "string") return id
    }
    return null
  }
  const ts = "2026-04-24T03:06:40.000Z"
  for (let c = r.int(5); c > 0; c--) {
    const k = r.next()
    if (k < 0.25) {
      const target = r.next() < 0.1 ? null : r.next() < 0.15 ? "0badf00d" : r.pick(ids())
      const side = r.next() < 0.5
        ? { appendParentId: r.next() < 0.8 ? lastId() : r.pick(ids()), appendMode: "side" }
        : {}
      lines.push(
        JSON.stringify({ type: "leaf", id: r.hex(), parentId: lastId(), timestamp: ts, targetId: target, ...side })
      )
      kinds.push("leaf-control")
    } else if (k < 0.45) {
      lines.push(JSON.stringify({
        type: "custom_message",
        customType: "announce",
        content: "side note",
        display: true,
        id: r.hex(),
        parentId: lastId(),
        timestamp: ts,
        appendMode: "side"
      }))
      kinds.push("side-append")
    } else if (k < 0.60) {
      const opaque = { type: "openclaw.delivery", id: r.hex(), parentId: lastId(), timestamp: ts, status: "sent" }
      lines.push(JSON.stringify(opaque))
      lines.push(JSON.stringify({
        type: "message",
        id: r.hex(),
        parentId: opaque.id,
        timestamp: ts,
        message: { role: "user", content: "after an opaque row", timestamp: 1 }
      }))
      kinds.push("opaque-parent")
    } else if (k < 0.68) {
      lines.splice(1 + r.int(lines.length - 1), 0, JSON.stringify({ type: "x-unknown", note: "kept" }))
      kinds.push("opaque-row")
    } else if (k < 0.76) {
      const i = 1 + r.int(lines.length - 1)
      const row = parse(lines[i])
      if (row?.type === "message" && (row.message?.role === "assistant" || row.message?.role === "toolResult")) {
        row.message.content = r.next() < 0.7 ? "plain text content" : { type: "text", text: "object content" }
        lines[i] = JSON.stringify(row)
        kinds.push("content-shape")
      }
    } else if (k < 0.84) {
      const i = 2 + r.int(lines.length - 2)
      const row = parse(lines[i])
      if (typeof row?.id === "string" && row.type !== "session") {
        delete row.parentId
        lines[i] = JSON.stringify(row)
        kinds.push("no-parentId")
      }
    } else if (k < 0.92) {
      lines.splice(1 + r.int(lines.length - 1), 0, lines[0])
      kinds.push("second-header")
    } else {
      lines.unshift(JSON.stringify({ type: "x-before-header", id: r.hex() }))
      kinds.push("row-before-header")
    }
  }
  return kinds
}

/** Version 1: the path to the leaf only, without ids, compactions by index, no version. */
const toVersion1 = (lines, r) => {
  const rows = lines.map(parse)
  const byId = new Map(rows.slice(1).map((row) => [row.id, row]))
  const path = []
  for (let row = rows[rows.length - 1]; row !== undefined; row = byId.get(row.parentId)) path.unshift(row)
  const kept = [
    rows[0],
    ...path.filter((row) => ["message", "thinking_level_change", "model_change", "compaction"].includes(row.type))
  ]
  delete kept[0].version
  const index = new Map(kept.map((row, i) => [row.id, i]))
  for (const row of kept.slice(1)) {
    if (row.type === "compaction") {
      row.firstKeptEntryIndex = r.next() < 0.1
        ? 0
        : r.next() < 0.1
        ? kept.length + 5
        : index.get(row.firstKeptEntryId) ?? 1
      delete row.firstKeptEntryId
    }
    delete row.id
    delete row.parentId
  }
  return kept.map((row) => JSON.stringify(row))
}

/** The shapes: `v3` (pi's rows, damaged), `openclaw` (plus OpenClaw's rows), `v2`, `v1`. */
export const SHAPES = ["v3", "openclaw", "v2", "v1"]

/** Rewrites `file` into `shape`; returns the kinds of change applied (for the report). */
export const reshape = (file, shape, seed) => {
  const r = prng(seed * 7 + 1)
  let lines = readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
  let kinds = []
  if (shape === "v1") {
    lines = toVersion1(lines, r)
    kinds = ["v1"]
  } else {
    kinds = commonDamage(lines, r)
    if (shape === "openclaw") kinds.push(...openclawRows(lines, r))
    if (shape === "v2") {
      const header = parse(lines[0])
      header.version = 2
      lines[0] = JSON.stringify(header)
      const i = 1 + r.int(lines.length - 1)
      lines.splice(
        i + 1,
        0,
        JSON.stringify({
          type: "message",
          id: r.hex(),
          parentId: parse(lines[i])?.id ?? null,
          timestamp: "2026-04-24T03:06:40.000Z",
          message: { role: "hookMessage", customType: "hook", content: "from a hook", display: true, timestamp: 5 }
        })
      )
      kinds.push("v2", "hookMessage")
    }
  }
  const torn = shape !== "v1" && r.next() < 0.06
  const text = lines.join("\n") + "\n"
  writeFileSync(file, torn ? text.slice(0, text.length - 1 - Math.floor(lines[lines.length - 1].length / 2)) : text)
  return torn ? [...kinds, "torn-tail"] : kinds
}
