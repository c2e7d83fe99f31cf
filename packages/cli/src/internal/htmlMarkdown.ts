/**
 * Markdown of a session's messages rendered as HTML for the export page, safely: markdown-it with
 * raw HTML off (a message's `<script>` is shown as text), links only to `http:`, `https:` and
 * `mailto:` (anything else stays text), no image loaded (a Markdown image becomes its alt text
 * and address as text, so the page's policy never has to refuse one), no inline style (table
 * alignment becomes a class) and class names reduced to safe tokens.
 */
import MarkdownIt from "markdown-it"
import type { Token } from "markdown-it"
import { attribute, classToken } from "./htmlText.js"
import { visible } from "./safeText.js"

const allowedLink = /^(?:https?:\/\/|mailto:)/i

const md = new MarkdownIt("default", { html: false, linkify: false, typographer: false, breaks: false })

md.validateLink = (url: string): boolean => allowedLink.test(url.trim())

// alignment of table cells as a class (a `style` attribute would need 'unsafe-inline');
// a fence's language as a token (it becomes a class)
md.core.ruler.push("branchlog_safe_attributes", (state) => {
  for (const token of state.tokens) {
    if (token.type === "fence") token.info = classToken(token.info.trim().split(/\s+/)[0] ?? "").replace(/^_+$/, "")
    const style = token.attrGet("style")
    if (style !== null) {
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style")
      const align = /text-align:(left|right|center)/.exec(String(style))
      if (align) token.attrJoin("class", `align-${align[1]}`)
    }
  }
  return true
})

md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!
  const alt = token.children === null ? token.content : token.children.map((child) => child.content).join("")
  return `<span class="md-image">[image${alt === "" ? "" : `: ${attribute(alt)}`} · ${
    attribute(token.attrGet("src") ?? "")
  }]</span>`
}

const defaultLinkOpen = md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet("rel", "noopener noreferrer")
  return defaultLinkOpen(tokens, idx, options, env, self)
}

/** The deepest nesting of a token (markdown-it stops parsing at `maxNesting` and drops the rest). */
const deepest = (tokens: ReadonlyArray<Token>): number => {
  let level = 0
  const stack = [tokens]
  while (stack.length > 0) {
    for (const token of stack.pop()!) {
      if (token.level > level) level = token.level
      if (token.children !== null) stack.push(token.children)
    }
  }
  return level
}

/**
 * `text` (Markdown from a session) as HTML: control characters made visible, raw HTML as text,
 * only safe links. Text nested too deeply for the renderer (which would drop what follows) is
 * shown as it is, preformatted.
 */
export const toHtml = (text: string): string => {
  const source = visible(text)
  const env = {}
  const tokens = md.parse(source, env)
  return deepest(tokens) >= md.options.maxNesting - 2
    ? `<pre class="md-raw">${attribute(source)}</pre>`
    : md.renderer.render(tokens, md.options, env)
}
