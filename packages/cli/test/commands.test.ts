import { Messages } from "@branchlog/session-core/testing"
import { MemoryFileSystem } from "@branchlog/store-jsonl/testing"
import { fixtures } from "@branchlog/tooling/fixtures"
import { describe, expect, it } from "vitest"
import { runInMemory } from "./support/harness.js"

const fixture = (name: string) => fixtures().find((f) => f.name === name)!
const volumeWith = (files: Record<string, string | Uint8Array>) => {
  const volume = MemoryFileSystem.make()
  for (const [path, content] of Object.entries(files)) volume.writeFile(path, content)
  return volume
}
const json = (outcome: { stdout: string }) => JSON.parse(outcome.stdout)

describe("branch, label, name", () => {
  it("moves the leaf, and the position survives a reopen (a leaf-control row)", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const before = json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"]))
    const tree = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"]))
    const target = tree.nodes[3].id
    const moved = await runInMemory(volume, ["branch", "/s/a.jsonl", target])
    expect(moved.code, moved.stderr).toBe(0)
    const after = json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"]))
    expect(after.leafId).toBe(target)
    expect(after.entries).toBe(before.entries)
    expect(volume.readText("/s/a.jsonl")!.trimEnd().split("\n").at(-1)).toContain("\"type\":\"leaf\"")
  })

  it("branches with a summary appended at the target", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const target = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"])).nodes[2].id
    expect((await runInMemory(volume, ["branch", "/s/a.jsonl", target, "--summary", "we tried X"])).code).toBe(0)
    const context = json(await runInMemory(volume, ["context", "/s/a.jsonl", "--json"]))
    expect(context.messages.at(-1)).toMatchObject({ role: "branchSummary", summary: "we tried X", fromId: target })
  })

  it("sets and clears labels, and names the session", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const target = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"])).nodes[1].id
    await runInMemory(volume, ["label", "/s/a.jsonl", target, "checkpoint"])
    let node = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"])).nodes.find((n: any) => n.id === target)
    expect(node.label).toBe("checkpoint")
    await runInMemory(volume, ["label", "/s/a.jsonl", target])
    node = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"])).nodes.find((n: any) => n.id === target)
    expect(node.label).toBeUndefined()
    await runInMemory(volume, ["name", "/s/a.jsonl", "  Release prep  "])
    expect(json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"])).name).toBe("Release prep")
  })

  it("refuses an unknown entry with a usage error (exit 2) and writes nothing", async () => {
    const bytes = fixture("linear-basic").bytes
    const volume = volumeWith({ "/s/a.jsonl": bytes })
    const outcome = await runInMemory(volume, ["label", "/s/a.jsonl", "nope", "x"])
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toMatch(/\/s\/a\.jsonl: no entry nope/)
    expect(Buffer.from(volume.readFile("/s/a.jsonl")!)).toEqual(bytes)
  })

  it("reports a missing file in one line, exit 1", async () => {
    const outcome = await runInMemory(MemoryFileSystem.make(), ["tree", "/nowhere.jsonl"])
    expect(outcome.code).toBe(1)
    expect(outcome.stderr).toBe("branchlog: /nowhere.jsonl: no such file")
  })

  it("takes a session reference where it takes a file; one no store here serves fails clearly (exit 2)", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const byPath = json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"]))
    const byRef = json(await runInMemory(volume, ["info", "file:/s/a.jsonl", "--json"]))
    expect(byRef.entries).toBe(byPath.entries)
    const sqlite = await runInMemory(volume, ["tree", "sqlite:/s/db.sqlite#abc"])
    expect(sqlite.code).toBe(2)
    expect(sqlite.stderr).toBe(
      "branchlog: the jsonl store cannot open sqlite:/s/db.sqlite#abc: no backend for this kind of reference is present"
    )
    const malformed = await runInMemory(volume, ["append", "postgres://host/db"])
    expect(malformed.code).toBe(2)
    expect(malformed.stderr).toContain("the session id after `#` is missing")
  })

  it("exits 2 on a usage error of the parser", async () => {
    expect((await runInMemory(MemoryFileSystem.make(), ["tree"])).code).toBe(2)
    expect((await runInMemory(MemoryFileSystem.make(), ["frobnicate"])).code).toBe(2)
  })
})

