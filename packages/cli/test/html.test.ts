/**
 * The export page's renderer, unit by unit: Markdown through markdown-it (raw HTML as text, only
 * safe links, no image loaded, no inline style), thinking, tool calls paired with their results,
 * and the history before a compaction.
 */
import { Line, SessionState } from "@branchlog/session-core"
import { describe, expect, it } from "vitest"
import { render } from "../src/internal/html.js"
import { toHtml } from "../src/internal/htmlMarkdown.js"

const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/x"
})

/** A page for rows given as objects (ids, parents and timestamps filled in when missing: a chain). */
const page = (rows: ReadonlyArray<Record<string, unknown>>): string => {
  let previous: unknown = null
  const lines = rows.map((row, i) => {
    const full: Record<string, unknown> = {
      parentId: previous,
      timestamp: `2026-01-01T00:${String(i).padStart(2, "0")}:00.000Z`,
      ...row
    }
    previous = full.id
    return JSON.stringify(full)
  })
  return render(SessionState.fromRecords(Line.parseText([header, ...lines].join("\n") + "\n")), "t")
}

const user = (id: string, content: unknown) => ({
  type: "message",
  id,
  message: { role: "user", content, timestamp: 1 }
})
const assistant = (id: string, content: ReadonlyArray<Record<string, unknown>>) => ({
  type: "message",
  id,
  message: { role: "assistant", content, stopReason: "stop", timestamp: 2 }
})
const call = (id: string, name: string) => ({ type: "toolCall", id, name, arguments: { path: `${name}.ts` } })
const result = (id: string, callId: string, text: string) => ({
  type: "message",
  id,
  message: { role: "toolResult", toolCallId: callId, toolName: "Read", content: [{ type: "text", text }], timestamp: 3 }
})

/** Where the `<li>` of an entry starts in the page. */
const at = (html: string, id: string) => html.indexOf(`data-id="${id}"`)

