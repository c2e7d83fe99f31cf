/// <reference lib="dom" />
import { fixtures } from "@branchlog/tooling/fixtures"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumArgs, chromiumPath, ensureChromium } from "./support/chromium.js"
import { runProcess } from "./support/harness.js"
import * as Hostile from "./support/hostile.js"

const fixture = fixtures().find((f) => f.name === "branching")!
const dir = mkdtempSync(join(tmpdir(), "branchlog-export-"))
const file = join(dir, "branching.jsonl")
writeFileSync(file, fixture.bytes)

describe("export --md", () => {
  it("writes the current branch as Markdown", async () => {
    const out = join(dir, "branch.md")
    const outcome = await runProcess(["export", file, "--md", out])
    expect(outcome.code, outcome.stderr).toBe(0)
    const markdown = readFileSync(out, "utf8")
    const context = JSON.parse((await runProcess(["context", file, "--json"])).stdout)
    const tree = JSON.parse((await runProcess(["tree", file, "--json"])).stdout)
    expect(markdown).toMatch(/^# Session /)
    expect(markdown).toContain(`\`${tree.leafId}\``)
    expect(markdown.match(/^### /gm)!.length).toBeGreaterThanOrEqual(context.messages.length)
  })
})

describe("export --json and - (stdout)", () => {
  it("--json prints what was written: the session, and each output's format, path and bytes", async () => {
    const html = join(dir, "json.html")
    const md = join(dir, "json.md")
    const outcome = await runProcess(["export", file, "--html", html, "--md", md, "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const tree = JSON.parse((await runProcess(["tree", file, "--json"])).stdout)
    expect(JSON.parse(outcome.stdout)).toEqual({
      sessionId: tree.sessionId ?? expect.any(String),
      title: expect.stringMatching(/^Session /),
      entries: expect.any(Number),
      leafId: tree.leafId,
      written: [
        { format: "html", to: html, bytes: statSync(html).size },
        { format: "md", to: md, bytes: statSync(md).size }
      ]
    })
  })

  it("- writes the page or the Markdown to stdout, byte for byte, and no file named -", async () => {
    const html = join(dir, "stdout.html")
    const md = join(dir, "stdout.md")
    expect((await runProcess(["export", file, "--html", html, "--md", md])).code).toBe(0)
    const page = await runProcess(["export", file, "--html", "-"], { cwd: dir })
    expect(page.code, page.stderr).toBe(0)
    expect(page.stdout).toBe(readFileSync(html, "utf8"))
    const markdown = await runProcess(["export", file, "--md", "-"], { cwd: dir })
    expect(markdown.code, markdown.stderr).toBe(0)
    expect(markdown.stdout).toBe(readFileSync(md, "utf8"))
    // one to stdout, the other to a file: stdout holds only the export
    const both = await runProcess(["export", file, "--md", "-", "--html", join(dir, "beside.html")], { cwd: dir })
    expect(both.stdout).toBe(readFileSync(md, "utf8"))
    expect(readFileSync(join(dir, "beside.html"), "utf8")).toBe(readFileSync(html, "utf8"))
    expect(existsSync(join(dir, "-"))).toBe(false)
  })

  it("refuses two exports to stdout, and --json with one (exit 2)", async () => {
    const two = await runProcess(["export", file, "--html", "-", "--md", "-"], { cwd: dir })
    expect(two.code).toBe(2)
    expect(two.stderr).toContain("only one of --html and --md can be -")
    const json = await runProcess(["export", file, "--html", "-", "--json"], { cwd: dir })
    expect(json.code).toBe(2)
    expect(json.stdout).toBe("")
    expect(existsSync(join(dir, "-"))).toBe(false)
  })
})

describe("export --html of a file with a duplicated id", () => {
  it("shows the node once per row, as the tree does, with one anchor per id", async () => {
    const { Line, SessionState } = await import("@branchlog/session-core")
    const { render } = await import("../src/internal/html.js")
    const row = (id: string, parentId: string | null, second: number) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: `2026-01-01T00:00:0${second}.000Z`,
        message: { role: "user", content: `text ${id}`, timestamp: second }
      })
    const text = [
      JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" }),
      row("aaaa0001", null, 1),
      row("bbbb0002", "aaaa0001", 2),
      row("cccc0003", "aaaa0001", 3),
      row("bbbb0002", "cccc0003", 4)
    ].join("\n") + "\n"
    const html = render(SessionState.fromRecords(Line.parseText(text)), "dup")
    expect(html.match(/data-id="bbbb0002"/g)).toHaveLength(2)
    expect(html.match(/id="entry-bbbb0002"/g)).toHaveLength(1)
  })
})

describe("export --html writes the page piece by piece", () => {
  it("writes exactly the page render() builds, for a session of 20k entries", async () => {
    const { Line, SessionState } = await import("@branchlog/session-core")
    const { Synthetic } = await import("@branchlog/session-core/testing")
    const { render } = await import("../src/internal/html.js")
    const text = Synthetic.toText(Synthetic.session({ entries: 20_000, seed: 9, branchRate: 0.05 }))
    const source = join(dir, "big.jsonl")
    writeFileSync(source, text)
    const out = join(dir, "big.html")
    const outcome = await runProcess(["export", source, "--html", out])
    expect(outcome.code, outcome.stderr).toBe(0)
    const title = `Session ${JSON.parse(text.slice(0, text.indexOf("\n"))).id}`
    expect(readFileSync(out, "utf8")).toBe(render(SessionState.fromRecords(Line.parseText(text)), title))
  }, 180_000)
})

describe("export --html in a real browser", () => {
  let browser: Awaited<ReturnType<typeof chromium.launch>>
  const out = join(dir, "session.html")

  beforeAll(async () => {
    ensureChromium()
    const outcome = await runProcess(["export", file, "--html", out])
    expect(outcome.code, outcome.stderr).toBe(0)
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true })
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
  })

  it("shows every entry, highlights the current path, expands a branch, and needs no network", async () => {
    const tree = JSON.parse((await runProcess(["tree", file, "--json"])).stdout)
    const context = await browser.newContext({ offline: true })
    const page = await context.newPage()
    const requests: Array<string> = []
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url())
    })
    await page.goto(`file://${out}`)

    // every entry of the file is on the page
    const ids = await page.$$eval("li.entry", (items) => items.map((item) => item.getAttribute("data-id")))
    expect(new Set(ids)).toEqual(new Set(tree.nodes.map((n: { id: string }) => n.id)))

    // the current path is highlighted, up to the leaf, and nothing else is
    const onPath = await page.$$eval("li.entry.on-path", (items) => items.map((item) => item.getAttribute("data-id")))
    const branch: Array<string> = []
    const parents = new Map<string, string | null>(
      tree.nodes.map((n: { id: string; parentId: string | null }) => [n.id, n.parentId])
    )
    for (let id: string | null = tree.leafId; id !== null; id = parents.get(id) ?? null) branch.unshift(id)
    expect(onPath).toEqual(branch)
    const leafBorder = await page.$eval(`li.entry.leaf`, (item) => getComputedStyle(item).borderTopColor)
    expect(leafBorder).toBe("rgb(42, 122, 42)")
    expect(await page.isVisible(`#entry-${tree.leafId}`)).toBe(true)

    // a branch off the current path starts collapsed; clicking its summary expands it
    const firstClosed = await page.$$eval(
      "details.branch",
      (all) => all.findIndex((details) => !(details as HTMLDetailsElement).open)
    )
    expect(firstClosed).toBeGreaterThanOrEqual(0)
    const closed = page.locator("details.branch").nth(firstClosed)
    const hidden = closed.locator("li.entry").first()
    expect(await hidden.isVisible()).toBe(false)
    // the search opens the branch that holds a match, and closes it again when it is cleared
    const hiddenId = (await hidden.getAttribute("data-id"))!
    await page.locator("#search").fill(hiddenId)
    await expect.poll(() => hidden.isVisible()).toBe(true)
    expect(await page.locator("#search-status").textContent()).toMatch(/^\d+ entr(y matches|ies match)$/)
    await page.locator("#search").fill("")
    await expect.poll(() => closed.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false)
    expect(await hidden.isVisible()).toBe(false)
    await closed.locator("xpath=./summary").click()
    expect(await closed.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true)
    expect(await hidden.isVisible()).toBe(true)

    await page.screenshot({ path: resolve(dir, "session.png"), fullPage: false })
    expect(readFileSync(resolve(dir, "session.png")).length).toBeGreaterThan(1000)
    expect(requests).toEqual([])
    await context.close()
  }, 120_000)
})

