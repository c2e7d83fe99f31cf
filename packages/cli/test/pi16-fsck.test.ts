// fsck and repair for what pi 1.6 and the references' readers bring: a byte-order mark, CRLF line
// ends, context edits of unknown entries, and message rows that are not entries.
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { describe, expect, it } from "vitest"
import { runInMemory } from "./support/harness.js"

const BOM = "\uFEFF"
const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/p"
})
const user = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: `text ${id}`, timestamp: 1 },
    ...extra
  })
const plain = [header, user("a", null), user("b", "a")].join("\n") + "\n"
const volumeWith = (files: Record<string, string>) => {
  const volume = MemoryFileSystem.make()
  for (const [path, content] of Object.entries(files)) volume.writeFile(path, content)
  return volume
}
const json = (outcome: { stdout: string }) => JSON.parse(outcome.stdout)
/** The file's text with a BOM kept (the volume's `readText` decodes with TextDecoder, which drops it). */
const textOf = (volume: ReturnType<typeof MemoryFileSystem.make>, file: string) => {
  const bytes = volume.readFile(file)
  return bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8")
}
const findings = async (volume: ReturnType<typeof MemoryFileSystem.make>, file: string) =>
  json(await runInMemory(volume, ["fsck", file, "--json"]))[0].findings as Array<Record<string, unknown>>

describe("a byte-order mark", () => {
  it("opens with its header: info, tree and context are those of the same file without it", async () => {
    const volume = volumeWith({ "/s/bom.jsonl": BOM + plain, "/s/plain.jsonl": plain })
    for (const command of ["info", "tree", "context"]) {
      const bom = await runInMemory(volume, [command, "/s/bom.jsonl", "--json"])
      expect(bom.code, bom.stderr).toBe(0)
      expect(json(bom)).toEqual(json(await runInMemory(volume, [command, "/s/plain.jsonl", "--json"])))
    }
    expect(json(await runInMemory(volume, ["info", "/s/bom.jsonl", "--json"]))).toMatchObject({ id: "s", entries: 2 })
    expect(textOf(volume, "/s/bom.jsonl")).toBe(BOM + plain) // read commands change nothing
  })

  it("is kept when an entry is appended", async () => {
    const volume = volumeWith({ "/s/bom.jsonl": BOM + plain })
    const outcome = await runInMemory(volume, ["name", "/s/bom.jsonl", "named"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(textOf(volume, "/s/bom.jsonl")!.startsWith(BOM + plain)).toBe(true)
  })

  it("is a warning of fsck (exit 0; 1 with --strict), on line 1 at offset 0", async () => {
    const volume = volumeWith({ "/s/bom.jsonl": BOM + plain })
    expect(await findings(volume, "/s/bom.jsonl")).toEqual([
      expect.objectContaining({ kind: "ByteOrderMark", severity: "warning", line: 1, offset: 0 })
    ])
    expect((await runInMemory(volume, ["fsck", "/s/bom.jsonl"])).code).toBe(0)
    expect((await runInMemory(volume, ["fsck", "/s/bom.jsonl", "--strict"])).code).toBe(1)
  })

  it("is removed by repair, with the original bytes in the backup", async () => {
    for (const content of [BOM + plain, BOM + "garbage\n" + plain]) {
      const volume = volumeWith({ "/s/bom.jsonl": content })
      const repaired = await runInMemory(volume, ["repair", "/s/bom.jsonl"])
      expect(repaired.code, repaired.stderr).toBe(0)
      expect(textOf(volume, "/s/bom.jsonl")).toBe(plain)
      const backup = volume.list("/s").find((name) => name.includes("repair"))!
      expect(textOf(volume, `/s/${backup}`)).toBe(content)
      expect((await runInMemory(volume, ["fsck", "/s/bom.jsonl", "--strict"])).code).toBe(0)
      const sidecar = volume.list("/s").find((name) => name.includes("removed"))
      if (content.includes("garbage")) expect(textOf(volume, `/s/${sidecar}`)).toBe("garbage\n")
    }
  })
})

describe("other findings", () => {
  it("CRLF line ends open as the references read them, and fsck finds nothing", async () => {
    const volume = volumeWith({ "/s/crlf.jsonl": plain.replace(/\n/g, "\r\n"), "/s/plain.jsonl": plain })
    expect(json(await runInMemory(volume, ["context", "/s/crlf.jsonl", "--json"]))).toEqual(
      json(await runInMemory(volume, ["context", "/s/plain.jsonl", "--json"]))
    )
    expect(await findings(volume, "/s/crlf.jsonl")).toEqual([])
  })

  it("an edit whose target does not exist is a warning, with its line and offset", async () => {
    const rows = [
      header,
      user("a", null),
      JSON.stringify({
        type: "context_edit",
        id: "e",
        parentId: "a",
        timestamp: "t",
        targetId: "zz",
        replacement: null
      })
    ]
    const volume = volumeWith({ "/s/f.jsonl": rows.join("\n") + "\n" })
    expect(await findings(volume, "/s/f.jsonl")).toEqual([expect.objectContaining({
      kind: "DanglingContextEdit",
      severity: "warning",
      line: 3,
      offset: Buffer.byteLength(rows.slice(0, 2).join("\n") + "\n")
    })])
  })

  it("a message row with a non-string timestamp is an error, with its line and offset, not silently dropped", async () => {
    const rows = [header, user("a", null), user("b", "a", { timestamp: 1767225601000 }), user("c", "b")]
    const volume = volumeWith({ "/s/f.jsonl": rows.join("\n") + "\n" })
    const outcome = await runInMemory(volume, ["fsck", "/s/f.jsonl"])
    expect(outcome.code).toBe(1)
    expect(outcome.stdout).toContain("/s/f.jsonl:3 (offset")
    expect(outcome.stdout).toContain("timestamp is a number")
    expect(await findings(volume, "/s/f.jsonl")).toEqual([expect.objectContaining({
      kind: "MalformedEntry",
      severity: "error",
      line: 3,
      offset: Buffer.byteLength(rows.slice(0, 2).join("\n") + "\n")
    })])
  })
})