describe("fork", () => {
  it("forks the whole session into a new file whose header names the source", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("branching").bytes })
    const outcome = await runInMemory(volume, ["fork", "/s/a.jsonl", "--cwd", "/elsewhere"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const forked = outcome.stdout.trim()
    const info = json(await runInMemory(volume, ["info", forked, "--json"]))
    expect(info).toMatchObject({ cwd: "/elsewhere", parentSession: "/s/a.jsonl" })
    expect(info.entries).toBe(json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"])).entries)
  })

  it("keeps the source's working folder without --cwd", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("branching").bytes })
    const source = json(await runInMemory(volume, ["info", "/s/a.jsonl", "--json"]))
    const outcome = await runInMemory(volume, ["fork", "/s/a.jsonl"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const info = json(await runInMemory(volume, ["info", outcome.stdout.trim(), "--json"]))
    expect(info).toMatchObject({ cwd: source.cwd, parentSession: "/s/a.jsonl", entries: source.entries })
  })

  it("forks the path up to --from", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const context = json(await runInMemory(volume, ["context", "/s/a.jsonl", "--json"]))
    const nodes = json(await runInMemory(volume, ["tree", "/s/a.jsonl", "--json"])).nodes
    const from = nodes[4].id
    const outcome = await runInMemory(volume, ["fork", "/s/a.jsonl", "--from", from])
    expect(outcome.code, outcome.stderr).toBe(0)
    const forked = json(await runInMemory(volume, ["tree", outcome.stdout.trim(), "--json"]))
    expect(forked.nodes.map((n: any) => n.id)).toEqual(nodes.slice(0, 5).map((n: any) => n.id))
    expect(context.messages.length).toBeGreaterThan(0)
  })
})

describe("append", () => {
  const user = (text: string) => JSON.stringify(Messages.user(text))
  const assistant = (text: string) => JSON.stringify(Messages.assistant(text))

  it("creates the session and appends each message as its own entry, written at once", async () => {
    const volume = MemoryFileSystem.make()
    const outcome = await runInMemory(
      volume,
      ["append", "/s/new.jsonl"],
      [user("hi"), assistant("hello"), user("bye")].join("\n") + "\n"
    )
    expect(outcome.code, outcome.stderr).toBe(0)
    const lines = volume.readText("/s/new.jsonl")!.trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(lines.map((l) => l.type)).toEqual(["session", "message", "message", "message"])
    expect(lines[2].parentId).toBe(lines[1].id)
  })

  it("reports a bad line with its number and appends nothing from it on", async () => {
    const volume = MemoryFileSystem.make()
    const outcome = await runInMemory(
      volume,
      ["append", "/s/new.jsonl"],
      [user("one"), "{not json", user("three")].join("\n")
    )
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toMatch(/stdin:2: not JSON/)
    const lines = volume.readText("/s/new.jsonl")!.trimEnd().split("\n")
    expect(lines).toHaveLength(2)
    const shape = await runInMemory(volume, ["append", "/s/new.jsonl"], JSON.stringify({ content: "no role" }))
    expect(shape.code).toBe(2)
    expect(shape.stderr).toMatch(/stdin:1: not an agent message/)
  })
})

