/**
 * Read commands build or catch up the sidecar index (issue 27), as real processes over real
 * files: the index a read command writes is the one a writer builds, byte for byte; a read racing
 * a writer loses and changes nothing; `--no-index` writes none; a folder the reader cannot write
 * answers all the same, with no index and no error; reads off the loaded path of a compacted
 * session (a `--leaf` behind the compaction, the whole tree, an export) answer as a whole read.
 */
import { Messages } from "@branchlog/session-core/testing"
import { SessionManager } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync
} from "node:fs"
import { dirname, join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bin, runProcess, spawnCollect } from "./support/harness.js"

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "fixtures", "differential")
// world-traversable, so that the test can run the reader as another user
const temp = mkdtempSync("/tmp/branchlog-read-index-")
chmodSync(temp, 0o755)
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const dir = join(temp, `case-${++n}`)
  mkdirSync(dir)
  chmodSync(dir, 0o755)
  return dir
}
/** A pi 1.6 session (written by pi itself: no index beside it) in a folder of its own. */
const piSession = (dir = fresh()) => {
  const file = join(dir, "session.jsonl")
  cpSync(join(fixtures, "differential-pi16-1173.jsonl"), file)
  return file
}
const json = (outcome: { stdout: string }) => JSON.parse(outcome.stdout)

