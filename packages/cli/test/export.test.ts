/// <reference lib="dom" />
import { fixtures } from "@branchlog/tooling/fixtures"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chromiumArgs, chromiumPath, ensureChromium } from "./support/chromium.js"
import { runProcess } from "./support/harness.js"

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
  }, 60_000)
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
    await closed.locator("xpath=./summary").click()
    expect(await closed.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true)
    expect(await hidden.isVisible()).toBe(true)

    await page.screenshot({ path: resolve(dir, "session.png"), fullPage: false })
    expect(readFileSync(resolve(dir, "session.png")).length).toBeGreaterThan(1000)
    expect(requests).toEqual([])
    await context.close()
  }, 120_000)
})