describe("fsck, repair, migrate", () => {
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id: "s",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/p"
  })
  const entry = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: id, timestamp: 1 },
      ...extra
    })

  it.each([
    ["a corrupt line", [header, entry("a", null), "garbage", entry("b", "a")].join("\n") + "\n", "CorruptLine", 3],
    ["a torn tail", [header, entry("a", null)].join("\n") + "\n{\"type\":\"mess", "TornTail", 3],
    ["a missing header", [entry("a", null)].join("\n") + "\n", "MissingHeader", undefined],
    ["a late header", [entry("a", null), header].join("\n") + "\n", "HeaderNotFirst", 2],
    ["a duplicate header", [header, entry("a", null), header].join("\n") + "\n", "DuplicateHeader", 3],
    ["an orphan", [header, entry("a", "ghost")].join("\n") + "\n", "Orphan", 2],
    ["a cycle", [header, entry("a", null), entry("x", "y"), entry("y", "x")].join("\n") + "\n", "Cycle", 3],
    ["a duplicate id", [header, entry("a", null), entry("a", null)].join("\n") + "\n", "DuplicateId", 3],
    [
      "a dangling label",
      [
        header,
        entry("a", null),
        JSON.stringify({ type: "label", id: "l", parentId: "a", timestamp: "t", targetId: "zz", label: "x" })
      ].join("\n") + "\n",
      "DanglingLabel",
      3
    ],
    [
      "a compaction keeping nothing",
      [
        header,
        entry("a", null),
        JSON.stringify({
          type: "compaction",
          id: "c",
          parentId: "a",
          timestamp: "t",
          summary: "s",
          firstKeptEntryId: "zz",
          tokensBefore: 1
        })
      ].join("\n") + "\n",
      "KeptEntryOffPath",
      3
    ],
    [
      "a leaf control pointing nowhere",
      [
        header,
        entry("a", null),
        JSON.stringify({ type: "leaf", id: "l", parentId: "a", timestamp: "t", targetId: "zz" })
      ].join("\n") + "\n",
      "InvalidLeafControl",
      3
    ]
  ])("finds %s with its line and byte offset", async (_, content, kind, line) => {
    const volume = volumeWith({ "/s/f.jsonl": content })
    const outcome = await runInMemory(volume, ["fsck", "/s/f.jsonl", "--json", "--strict"])
    expect(outcome.code).toBe(1)
    const [report] = json(outcome)
    const finding = report.findings.find((f: any) => f.kind === kind)
    expect(finding, JSON.stringify(report.findings)).toBeDefined()
    expect(finding.line).toBe(line)
    if (line !== undefined) {
      const bytes = Buffer.from(content)
      let offset = 0
      for (let i = 1; i < line; i++) offset = bytes.indexOf(0x0a, offset) + 1
      expect(finding.offset).toBe(offset)
    }
  })

  it("is clean (exit 0) on every reference fixture without damage, and checks a folder", async () => {
    // the differential fixtures are damaged on purpose
    const clean = fixtures().filter((f) => f.name !== "damaged-lines" && !f.name.startsWith("differential-"))
    const volume = volumeWith(Object.fromEntries(clean.map((f) => [`/dir/${f.name}.jsonl`, f.bytes])))
    const outcome = await runInMemory(volume, ["fsck", "/dir"])
    expect(outcome.code, outcome.stdout).toBe(0)
  })

  it("repairs what can be repaired, keeping every entry and a backup, and fsck is clean after", async () => {
    const damaged = fixture("damaged-lines")
    const bytes = Buffer.concat([
      damaged.bytes.subarray(0, damaged.bytes.lastIndexOf(0x0a) + 1),
      Buffer.from(JSON.stringify({ type: "session", version: 3, id: "again", timestamp: "t", cwd: "/x" }) + "\n"),
      damaged.bytes.subarray(damaged.bytes.lastIndexOf(0x0a) + 1)
    ])
    const volume = volumeWith({ "/s/d.jsonl": bytes })
    const before = json(await runInMemory(volume, ["info", "/s/d.jsonl", "--json"]))
    expect((await runInMemory(volume, ["fsck", "/s/d.jsonl"])).code).toBe(1)
    const repaired = await runInMemory(volume, ["repair", "/s/d.jsonl"])
    expect(repaired.code, repaired.stderr).toBe(0)
    const fsck = await runInMemory(volume, ["fsck", "/s/d.jsonl"])
    expect(fsck.code, fsck.stdout).toBe(0)
    const after = json(await runInMemory(volume, ["info", "/s/d.jsonl", "--json"]))
    expect(after.entries).toBe(before.entries)
    const backup = volume.list("/s").find((name) => name.includes("repair"))!
    expect(Buffer.from(volume.readFile(`/s/${backup}`)!)).toEqual(bytes)
    const sidecar = volume.list("/s").find((name) => name.includes("removed"))!
    expect(volume.readText(`/s/${sidecar}`)).toContain("<<<<<<< HEAD")
  })

  it("recovers a late header and writes a new one where there is none", async () => {
    const volume = volumeWith({
      "/s/late.jsonl": `${entry("a", null)}\n${header}\n`,
      "/s/none.jsonl": `${entry("a", null)}\n${entry("b", "a")}\n`
    })
    for (const file of ["/s/late.jsonl", "/s/none.jsonl"]) {
      expect((await runInMemory(volume, ["repair", file])).code).toBe(0)
      expect((await runInMemory(volume, ["fsck", file])).code).toBe(0)
      const lines = volume.readText(file)!.trimEnd().split("\n").map((l) => JSON.parse(l))
      expect(lines[0].type).toBe("session")
      expect(lines.filter((l) => l.type === "message")).toHaveLength(file.includes("none") ? 2 : 1)
    }
  })

  it("migrates old versions with a backup, and leaves current ones alone", async () => {
    const volume = volumeWith({
      "/s/v1.jsonl": fixture("legacy-v1").bytes,
      "/s/v3.jsonl": fixture("linear-basic").bytes
    })
    const outcome = await runInMemory(volume, ["migrate", "/s"])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stdout).toMatch(/v1\.jsonl: migrated from version 1 to 3/)
    expect(outcome.stdout).toMatch(/v3\.jsonl: version 3, nothing to do/)
    expect(JSON.parse(volume.readText("/s/v1.jsonl")!.split("\n")[0]!).version).toBe(3)
    expect(Buffer.from(volume.readFile("/s/v3.jsonl")!)).toEqual(fixture("linear-basic").bytes)
  })
})

