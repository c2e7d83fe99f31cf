/**
 * The export page's own style and script, and the Content-Security-Policy that lets only them run
 * (by their SHA-256 hashes): no inline handler, no injected element, no fetched resource.
 */
import { createHash } from "node:crypto"

/** The page's style. */
export const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;background:#fafafa;padding:0 1em}
h1{font-size:1.3em} ol{list-style:none;padding-left:0;margin:0} .fork{padding-left:1.2em;border-left:2px solid #ddd;margin:.3em 0}
.toolbar{position:sticky;top:0;z-index:1;background:#fafafa;padding:.4em 0;border-bottom:1px solid #e3e3e3;display:flex;gap:.8em;align-items:center;flex-wrap:wrap}
.toolbar input[type=search]{font:inherit;padding:.2em .5em;min-width:18em;border:1px solid #bbb;border-radius:4px}
.entry{background:#fff;border:1px solid #e3e3e3;border-radius:6px;margin:.35em 0;padding:.4em .7em}
.large main>.run>.entry,.large .branch>.run>.entry,.large .past-section>.run>.entry{content-visibility:auto;contain-intrinsic-size:auto 6em}
.entry.on-path{border-color:#2a7a2a;box-shadow:inset 4px 0 0 #2a7a2a}
.entry.leaf{background:#f0fff0}
.entry.past{background:#f3f3f3;color:#555;border-style:dashed}
.entry.past.on-path{border-color:#8a8;box-shadow:inset 4px 0 0 #8a8}
.past-mark{margin:.8em 0 .3em;padding:.3em .7em;color:#555;font-weight:600;border-top:2px dashed #bbb}
.past-section>.run{padding-left:.6em;border-left:3px solid #ccc}
.kind-compaction{background:#fff8e6}
.head{color:#555;font-size:.9em} .kind{font-weight:600;color:#222} time{color:#888}
.label{background:#ffe58a;border-radius:4px;padding:0 .4em} .leaf-mark{background:#2a7a2a;color:#fff;border-radius:4px;padding:0 .4em}
.error-mark{background:#b3261e;color:#fff;border-radius:4px;padding:0 .4em} .note{color:#777;font-style:italic}
pre{white-space:pre-wrap;word-break:break-word;margin:.3em 0;font:13px/1.4 ui-monospace,monospace}
pre.tool{background:#f4f4f8;padding:.4em;max-height:30em;overflow:auto}
.md>:first-child{margin-top:.2em} .md>:last-child{margin-bottom:.2em}
.md pre{background:#f4f4f8;padding:.4em} .md code{font:13px ui-monospace,monospace;background:#f4f4f8;padding:0 .2em}
.md pre code{padding:0} .md blockquote{margin:.3em 0;padding-left:.8em;border-left:3px solid #ddd;color:#555}
.md h1{font-size:1.25em} .md h2{font-size:1.15em} .md h3,.md h4,.md h5,.md h6{font-size:1em}
.md table{border-collapse:collapse} .md td,.md th{border:1px solid #ddd;padding:.2em .5em}
.align-right{text-align:right} .align-center{text-align:center} .align-left{text-align:left}
.summary{background:#fff8e6;padding:.1em .5em;border-radius:4px}
.tool-call{margin:.3em 0;border:1px solid #dde;border-radius:5px;padding:.3em .5em;background:#fbfbfe}
.call-head{font-size:.9em;color:#335}
.results .entry{margin:.3em 0 0;border-color:#dde;box-shadow:none}
.results .entry.kind-toolResult{background:#f7f7fb}
.thinking{margin:.3em 0;color:#555} .thinking>summary,.thinking-label{font-style:italic;color:#557}
.thinking>.md{border-left:3px solid #dde;padding-left:.7em}
details>summary{cursor:pointer;color:#335} .branch>summary{font-weight:600}
.branch.on-path>summary{color:#2a7a2a}
.image img{max-width:100%;max-height:30em;border:1px solid #e3e3e3}
.no-match{display:none}
.hide-tools .tool-call,.hide-tools .entry.tool{display:none}
::highlight(search){background:#ffe58a;color:#000}
`

/**
 * The page's own script: the buttons that open or close every branch, the search box and the
 * "hide tools" filter. It reads the page, never the session, and adds no markup.
 */
export const script = `
const branchlog = { timer: 0, opened: new Set() }
const openAround = (element, opened) => {
  for (let d = element.closest("details"); d !== null && !opened.has(d); d = d.parentElement.closest("details")) {
    if (d.open) continue
    opened.add(d)
    d.open = true
  }
}
const search = (query) => {
  const q = query.trim().toLowerCase()
  let shown = 0
  // what the last search opened closes again; this one opens what holds its matches
  for (const details of branchlog.opened) details.open = false
  const opened = new Set()
  branchlog.opened = opened
  for (const item of document.querySelectorAll("li.entry")) {
    const hit = q === "" || item.textContent.toLowerCase().includes(q)
    item.classList.toggle("no-match", !hit)
    if (hit && q !== "") {
      shown++
      openAround(item, opened)
    }
  }
  for (const details of document.querySelectorAll("details.thinking")) {
    if (q === "" || details.open || !details.textContent.toLowerCase().includes(q)) continue
    opened.add(details)
    details.open = true
  }
  const status = document.getElementById("search-status")
  if (status !== null) status.textContent = q === "" ? "" : shown + (shown === 1 ? " entry matches" : " entries match")
  if (typeof CSS === "undefined" || !("highlights" in CSS) || typeof Highlight === "undefined") return
  CSS.highlights.delete("search")
  if (q === "") return
  const ranges = []
  const walker = document.createTreeWalker(document.querySelector("main") ?? document.body, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node !== null && ranges.length !== 300; node = walker.nextNode()) {
    const text = node.data.toLowerCase()
    for (let at = text.indexOf(q); at !== -1 && ranges.length !== 300; at = text.indexOf(q, at + q.length)) {
      const range = new Range()
      range.setStart(node, at)
      range.setEnd(node, at + q.length)
      ranges.push(range)
    }
  }
  CSS.highlights.set("search", new Highlight(...ranges))
}
document.addEventListener("input", (event) => {
  const input = event.target
  if (!(input instanceof HTMLInputElement) || input.id !== "search") return
  clearTimeout(branchlog.timer)
  branchlog.timer = setTimeout(() => search(input.value), 100)
})
document.addEventListener("change", (event) => {
  const input = event.target
  if (input instanceof HTMLInputElement && input.id === "hide-tools") {
    document.body.classList.toggle("hide-tools", input.checked)
  }
})
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-branches]") : null
  if (button === null) return
  const open = button.getAttribute("data-branches") === "open"
  for (const details of document.querySelectorAll("details.branch")) details.open = open
})
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/**
 * The page's Content-Security-Policy: nothing is loaded or run but the page's own style and script
 * (by hash: no inline handler, no injected element runs), images only from `data:` URLs, no
 * plugins, no `<base>`, no form posts.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "img-src data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'"
].join("; ")
