/**
 * `context`, `show` and `append` open sessions bounded through the sidecar index (issue 16):
 * the first read builds the index (issue 27; `--no-index` writes none), `append` keeps it current,
 * `context` then answers exactly as `--full` does, `show` prints the branch from the last
 * compaction's kept entry (with a note) and `--full` from the root.
 */
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { describe, expect, it } from "vitest"
import { runInMemory } from "./support/harness.js"

const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }
const message = (id: string, parentId: string | null, role: "user" | "assistant", text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: role === "user"
    ? { role, content: text, timestamp: 1 }
    : { role, content: [{ type: "text", text }], provider: "p", model: "m", stopReason: "stop", timestamp: 2 }
})

/** 40 messages, a compaction keeping the last 6 of them, 2 more. */
const session = () => {
  const rows: Array<unknown> = [header]
  let parent: string | null = null
  for (let i = 0; i < 40; i++) {
    const id = `e${String(i).padStart(7, "0")}`
    rows.push(message(id, parent, i % 2 === 0 ? "user" : "assistant", `early ${i}`))
    parent = id
  }
  rows.push({
    type: "compaction",
    id: "c0000000",
    parentId: parent,
    timestamp: "2026-01-01T00:00:02.000Z",
    summary: "the start",
    firstKeptEntryId: "e0000034",
    tokensBefore: 10
  })
  rows.push(message("l0000000", "c0000000", "user", "late question"))
  return rows.map((r) => JSON.stringify(r)).join("\n") + "\n"
}

describe("bounded reads", () => {
  it("a read builds the index (not with --no-index); context equals --full; show starts at the kept entry, --full at the root", async () => {
    const volume = MemoryFileSystem.make()
    volume.writeFile("/s/a.jsonl", session())
    const skipped = await runInMemory(volume, ["context", "/s/a.jsonl", "--json", "--no-index"])
    expect(skipped.code, skipped.stderr).toBe(0)
    expect(volume.list("/s")).toEqual(["a.jsonl"])
    const before = await runInMemory(volume, ["context", "/s/a.jsonl", "--json"])
    expect(before.code, before.stderr).toBe(0)
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(skipped.stdout))
    expect(volume.list("/s")).toEqual(["a.jsonl", "a.jsonl.index"])
    const appended = await runInMemory(volume, ["append", "/s/a.jsonl"], [
      JSON.stringify({ role: "user", content: "late answer", timestamp: 3 }) + "\n"
    ])
    expect(appended.code, appended.stderr).toBe(0)
    expect(volume.list("/s")).toEqual(["a.jsonl", "a.jsonl.index"])
    const bounded = await runInMemory(volume, ["context", "/s/a.jsonl", "--json"])
    const full = await runInMemory(volume, ["context", "/s/a.jsonl", "--json", "--full"])
    expect(bounded.code, bounded.stderr).toBe(0)
    expect(JSON.parse(bounded.stdout)).toEqual(JSON.parse(full.stdout))
    expect(JSON.parse(bounded.stdout).messages.map((m: { role: string }) => m.role)[0]).toBe("compactionSummary")
    const show = await runInMemory(volume, ["show", "/s/a.jsonl"])
    expect(show.stdout).toContain("summarised by the compaction below")
    expect(show.stdout).toContain("early 34")
    expect(show.stdout).not.toContain("early 33")
    expect(show.stdout).toContain("late answer")
    const showFull = await runInMemory(volume, ["show", "/s/a.jsonl", "--full"])
    expect(showFull.stdout).toContain("early 0")
    expect(showFull.stdout).not.toContain("summarised by the compaction below")
  })
})
