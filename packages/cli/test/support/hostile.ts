/**
 * A hostile session: every field a command prints or exports carries markup that would run script
 * in a browser (`<script>`, `<img onerror>`, `<svg onload>`, a `javascript:` link, attribute
 * break-outs), Markdown that a renderer would interpret, and terminal escapes (clear screen, OSC 52
 * clipboard write, title change, a hyperlink, C1 CSI, BEL, DEL, a carriage return).
 */
import { Messages } from "@branchlog/session-core/testing"

/** Terminal escapes: clear screen, OSC 52 clipboard write, title, OSC 8 link, 8-bit CSI, BEL, DEL, CR. */
export const terminal =
  "\u001b[2J\u001b[H\u001b]52;c;cHduZWQ=\u0007\u001b]0;pwned-title\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\\u009b31m\u0090q\u009c\u0007\u007f\u0000\rover"

/**
 * Markup that runs `alert('xss:TAG')` and logs `xss:TAG` if it reaches the page unescaped, from an
 * attribute (either quote) or from text.
 */
export const markup = (tag: string): string =>
  `"'><img src=x onerror="console.log('xss:${tag}');alert('xss:${tag}')">` +
  `<svg onload="console.log('xss:${tag}');alert('xss:${tag}')"></svg>` +
  `<script>console.log('xss:${tag}');alert('xss:${tag}')</script>` +
  `<a id="xss-link-${tag}" href="javascript:console.log('xss:${tag}');alert('xss:${tag}')">x</a>` +
  `<iframe srcdoc="<script>parent.alert('xss:${tag}')</script>"></iframe>`

/** Markdown that a renderer would interpret: a heading, a link, emphasis, a fence, a code span, HTML. */
export const markdown = "\n\n# fake heading\n[md-link](javascript:alert('xss:md')) **bold** `tick` ```` fence\n"

/** One hostile value for field TAG: its name, then terminal escapes, markup and Markdown. */
export const hostile = (tag: string): string => `${tag}${terminal}${markup(tag)}${markdown}`

/** A hostile value without CR or NUL (ids, labels and names: a command line can hold them, and ids are one line). */
const hostileId = (tag: string): string => `${tag}${terminal.replace("\r", "").replace("\u0000", "")}${markup(tag)}`

/** A 1×1 PNG (what a legitimate image block holds). */
export const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/** The ids of the hostile session's entries, by what they are. */
export const ids = {
  user: hostileId("id-user"),
  assistant: hostileId("id-assistant"),
  side: hostileId("id-side"),
  result: hostileId("id-result"),
  role: hostileId("id-role"),
  model: hostileId("id-model"),
  thinking: hostileId("id-thinking"),
  custom: hostileId("id-custom"),
  customMessage: hostileId("id-custom-message"),
  bash: hostileId("id-bash"),
  customRole: hostileId("id-custom-role"),
  compaction: hostileId("id-compaction"),
  branchSummary: hostileId("id-branch-summary"),
  label: hostileId("id-label"),
  name: hostileId("id-name"),
  leaf: hostileId("id-leaf")
} as const

/** The hostile role: breaks out of the class attribute the old page put it in. */
export const role = `user" onmouseover="alert('xss:role-attr')" x="${hostileId("role")}`

/** The session's lines (JSONL, with a final newline): a tree with one side branch, hostile everywhere. */
export const sessionText = (): string => {
  const rows: Array<Record<string, unknown>> = []
  let previous: string | null = null
  let second = 0
  const add = (id: string, fields: Record<string, unknown>) => {
    second++
    rows.push({
      id,
      parentId: previous,
      timestamp: second % 3 === 0 ? hostileId("timestamp") : `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`,
      ...fields
    })
    previous = id
  }
  add(ids.user, { type: "message", message: { role: "user", content: hostile("user-text"), timestamp: 1 } })
  // a side branch off the first message (the page shows it collapsed); the main line goes on after it
  add(ids.side, { type: "message", message: { role: "user", content: hostile("side-text"), timestamp: 8 } })
  previous = ids.user
  add(ids.assistant, {
    type: "message",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: hostile("thinking-text") },
        { type: "text", text: hostile("assistant-text") },
        {
          type: "toolCall",
          id: hostileId("tool-call-id"),
          name: hostile("tool-name"),
          arguments: { command: hostile("tool-argument"), [hostileId("tool-argument-key")]: 1 }
        }
      ],
      api: hostile("api"),
      provider: hostile("provider"),
      model: hostile("model"),
      usage: Messages.testUsage,
      stopReason: "toolUse",
      timestamp: 2
    }
  })
  add(ids.result, {
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: hostileId("tool-call-id"),
      toolName: hostile("tool-result-name"),
      content: [
        { type: "text", text: hostile("tool-result-text") },
        { type: "image", mimeType: `image/png" onerror="alert('xss:mime')`, data: png },
        { type: "image", mimeType: "text/html", data: btoa("<script>alert('xss:html-image')</script>") },
        { type: "image", mimeType: "image/svg+xml", data: btoa("<svg onload=\"alert('xss:svg-image')\"/>") },
        { type: "image", mimeType: "image/png", data: `${png}" onerror="alert('xss:image-data')` },
        { type: "image", mimeType: "image/png", data: png }
      ],
      isError: true,
      timestamp: 3
    }
  })
  add(ids.role, { type: "message", message: { role, content: hostile("role-text"), timestamp: 4 } })
  add(ids.model, { type: "model_change", provider: hostile("model-provider"), modelId: hostile("model-id") })
  add(ids.thinking, { type: "thinking_level_change", thinkingLevel: hostile("thinking-level") })
  add(ids.custom, { type: "custom", customType: hostile("custom-type"), data: { [hostileId("key")]: hostile("data") } })
  add(ids.customMessage, {
    type: "custom_message",
    customType: hostile("custom-message-type"),
    content: hostile("custom-message-text"),
    display: true
  })
  add(ids.bash, {
    type: "message",
    message: {
      role: "bashExecution",
      command: hostile("bash-command"),
      output: hostile("bash-output"),
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5
    }
  })
  add(ids.customRole, {
    type: "message",
    message: {
      role: "custom",
      customType: hostile("custom-role-type"),
      content: hostile("custom-role-text"),
      display: true,
      timestamp: 6
    }
  })
  add(ids.compaction, {
    type: "compaction",
    summary: hostile("compaction-summary"),
    firstKeptEntryId: ids.role,
    tokensBefore: 10
  })
  add(ids.branchSummary, { type: "branch_summary", fromId: ids.side, summary: hostile("branch-summary") })
  add(ids.label, { type: "label", targetId: ids.assistant, label: hostileId("label") })
  add(ids.name, { type: "session_info", name: hostileId("session-name") })
  add(ids.leaf, { type: "message", message: { role: "user", content: hostile("leaf-text"), timestamp: 7 } })
  const header = {
    type: "session",
    version: 3,
    id: `\u001b]0;t\u0007${hostileId("session-id")}`,
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: hostileId("cwd")
  }
  return [header, ...rows].map((row) => JSON.stringify(row)).join("\n") + "\n"
}
