/**
 * Destructive rewrites against concurrent writers, with real processes on real files: two writers
 * opening one large v1 file (the migration on open runs under the lock, and the second writer
 * re-reads the migrated file before it appends), and appends through a symlink racing repairs
 * of its target (one lock per resolved file). Every acknowledged entry is present exactly once.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { cleanupTempRoots, tempDir } from "../src/testing/Harness.js"
import { start } from "./support/children.js"

afterAll(cleanupTempRoots)

const here = path.dirname(fileURLToPath(import.meta.url))
const writer = path.join(here, "fixtures", "writer-child.ts")
const repairer = path.join(here, "fixtures", "repair-child.ts")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A v1 file (no version, rows without ids) of at least `bytes` bytes. */
const writeV1 = (file: string, bytes: number): void => {
  const fd = fs.openSync(file, "w")
  try {
    fs.writeSync(
      fd,
      JSON.stringify({ type: "session", id: "v1-session", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" }) + "\n"
    )
    const row = (i: number) =>
      JSON.stringify({
        type: "message",
        timestamp: "2026-05-01T09:00:01.000Z",
        message: { role: i % 2 === 0 ? "user" : "assistant", content: `m${i} ${"x".repeat(900)}` }
      }) + "\n"
    let written = 0
    for (let i = 0; written < bytes; i += 512) {
      let block = ""
      for (let j = 0; j < 512; j++) block += row(i + j)
      fs.writeSync(fd, block)
      written += Buffer.byteLength(block)
    }
  } finally {
    fs.closeSync(fd)
  }
}

/** Every `custom` row of `file` and its `.backup…` side files, by writer and seq. */
const customRows = (file: string): Map<string, Array<number>> => {
  const out = new Map<string, Array<number>>()
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.includes("\"customType\":\"writer\"")) continue
    const row = JSON.parse(line) as { data: { writer: string; seq: number } }
    const list = out.get(row.data.writer) ?? []
    list.push(row.data.seq)
    out.set(row.data.writer, list)
  }
  return out
}

const expectEachOnce = (rows: Map<string, Array<number>>, writers: ReadonlyArray<string>, count: number) => {
  for (const name of writers) {
    const seqs = rows.get(name) ?? []
    expect(seqs.length, `${name}: ${seqs.length} rows`).toBe(count)
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i))
  }
}

describe("destructive rewrites against concurrent writers (node, real processes)", () => {
  it(
    "two writers on a 50 MB v1 file started apart: both acknowledge, every entry is in the file exactly once",
    async () => {
      const dir = tempDir()
      const file = path.join(dir, "old.jsonl")
      writeV1(file, 50 * 1024 * 1024)
      const first = start([writer, file, "a", "append", "200"])
      await sleep(1500)
      const second = start([writer, file, "b", "append", "200"])
      const codes = await Promise.all([first.exited, second.exited])
      expect(codes, first.output + second.output).toEqual([0, 0])
      expect(first.output).toContain("done")
      expect(second.output).toContain("done")
      expectEachOnce(customRows(file), ["a", "b"], 200)
      const head = JSON.parse(fs.readFileSync(file, "utf8").slice(0, 400).split("\n")[0]!) as { version?: number }
      expect(head.version).toBe(3)
      // one migration, one backup (the second writer found the file migrated under the lock)
      const backups = fs.readdirSync(dir).filter((name) => name.includes(".backup-"))
      expect(backups).toHaveLength(1)
      expect(fs.readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([])
    },
    240_000
  )

  it(
    "appends through a symlink racing repairs of its target: every acknowledged entry exactly once, the link stays a link",
    async () => {
      const dir = tempDir()
      const real = path.join(dir, "real.jsonl")
      const link = path.join(dir, "link.jsonl")
      fs.writeFileSync(
        real,
        JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-05-01T09:00:00.000Z", cwd: "/w" }) +
          "\n\n"
      )
      fs.symlinkSync("real.jsonl", link)
      const writers = [start([writer, link, "l0", "append", "200"]), start([writer, link, "l1", "held", "200"])]
      const repair = start([repairer, real, "40"])
      const codes = await Promise.all([...writers.map((w) => w.exited), repair.exited])
      expect(codes, [...writers, repair].map((c) => c.output).join("\n")).toEqual([0, 0, 0])
      expect(repair.output).toContain("repaired 40")
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expectEachOnce(customRows(real), ["l0", "l1"], 200)
      expect(fs.readdirSync(dir).filter((name) => name.endsWith(".tmp") || name.endsWith(".lock"))).toEqual([])
    },
    240_000
  )
})