describe("read commands and the sidecar index", () => {
  it("context builds the index a writer builds, byte for byte; the session file is untouched; --no-index writes none", async () => {
    const file = piSession()
    const before = readFileSync(file)
    const skip = await runProcess(["context", file, "--json", "--no-index"])
    expect(skip.code, skip.stderr).toBe(0)
    expect(existsSync(`${file}.index`)).toBe(false)
    const first = await runProcess(["context", file, "--json"])
    expect(first.code, first.stderr).toBe(0)
    expect(readFileSync(file).equals(before)).toBe(true)
    const byReader = readFileSync(`${file}.index`)
    rmSync(`${file}.index`)
    // a writer's resume (writable) builds it the same way
    await Effect.runPromise(Effect.provide(Effect.asVoid(SessionManager.resume(file)), SessionStore.layerNode))
    expect(readFileSync(`${file}.index`).equals(byReader)).toBe(true)
    // the second read goes through it and answers as a whole read does
    const second = await runProcess(["context", file, "--json"])
    const whole = await runProcess(["context", file, "--json", "--full"])
    expect(json(second)).toEqual(json(first))
    expect(json(second)).toEqual(json(whole))
    for (const command of ["show", "tree"]) {
      const bounded = await runProcess([command, file])
      expect(bounded.code, bounded.stderr).toBe(0)
      expect(bounded.stdout).toBe((await runProcess([command, file, "--no-index"])).stdout)
    }
    // info from the index: counts, no usage totals (--full gives today's whole answer)
    const info = await runProcess(["info", file])
    expect(info.code, info.stderr).toBe(0)
    expect(info.stdout).toMatch(/usage {4}not summed from the index/)
    expect((await runProcess(["info", file, "--full"])).stdout).toBe(
      (await runProcess(["info", file, "--no-index"])).stdout
    )
  })

  it("catches the index up over rows another tool appended, without changing the session", async () => {
    const file = piSession()
    expect((await runProcess(["context", file, "--json"])).code).toBe(0)
    const indexed = readFileSync(`${file}.index`)
    // pi appends a message (no lock, no index update)
    const last = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!)
    const row = {
      type: "message",
      id: "f00dcafe",
      parentId: last.id,
      timestamp: "2026-12-04T10:00:00.000Z",
      message: { role: "user", content: "appended by pi", timestamp: 1 }
    }
    const { appendFileSync } = await import("node:fs")
    appendFileSync(file, JSON.stringify(row) + "\n")
    const bytes = readFileSync(file)
    const after = await runProcess(["context", file, "--json"])
    expect(after.code, after.stderr).toBe(0)
    expect(json(after).messages.at(-1)).toMatchObject({ role: "user", content: "appended by pi" })
    expect(readFileSync(`${file}.index`).equals(indexed)).toBe(false)
    expect(readFileSync(file).equals(bytes)).toBe(true)
    expect(json(await runProcess(["context", file, "--json"]))).toEqual(
      json(await runProcess(["context", file, "--json", "--full"]))
    )
  })

  it("a read racing a writer never loses or changes an entry", async () => {
    const file = piSession()
    const original = readFileSync(file)
    const count = 60
    const writer = spawn(process.execPath, [bin, "append", file], { stdio: ["pipe", "pipe", "pipe"] })
    let writerErr = ""
    writer.stderr.setEncoding("utf8").on("data", (c: string) => (writerErr += c))
    const done = new Promise<number>((ok) => writer.on("close", (code) => ok(code ?? -1)))
    const feed = (async () => {
      for (let i = 0; i < count; i++) {
        writer.stdin.write(JSON.stringify({ role: "user", content: `racing ${i}`, timestamp: i }) + "\n")
        await new Promise((r) => setTimeout(r, 15))
      }
      writer.stdin.end()
    })()
    const reads: Array<Promise<{ code: number; stderr: string }>> = []
    for (let i = 0; i < 6; i++) {
      reads.push(runProcess(["context", file, "--json"]))
      reads.push(runProcess(["tree", file]))
      await new Promise((r) => setTimeout(r, 80))
    }
    await feed
    expect(await done, writerErr).toBe(0)
    for (const r of await Promise.all(reads)) expect(r.code, r.stderr).toBe(0)
    const text = readFileSync(file)
    // the file: the original bytes, then each appended message once, in order
    expect(text.subarray(0, original.length).equals(original)).toBe(true)
    const added = text.subarray(original.length).toString("utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
    const contents = added.filter((r) => r.type === "message").map((r) => r.message.content)
    expect(contents).toEqual(Array.from({ length: count }, (_, i) => `racing ${i}`))
    // and the index answers as the whole file does
    expect(json(await runProcess(["context", file, "--json"]))).toEqual(
      json(await runProcess(["context", file, "--json", "--full"]))
    )
  })

  it("a folder the reader cannot write answers all the same, with no index and no error", async () => {
    const dir = fresh()
    const file = piSession(dir)
    chmodSync(file, 0o444)
    chmodSync(dir, 0o555)
    // the published bundle (dist/bin.js and its chunks: the CLI is its bundle alone), copied where
    // the other user reaches it: the checkout may sit below a folder only its owner can enter
    const published = fresh()
    mkdirSync(join(published, "dist"), { mode: 0o755 })
    for (const name of readdirSync(dirname(bin)).filter((f) => /^bin(-chunk-[\w-]+)?\.js$/.test(f))) {
      copyFileSync(join(dirname(bin), name), join(published, "dist", name))
    }
    copyFileSync(resolve(dirname(bin), "..", "package.json"), join(published, "package.json"))
    const asNobody = (args: ReadonlyArray<string>) =>
      spawnCollect(process.execPath, join(published, "dist", "bin.js"), args, {
        uid: 65534,
        gid: 65534,
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, NO_COLOR: "1" }
      })
    const context = await asNobody(["context", file, "--json"])
    expect(context.code, context.stderr).toBe(0)
    expect(context.stderr).toBe("")
    expect(json(context)).toEqual(json(await runProcess(["context", file, "--json", "--full", "--no-index"])))
    for (const command of ["show", "info", "tree"]) {
      const out = await asNobody([command, file])
      expect(out.code, out.stderr).toBe(0)
      expect(out.stderr).toBe("")
    }
    expect(existsSync(`${file}.index`)).toBe(false)
    expect(statSync(dir).mode & 0o777).toBe(0o555)
    chmodSync(dir, 0o755)
  })

  it(
    "reads off the loaded path of a compacted session (--leaf behind it, tree --json, export) answer as a whole read",
    async () => {
      const dir = fresh()
      const { behind, file, kept } = await Effect.runPromise(Effect.provide(
        Effect.gen(function*() {
          const sm = yield* SessionManager.create("/work", dir, { eagerFlush: true })
          for (let i = 0; i < 10; i++) {
            yield* sm.appendMessage(Messages.user(`u${i}`))
            yield* sm.appendMessage(Messages.assistant(`a${i}`))
          }
          const branch = sm.getBranch()
          yield* sm.appendCompaction("the start", branch[branch.length - 4]!.id, 10)
          yield* sm.appendMessage(Messages.user("after"))
          const file = sm.getSessionFile()!
          // the index, then a bounded open through it
          yield* SessionManager.resume(file)
          const resumed = yield* SessionManager.resume(file)
          expect(resumed.isBounded()).toBe(true)
          return { file, behind: branch[5]!.id, kept: branch[branch.length - 4]!.id }
        }),
        SessionStore.layerNode
      ))
      for (const leaf of [behind, kept]) {
        for (const command of ["context", "show"]) {
          const bounded = await runProcess([command, file, "--leaf", leaf, "--json"])
          expect(bounded.code, bounded.stderr).toBe(0)
          const whole = await runProcess([command, file, "--leaf", leaf, "--json", "--full"])
          if (command === "show" && leaf === kept) {
            // on the loaded path: `show` prints the branch from the compaction's kept entry (`bounded`)
            expect(json(bounded).bounded).toBe(true)
            expect(json(bounded).entries).toEqual(json(whole).entries.slice(-1))
          } else expect(json(bounded), `${command} --leaf ${leaf}`).toEqual(json(whole))
        }
      }
      const missing = await runProcess(["context", file, "--leaf", "nosuchid", "--json"])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain("no entry nosuchid")
      const tree = await runProcess(["tree", file, "--json"])
      expect(tree.code, tree.stderr).toBe(0)
      expect(json(tree)).toEqual(json(await runProcess(["tree", file, "--json", "--no-index"])))
      const md = await runProcess(["export", file, "--md", "-"])
      expect(md.code, md.stderr).toBe(0)
      expect(md.stdout).toBe((await runProcess(["export", file, "--md", "-", "--no-index"])).stdout)
      expect(md.stdout).toContain("u0")
    },
    60_000
  )
})