describe("Markdown", () => {
  it("renders Markdown and shows raw HTML as text", () => {
    const html = toHtml("# Title\n\n**bold** and `code`\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>")
    expect(html).toContain("<h1>Title</h1>")
    expect(html).toContain("<strong>bold</strong>")
    expect(html).toContain("<code>code</code>")
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain("&lt;img src=x onerror=alert(2)&gt;")
    expect(html).not.toMatch(/<script|<img/i)
  })

  it("keeps only http, https and mailto links, with rel=noopener noreferrer", () => {
    const html = toHtml(
      [
        "[a](javascript:alert(1))",
        "[b](JAVASCRIPT:alert(1))",
        "[c](java&#x73;cript:alert(1))",
        "<javascript:alert(1)>",
        "[d](vbscript:msgbox(1))",
        "[e](data:text/html,<script>alert(1)</script>)",
        "[f](file:///etc/passwd)",
        "[g](relative/path)",
        "[ok](https://example.org/a?b=1 \"title\")",
        "<https://example.org/auto>",
        "[mail](mailto:me@example.org)"
      ].join("\n\n")
    )
    const hrefs = [...html.matchAll(/<a\s([^>]*)>/g)].map(([, attributes]) => attributes!)
    expect(hrefs).toEqual([
      "href=\"https://example.org/a?b=1\" title=\"title\" rel=\"noopener noreferrer\"",
      "href=\"https://example.org/auto\" rel=\"noopener noreferrer\"",
      "href=\"mailto:me@example.org\" rel=\"noopener noreferrer\""
    ])
    expect(html).toContain("[a](javascript:alert(1))")
    expect(html).not.toMatch(/href="(?!https:|mailto:)/)
  })

  it("loads no image, writes no style attribute, and makes a fence's language a safe class", () => {
    const html = toHtml(
      "![alt text](https://tracker.example/p.png)\n\n| a | b |\n|--:|:-:|\n| 1 | 2 |\n\n```\"><script>x\ncode\n```\n"
    )
    expect(html).not.toContain("<img")
    expect(html).toContain("[image: alt text · https://tracker.example/p.png]")
    expect(html).not.toContain("style=")
    expect(html).toContain("<th class=\"align-right\">a</th>")
    expect(html).toContain("<td class=\"align-center\">2</td>")
    for (const [, value] of html.matchAll(/class="([^"]*)"/g)) expect(value).toMatch(/^[A-Za-z0-9_ -]*$/)
  })

  it("shows text nested too deeply for the renderer as it is, rather than losing what follows", () => {
    for (
      const text of [
        `${">".repeat(150)} hidden text\n\nafter`,
        Array.from({ length: 150 }, (_, i) => `${"  ".repeat(i)}- item${i}`).join("\n") + "\n\nafter",
        `${"*".repeat(300)}deep${"*".repeat(300)} after`,
        `${"[".repeat(300)}x${"](https://e.org)".repeat(300)} after`
      ]
    ) {
      const html = toHtml(text)
      expect(html, text.slice(0, 20)).toContain("after")
    }
    expect(toHtml(`${">".repeat(150)} <b>x</b>`)).toMatch(
      /^<pre class="md-raw">(?:&gt;)+ &lt;b&gt;x&lt;\/b&gt;<\/pre>$/
    )
  })

  it("shows control characters", () => {
    expect(toHtml("a\u001b[2Jb")).toContain("a␛[2Jb")
  })
})

describe("the page", () => {
  it("renders a message's Markdown, not monospace text", () => {
    const html = page([user("u1", "a *list*:\n\n- one\n- two"), assistant("a1", [{ type: "text", text: "**done**" }])])
    expect(html).toContain("<em>list</em>")
    expect(html).toContain("<li>one</li>")
    expect(html).toContain("<strong>done</strong>")
  })

  it("collapses thinking under Thinking; a thinking-only turn shows that, never an empty box", () => {
    const html = page([
      user("u1", "hi"),
      assistant("a1", [{ type: "thinking", thinking: "first *think*" }]),
      assistant("a2", [{ type: "thinking", thinking: "", thinkingSignature: "sig" }]),
      assistant("a3", [{ type: "thinking", thinking: "x", redacted: true }, { type: "text", text: "answer" }])
    ])
    const one = html.slice(at(html, "a1"), at(html, "a2"))
    expect(one).toMatch(
      /<details class="thinking"><summary>Thinking<\/summary><div class="md"><p>first <em>think<\/em>/
    )
    expect(one).not.toContain(" open")
    const two = html.slice(at(html, "a2"), at(html, "a3"))
    expect(two).toContain("Thinking</span> <span class=\"note\">(its text was not recorded)</span>")
    expect(html).not.toContain("(no content)")
    expect(html.slice(at(html, "a3"))).toContain("<summary>Thinking</summary>")
  })

  it("shows each tool call's result under it, parallel calls in one message", () => {
    const html = page([
      user("u1", "go"),
      assistant("a1", [{ type: "thinking", thinking: "both" }, call("c1", "Read"), call("c2", "Grep")]),
      result("r2", "c2", "grep output"),
      result("r1", "c1", "read output"),
      assistant("a2", [{ type: "text", text: "done" }])
    ])
    const read = html.indexOf("Tool call <b>Read</b>")
    const grep = html.indexOf("Tool call <b>Grep</b>")
    expect(read).toBeGreaterThan(at(html, "a1"))
    expect(at(html, "r1")).toBeGreaterThan(read)
    expect(at(html, "r1")).toBeLessThan(grep)
    expect(at(html, "r2")).toBeGreaterThan(grep)
    expect(at(html, "a2")).toBeGreaterThan(at(html, "r2"))
    // the results are inside their calls' lists, marked as paired
    expect(html).toMatch(/<ol class="results"><li class="entry kind-toolResult tool on-path paired"[^>]*data-id="r1"/)
    expect(html).toMatch(/<ol class="results"><li class="entry kind-toolResult tool on-path paired"[^>]*data-id="r2"/)
  })

  it("pairs parallel calls written one per entry (as Claude Code imports are), and leaves a stray result in place", () => {
    const html = page([
      user("u1", "go"),
      assistant("a1", [call("c1", "Read")]),
      assistant("a2", [call("c2", "Bash")]),
      result("r1", "c1", "one"),
      result("r2", "c2", "two"),
      user("u2", "next"),
      result("r3", "c9", "a result whose call is not here")
    ])
    expect(at(html, "r1")).toBeGreaterThan(at(html, "a1"))
    expect(at(html, "r1")).toBeLessThan(at(html, "a2"))
    expect(at(html, "r2")).toBeGreaterThan(at(html, "a2"))
    expect(at(html, "u2")).toBeGreaterThan(at(html, "r2"))
    expect(html).toMatch(/class="entry kind-toolResult tool on-path leaf" id="entry-r3"/)
    // calls that are only calls are what "hide tools" hides
    expect(html).toMatch(/class="entry kind-assistant tool tools-only on-path" id="entry-a1"/)
  })

  it("shows the path before a compaction muted, as the past, in the main flow", () => {
    const html = page([
      user("u1", "old question"),
      assistant("a1", [{ type: "text", text: "old answer" }]),
      user("u2", "kept"),
      { type: "compaction", id: "c1", summary: "the **summary**", firstKeptEntryId: "u2", tokensBefore: 100 },
      user("u3", "new")
    ])
    expect(html.match(/class="past-mark"/g)).toHaveLength(1)
    expect(html.indexOf("past-mark")).toBeLessThan(at(html, "u1"))
    expect(html).toMatch(/class="entry kind-user on-path past" id="entry-u1"/)
    expect(html).toMatch(/class="entry kind-assistant on-path past" id="entry-a1"/)
    expect(html).toMatch(/class="entry kind-user on-path" id="entry-u2"/)
    expect(html).toContain("<strong>summary</strong>")
    expect(html).not.toContain("<details class=\"branch")
  })

  it("shows an imported compaction's older sibling as the conversation before it, not as a branch", () => {
    const html = page([
      { type: "custom", id: "imp", customType: "branchlog.import", data: {} },
      user("u1", "the conversation before"),
      assistant("a1", [{ type: "text", text: "its answer" }]),
      {
        type: "compaction",
        id: "c1",
        parentId: "imp",
        summary: "what came before",
        firstKeptEntryId: "c1",
        tokensBefore: 100
      },
      user("u2", "after")
    ])
    expect(html).not.toContain("<details class=\"branch")
    const section = html.indexOf("<li class=\"past-section\">")
    expect(section).toBeGreaterThan(at(html, "imp"))
    expect(section).toBeLessThan(at(html, "u1"))
    expect(at(html, "c1")).toBeGreaterThan(at(html, "a1"))
    expect(html).toMatch(/class="entry kind-user past" id="entry-u1"/)
    expect(html).toMatch(/class="entry kind-compaction on-path" id="entry-c1"/)
    expect(html).toContain("Before the compaction: 2 entries that it summarised")
  })

  it("keeps a real branch a branch when the compaction has its own history", () => {
    const html = page([
      user("u1", "q"),
      assistant("a1", [{ type: "text", text: "abandoned" }]),
      { ...assistant("a2", [{ type: "text", text: "taken" }]), parentId: "u1" },
      { type: "compaction", id: "c1", summary: "s", firstKeptEntryId: "c1", tokensBefore: 1 },
      user("u2", "after")
    ])
    expect(html).toContain("<details class=\"branch\"><summary>branch from a1")
    expect(html).not.toContain("<li class=\"past-section\"")
    expect(html).toMatch(/class="entry kind-user on-path past" id="entry-u1"/)
  })
})
