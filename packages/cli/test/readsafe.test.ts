/**
 * The built executable on what is not a session file (issue 18, items 4, 5 and 8): a FIFO is
 * refused within seconds (before, every command hung in open(2) and ignored SIGTERM), a folder
 * says it is one; `repair`'s backups and what a repair killed half-way leaves are never taken for
 * sessions by `ls`, `fsck DIR`, `migrate DIR` or `continueRecent`; a line over the line ceiling is
 * reported by `fsck` with its line and offset and kept byte for byte by `repair`.
 */
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bin, type Outcome, runProcess } from "./support/harness.js"

const root = mkdtempSync(join(tmpdir(), "branchlog-readsafe-"))

/** Runs the executable, killed with SIGKILL after `limitMs` (reported as `killed`). */
const runBounded = (args: ReadonlyArray<string>, limitMs: number, env: Record<string, string> = {}) =>
  new Promise<Outcome & { readonly killed: boolean }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let killed = false
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      killed = true
      child.kill("SIGKILL")
    }, limitMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, stdout, stderr, killed })
    })
  })

const header = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-05-01T09:00:00.000Z", cwd: "/work/project" })
const user = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-05-01T09:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 }
  })

const hasMkfifo = (() => {
  try {
    execFileSync("sh", ["-c", "command -v mkfifo"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

describe.skipIf(!hasMkfifo)("a FIFO given as FILE", () => {
  it("every command that reads it answers within seconds with the error, and never opens it", async () => {
    const dir = join(root, "fifo")
    mkdirSync(dir)
    const fifo = join(dir, "pipe.jsonl")
    execFileSync("mkfifo", [fifo])
    for (const args of [["info", fifo], ["show", fifo], ["fsck", fifo], ["repair", fifo], ["migrate", fifo]]) {
      // 60 s leaves room for a loaded machine; before the fix it never ended
      const outcome = await runBounded(args, 60_000)
      expect(outcome.killed, args.join(" ")).toBe(false)
      expect(outcome.code, args.join(" ")).toBe(1)
      expect(outcome.stderr).toContain(`not a regular file (a fifo): ${fifo}`)
    }
    expect(readdirSync(dir)).toEqual(["pipe.jsonl"])
  }, 400_000)
})

describe.skipIf(!hasMkfifo)("a FIFO inside a folder given to fsck or migrate", () => {
  it("is passed over with a warning, the other sessions (a symlink to one included) are checked", async () => {
    const dir = join(root, "fifo-in-folder")
    mkdirSync(dir)
    const session = join(dir, "a.jsonl")
    writeFileSync(session, [header("s-a"), user("u1", null, "hello"), "{corrupt"].join("\n") + "\n")
    symlinkSync(session, join(dir, "link.jsonl"))
    const fifo = join(dir, "pipe.jsonl")
    execFileSync("mkfifo", [fifo])
    const fsck = await runBounded(["fsck", dir], 60_000)
    expect(fsck.killed).toBe(false)
    // the corrupt line of a.jsonl is an error, found through the file and through the link
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(1)
    expect(fsck.stdout).toContain(`${fifo}: warning: read: not a regular file (a fifo): ${fifo}; passed over`)
    expect(fsck.stdout).toContain(`${session}:3`)
    expect(fsck.stdout).toContain(`${join(dir, "link.jsonl")}:3`)
    const migrate = await runBounded(["migrate", dir], 60_000)
    expect(migrate.killed).toBe(false)
    expect(migrate.code, migrate.stdout + migrate.stderr).toBe(0)
    expect(migrate.stdout).toContain(`${fifo}: read: not a regular file (a fifo)`)
    expect(migrate.stdout).toContain(`${session}: version 3, nothing to do`)
  }, 200_000)
})

describe("a folder given as FILE", () => {
  it("says it is a folder, not that there is no such file", async () => {
    const folder = join(root, "folder.jsonl")
    mkdirSync(folder)
    for (const args of [["info", folder], ["context", folder], ["repair", folder]]) {
      const outcome = await runProcess(args)
      expect(outcome.code, args.join(" ")).toBe(1)
      expect(outcome.stderr).toContain(`is a directory: ${folder}`)
      expect(outcome.stderr).not.toContain("no such file")
    }
  }, 200_000)
})

/** The session names in `ls --dir DIR --json`. */
const listed = async (dir: string) => {
  const outcome = await runProcess(["ls", "--dir", dir, "--json"])
  expect(outcome.code, outcome.stderr).toBe(0)
  return (JSON.parse(outcome.stdout) as Array<{ readonly path: string }>).map((s) => s.path)
}

const continueRecent = (dir: string) =>
  Effect.runPromise(
    SessionManager.continueRecent("/work/project", dir).pipe(
      Effect.map((session) => session.getSessionFile()),
      Effect.provide(SessionStore.layerNode)
    )
  )

describe("what repair leaves beside a session", () => {
  it("after a real repair, ls, fsck DIR, migrate DIR and continueRecent see one session", async () => {
    const dir = join(root, "repaired")
    mkdirSync(dir)
    const file = join(dir, "2026-05-01T09-00-00-000Z_s.jsonl")
    writeFileSync(
      file,
      [header("s"), user("a0000001", null, "hello"), "{broken", user("a0000002", "a0000001", "x")].join("\n") + "\n"
    )
    utimesSync(file, new Date("2026-01-01"), new Date("2026-01-01"))
    const repaired = await runProcess(["repair", file])
    expect(repaired.code, repaired.stderr).toBe(0)
    const names = readdirSync(dir)
    expect(names.some((n) => n.includes(".repair-"))).toBe(true)
    expect(names.some((n) => n.includes(".removed-"))).toBe(true)
    // the backup is the newest file of the folder
    for (const name of names.filter((n) => n.includes(".repair-"))) {
      utimesSync(join(dir, name), new Date("2026-09-01"), new Date("2026-09-01"))
    }
    expect(await listed(dir)).toEqual([file])
    const fsck = await runProcess(["fsck", dir])
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0)
    expect(fsck.stdout).toContain("1 file(s) checked: clean")
    const migrate = await runProcess(["migrate", dir])
    expect(migrate.code, migrate.stderr).toBe(0)
    expect(migrate.stdout.trim().split("\n")).toEqual([`${file}: version 3, nothing to do`])
    expect(await continueRecent(dir)).toBe(file)
  }, 200_000)

  it(
    "after a repair killed half-way (its backup and temporary file left behind), they still see one session",
    async () => {
      const dir = join(root, "killed")
      mkdirSync(dir)
      const file = join(dir, "2026-05-01T09-00-00-000Z_k.jsonl")
      // big enough that the rewrite takes a while after the backup exists
      const rows = [header("k"), "{broken"]
      for (let i = 1; i <= 200_000; i++) {
        rows.push(
          user(`b${String(i).padStart(7, "0")}`, i === 1 ? null : `b${String(i - 1).padStart(7, "0")}`, "y".repeat(200))
        )
      }
      writeFileSync(file, rows.join("\n") + "\n")
      utimesSync(file, new Date("2026-01-01"), new Date("2026-01-01"))
      const child = spawn(process.execPath, [bin, "repair", file], { stdio: "ignore" })
      const closed = new Promise<void>((resolve) => child.on("close", () => resolve()))
      // kill it as soon as its backup (or its temporary file) is there; bounded by 120 s
      const started = Date.now()
      while (Date.now() - started < 120_000 && child.exitCode === null) {
        if (readdirSync(dir).some((n) => n.includes(".repair-") || n.endsWith(".tmp"))) break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      child.kill("SIGKILL")
      await closed
      const left = readdirSync(dir).filter((n) => n !== "2026-05-01T09-00-00-000Z_k.jsonl")
      expect(left.length).toBeGreaterThan(0)
      // what a kill can leave, whatever the moment: the backup (maybe partial), the temporary file
      writeFileSync(join(dir, `.2026-05-01T09-00-00-000Z_k.jsonl.999999.0.0a1b2c3d.tmp`), header("half") + "\n")
      writeFileSync(
        join(dir, `2026-05-01T09-00-00-000Z_k.jsonl.repair-2026-09-01T00-00-00-000Z-0a1b2c3d.jsonl`),
        header("k") + "\n{broken\n"
      )
      for (const name of readdirSync(dir).filter((n) => n !== "2026-05-01T09-00-00-000Z_k.jsonl")) {
        utimesSync(join(dir, name), new Date("2026-09-01"), new Date("2026-09-01"))
      }
      expect(await listed(dir)).toEqual([file])
      const fsck = await runProcess(["fsck", dir])
      // the session itself may or may not be repaired yet: only it is checked
      expect(fsck.stdout + fsck.stderr).not.toContain(".repair-")
      expect(fsck.stdout + fsck.stderr).not.toContain(".tmp")
      const migrate = await runProcess(["migrate", dir])
      expect(migrate.stdout.trim().split("\n")).toEqual([`${file}: version 3, nothing to do`])
      expect(await continueRecent(dir)).toBe(file)
    },
    400_000
  )
})

describe("a line over the line ceiling ($BRANCHLOG_MAX_LINE_BYTES=1024)", () => {
  it("fsck reports it with line and offset; show opens the rest; repair keeps it byte for byte", async () => {
    const dir = join(root, "oversized")
    mkdirSync(dir)
    const file = join(dir, "o.jsonl")
    const big = user("a0000002", "a0000001", "z".repeat(5000))
    const before = [header("o"), user("a0000001", null, "hello")].join("\n") + "\n"
    writeFileSync(file, before + big + "\n" + user("a0000003", "a0000002", "after") + "\n{torn")
    const env = { BRANCHLOG_MAX_LINE_BYTES: "1024" }
    const fsck = await runBounded(["fsck", "--json", file], 60_000, env)
    const findings = JSON.parse(fsck.stdout)[0].findings as Array<{ kind: string; line?: number; offset?: number }>
    expect(findings.find((f) => f.kind === "OversizedLine")).toMatchObject({
      line: 3,
      offset: Buffer.byteLength(before)
    })
    const show = await runBounded(["context", "--json", file], 60_000, env)
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain("after")
    const repair = await runBounded(["repair", file], 60_000, env)
    expect(repair.code, repair.stderr).toBe(0)
    const lines = readFileSync(file, "utf8").split("\n")
    expect(lines[2]).toBe(big)
    expect(lines).not.toContain("{torn")
    expect(existsSync(file)).toBe(true)
  }, 200_000)
})