describe("ls", () => {
  it("lists the sessions of a folder, newest first, as JSON", async () => {
    const volume = volumeWith({
      "/s/2026-01-01T00-00-00-000Z_a.jsonl": fixture("linear-basic").bytes,
      "/s/2026-01-02T00-00-00-000Z_b.jsonl": fixture("labels").bytes
    })
    const outcome = await runInMemory(volume, ["ls", "--dir", "/s", "--json"])
    expect(outcome.code, outcome.stderr).toBe(0)
    const sessions = json(outcome)
    expect(sessions).toHaveLength(2)
    expect(Date.parse(sessions[0].modified)).toBeGreaterThanOrEqual(Date.parse(sessions[1].modified))
    expect(sessions[0]).toHaveProperty("messageCount")
    expect(sessions[0]).toHaveProperty("firstMessage")
  })
})

describe("info, show, context", () => {
  it("prints info for people, and the conversation on the branch", async () => {
    const volume = volumeWith({ "/s/a.jsonl": fixture("linear-basic").bytes })
    const info = await runInMemory(volume, ["info", "/s/a.jsonl"])
    expect(info.code).toBe(0)
    expect(info.stdout).toMatch(/^file {5}\/s\/a\.jsonl$/m)
    expect(info.stdout).toMatch(/^entries {2}\d+$/m)
    const show = await runInMemory(volume, ["show", "/s/a.jsonl"])
    expect(show.code).toBe(0)
    expect(show.stdout).toContain("Read package.json and tell me the version.")
    const context = json(await runInMemory(volume, ["context", "/s/a.jsonl", "--json"]))
    const userTurns = context.messages.filter((m: any) => m.role === "user").length
    expect(show.stdout.match(/^user /gm)!.length).toBe(userTurns)
  })

  it("gives the context as converted for the model with --llm, and at another leaf with --leaf", async () => {
    const volume = volumeWith({ "/s/c.jsonl": fixture("compactions").bytes })
    const built = json(await runInMemory(volume, ["context", "/s/c.jsonl", "--json"]))
    const llm = json(await runInMemory(volume, ["context", "/s/c.jsonl", "--json", "--llm"]))
    expect(built.messages[0].role).toBe("compactionSummary")
    expect(llm.messages[0].role).toBe("user")
    expect(llm.messages[0].content[0].text).toMatch(/^The conversation history before this point was compacted/)
    const tree = json(await runInMemory(volume, ["tree", "/s/c.jsonl", "--json"]))
    const early = tree.nodes[1].id
    const atEarly = json(await runInMemory(volume, ["context", "/s/c.jsonl", "--json", "--leaf", early]))
    expect(atEarly.messages.length).toBeLessThanOrEqual(2)
    expect((await runInMemory(volume, ["context", "/s/c.jsonl", "--leaf", "nope"])).code).toBe(2)
  })
})