describe("export --html of an imported Claude Code session in a real browser", () => {
  // thinking, two parallel tool calls and their results, a compaction
  // whose history the source does not link to it
  const source = resolve(
    import.meta.dirname,
    "../../importers/test/fixtures/claude-code/7d1e4b2a-9c3f-4e5d-8a6b-0c1d2e3f4a5b.jsonl"
  )
  const imported = join(dir, "claude", "session.jsonl")
  const out = join(dir, "claude", "session.html")
  /** Where the screenshots go: the README's pictures when BRANCHLOG_SCREENSHOTS names packages/cli/docs. */
  const shots = process.env.BRANCHLOG_SCREENSHOTS ?? join(dir, "claude")
  let browser: Awaited<ReturnType<typeof chromium.launch>>

  beforeAll(async () => {
    ensureChromium()
    mkdirSync(join(dir, "claude"), { recursive: true })
    mkdirSync(shots, { recursive: true })
    // from the fixture's folder: the page names the source as the user gave it
    const importing = await runProcess(["import", basename(source), "--out", imported, "--json"], {
      cwd: dirname(source)
    })
    expect(importing.code, importing.stderr).toBe(0)
    const exporting = await runProcess(["export", imported, "--html", out])
    expect(exporting.code, exporting.stderr).toBe(0)
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true })
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
  })

  it(
    "shows thinking, paired tools and the past before the compaction; search and hide tools work; no CSP violation",
    async () => {
      const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } })
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("console", (message) => {
        if (message.type() === "error" || message.text().includes("Content Security Policy")) {
          problems.push(message.text())
        }
      })
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`))
      await page.addInitScript(() => {
        const seen: Array<string> = []
        ;(window as unknown as { violations: Array<string> }).violations = seen
        document.addEventListener("securitypolicyviolation", (event) => seen.push(event.violatedDirective))
      })
      await page.goto(`file://${out}`)

      // thinking: collapsed under "Thinking", its text hidden until opened; the thinking-only turn is not empty
      const thinking = page.locator("details.thinking").first()
      await expect.poll(() => thinking.locator("summary").textContent()).toBe("Thinking")
      const thought = thinking.locator(".md")
      expect(await thought.isVisible()).toBe(false)
      expect(await page.locator(".note", { hasText: "no content" }).count()).toBe(0)

      // each tool result sits inside its own call, parallel calls included
      const pairs = await page.$$eval("li.entry.kind-toolResult", (items) =>
        items.map((item) => ({
          call: item.closest(".tool-call")?.querySelector(".call-head b")?.textContent ?? null,
          result: item.querySelector(".head b")?.textContent ?? null
        })))
      expect(pairs).toEqual([{ call: "Read", result: "Read" }, { call: "Bash", result: "Bash" }])

      // the conversation before the compaction: in the flow, visible, muted, before the compaction; no branch
      // (whether the importer links the compaction to it or not)
      const past = page.locator("li.entry.past")
      expect(await past.count()).toBeGreaterThanOrEqual(8)
      expect(await past.first().isVisible()).toBe(true)
      expect(await past.first().textContent()).toContain("Here is the failing checkout page")
      expect(await page.locator(".past-mark").first().isVisible()).toBe(true)
      expect(await page.locator("details.branch").count()).toBe(0)
      const order = await page.$$eval(
        "li.entry.past, li.kind-compaction",
        (items) => items.map((item) => item.classList.contains("kind-compaction") ? "compaction" : "past")
      )
      expect(order.indexOf("compaction")).toBe(order.length - 1)
      await page.screenshot({ path: join(shots, "export-claude-code.png"), fullPage: true })

      // thinking opens on a click
      await thinking.locator("summary").click()
      expect(await thought.isVisible()).toBe(true)

      // the search: typing hides what does not match and says how many do
      const asked = page.locator("li.entry", { hasText: "Apply the guard and run the tests." })
      const crash = page.locator("li.entry", { hasText: "TypeError: Cannot read properties" }).last()
      expect(await asked.isVisible()).toBe(true)
      await page.locator("#search").fill("toFixed")
      await expect.poll(() => page.locator("#search-status").textContent()).toMatch(/^\d+ entries match$/)
      expect(await asked.isVisible()).toBe(false)
      expect(await crash.isVisible()).toBe(true)
      expect(await page.locator("li.entry:visible").count()).toBeLessThan(await page.locator("li.entry").count())
      await page.screenshot({ path: join(shots, "export-search.png"), fullPage: false })
      await page.locator("#search").fill("")
      await expect.poll(() => asked.isVisible()).toBe(true)

      // hide tools: the calls, their results and the tool-only turns go; the conversation stays
      const calls = page.locator(".tool-call")
      expect(await calls.count()).toBe(3)
      expect(await calls.first().isVisible()).toBe(true)
      await page.locator("#hide-tools").check()
      expect(await page.locator(".tool-call:visible").count()).toBe(0)
      expect(await page.locator("li.entry.kind-toolResult:visible").count()).toBe(0)
      expect(await page.locator("li.entry.tools-only:visible").count()).toBe(0)
      expect(await asked.isVisible()).toBe(true)
      expect(await page.locator("li.entry", { hasText: "cart.total is undefined" }).isVisible()).toBe(true)
      await page.screenshot({ path: join(shots, "export-hide-tools.png"), fullPage: true })
      await page.locator("#hide-tools").uncheck()
      expect(await calls.first().isVisible()).toBe(true)

      expect(await page.evaluate(() => (window as unknown as { violations: Array<string> }).violations)).toEqual([])
      expect(problems).toEqual([])
      for (const name of ["export-claude-code.png", "export-search.png", "export-hide-tools.png"]) {
        expect(statSync(join(shots, name)).size).toBeGreaterThan(10_000)
      }
      await context.close()
    },
    180_000
  )
})

describe("export of a hostile session", () => {
  const hostileFile = join(dir, "hostile.jsonl")
  const page = join(dir, "hostile.html")
  const markdownOut = join(dir, "hostile.md")
  let browser: Awaited<ReturnType<typeof chromium.launch>>

  beforeAll(async () => {
    ensureChromium()
    writeFileSync(hostileFile, Hostile.sessionText())
    const outcome = await runProcess(["export", hostileFile, "--html", page, "--md", markdownOut])
    expect(outcome.code, outcome.stderr).toBe(0)
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true })
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
  })

  it("writes a page whose only markup is its own: one script, one image, no handler, no link", () => {
    const html = readFileSync(page, "utf8")
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1]
    expect(policy).toBeDefined()
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<title>"))
    expect(policy).not.toContain("unsafe")
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/)
    expect(policy).toContain("img-src data:")
    expect(policy).toContain("object-src 'none'")
    expect(policy).toContain("base-uri 'none'")
    // every tag, read as the browser will: names and attributes are the page's own
    const tags = [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"]*")?)*)\s*>/g)]
    expect(tags.length).toBe(html.match(/<[a-zA-Z]/g)!.length)
    const elements = new Set(tags.map(([, name]) => name!))
    const own = [
      ..."html head meta title style script body h1 p code button ol li div span time pre details summary b img"
        .split(" "),
      ..."main input label".split(" "),
      // what markdown-it writes for a message's Markdown (raw HTML off: none of the session's tags)
      ..."h2 h3 h4 h5 h6 em strong a ul blockquote hr br table thead tbody tr th td s".split(" ")
    ]
    expect([...elements].filter((name) => !own.includes(name))).toEqual([])
    expect(tags.filter(([, name]) => name === "script")).toHaveLength(1)
    expect(tags.filter(([, name]) => name === "img")).toHaveLength(1)
    const attributes = tags.flatMap(([, , list]) => [...list!.matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)])
    const ownAttributes =
      "lang charset http-equiv content name class id data-id type data-branches open alt src placeholder aria-label href rel title start"
    expect(attributes.map(([, name]) => name!).filter((name) => !ownAttributes.split(" ").includes(name))).toEqual([])
    expect(attributes.filter(([, , value]) => /^\s*(?:javascript|vbscript|data:text):/i.test(value ?? ""))).toEqual([])
    expect(attributes.filter(([, name, value]) => name === "href" && !/^(?:https?:\/\/|mailto:)/.test(value!)))
      .toEqual([])
    expect(attributes.filter(([, name, value]) => name === "src" && !value!.startsWith("data:image/png;base64,")))
      .toEqual([])
    // class names are tokens: the role cannot add a class, let alone an attribute
    for (const [, name, value] of attributes) if (name === "class") expect(value).toMatch(/^[A-Za-z0-9_ -]*$/)
  })

  it("runs no script of the session in Chromium, and the page's own script and style still work", async () => {
    const context = await browser.newContext({ offline: true })
    const tab = await context.newPage()
    const dialogs: Array<string> = []
    const logs: Array<string> = []
    tab.on("dialog", (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    tab.on("console", (message) => logs.push(message.text()))
    tab.on("pageerror", (error) => logs.push(`pageerror: ${error.message}`))
    await tab.goto(`file://${page}`)

    // what would trigger the session's handlers: hovering and clicking every entry
    for (const item of await tab.$$("li.entry:visible")) {
      await item.hover()
      await item.click({ position: { x: 2, y: 2 } })
    }

    const xss = () => logs.filter((line) => line.includes("xss:") && !line.includes("Content Security Policy"))
    expect(dialogs).toEqual([])
    expect(xss()).toEqual([])

    // every entry is there, each hostile value shown as text
    const ids = await tab.$$eval("li.entry", (items) => items.map((item) => item.getAttribute("data-id")))
    expect(new Set(ids)).toEqual(new Set(Object.values(Hostile.ids)))
    const text = await tab.evaluate(() => document.body.textContent ?? "")
    expect(text).toContain(`<img src=x onerror="console.log('xss:role-text')`)
    expect(text).toContain(`href="javascript:console.log('xss:tool-name')`)
    expect(text).toContain("␛]52;c;cHduZWQ=␇")
    expect(text).toContain("[image image/png\" onerror=\"alert('xss:mime')]")
    expect(text).toContain("[image image/svg+xml]")

    // nothing of the session became an element: no script but the page's, no handler, no link
    const elements = await tab.evaluate(() => ({
      scripts: document.scripts.length,
      handlers: document.querySelectorAll("[onerror],[onload],[onmouseover],[onclick]").length,
      foreign: document.querySelectorAll("svg,iframe,object,embed,a,base,form").length,
      images: Array.from(document.images, (img) => ({ src: img.src.slice(0, 22), width: img.naturalWidth }))
    }))
    expect(elements).toEqual({
      scripts: 1,
      handlers: 0,
      foreign: 0,
      images: [{ src: "data:image/png;base64,", width: 1 }]
    })

    // the page's own script: expand and collapse every branch
    const branches = tab.locator("details.branch")
    expect(await branches.evaluateAll((all) => all.some((d) => !(d as HTMLDetailsElement).open))).toBe(true)
    await tab.click("button[data-branches=open]")
    expect(await branches.evaluateAll((all) => all.every((d) => (d as HTMLDetailsElement).open))).toBe(true)
    for (const item of await tab.$$("li.entry")) await item.hover()
    await tab.click("button[data-branches=close]")
    expect(await branches.evaluateAll((all) => all.every((d) => !(d as HTMLDetailsElement).open))).toBe(true)
    // the page's own style
    expect(await tab.$eval("li.entry.leaf", (item) => getComputedStyle(item).borderTopColor)).toBe("rgb(42, 122, 42)")

    // the policy stops what escaping would have let through: injected handlers, script, javascript: links
    await tab.evaluate(() => {
      const seen: Array<string> = []
      ;(window as unknown as { violations: Array<string> }).violations = seen
      document.addEventListener("securitypolicyviolation", (event) => seen.push(event.effectiveDirective))
      document.body.insertAdjacentHTML(
        "beforeend",
        `<img src="x" onerror="alert('xss:injected-img')"><svg onload="alert('xss:injected-svg')"></svg>` +
          `<a id="injected-link" href="javascript:alert('xss:injected-link')">link</a>`
      )
      const script = document.createElement("script")
      script.textContent = "alert('xss:injected-script')"
      document.body.append(script)
    })
    await tab.click("#injected-link")
    await tab.waitForFunction(
      () => (window as unknown as { violations: Array<string> }).violations.length >= 5,
      null,
      { timeout: 30_000 }
    )
    const violations = await tab.evaluate(() => (window as unknown as { violations: Array<string> }).violations)
    expect(violations.filter((directive) => directive.startsWith("script-src")).length).toBeGreaterThanOrEqual(4)
    expect(violations).toContain("img-src")

    expect(dialogs).toEqual([])
    expect(xss()).toEqual([])
    expect(logs.filter((line) => line.startsWith("pageerror"))).toEqual([])
    await context.close()
  }, 180_000)

  it("writes Markdown in which nothing of the session is interpreted", () => {
    const markdown = readFileSync(markdownOut, "utf8")
    const branchLength = 15
    // outside fenced blocks: the lines the export writes itself, with the session's values escaped
    const outside: Array<string> = []
    let fence: string | undefined
    for (const line of markdown.split("\n")) {
      if (fence !== undefined) {
        if (line === fence) fence = undefined
        continue
      }
      const open = /^(`{3,})[a-z]*$/.exec(line)
      if (open) fence = open[1]
      else outside.push(line)
    }
    expect(fence).toBeUndefined()
    // one heading per entry, and the title: the session's "# fake heading" made none
    expect(outside.filter((line) => /^#{1,6} /.test(line))).toHaveLength(1 + branchLength)
    expect(outside.filter((line) => /^ {0,3}#+ fake heading/.test(line))).toEqual([])
    // code spans out, what is left has no HTML, no link, no emphasis, no code of the session's
    const text = outside.join("\n").replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, "")
    expect(text).not.toContain("<")
    expect(text).not.toMatch(/(^|[^\\])[[\]`_]/)
    expect(text.replace(/\*\*tool call |\*\*$|\*thinking:\*/gm, "")).not.toMatch(/(^|[^\\])\*/m)
    expect(text).not.toMatch(/(^|[^\\])javascript:/)
    // and no raw control character for a terminal that shows the file
    expect(markdown.replace(/[\n\t]/g, "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(markdown).toContain("&lt;img src\\=x onerror\\=")
  })
})
