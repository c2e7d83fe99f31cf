/**
 * How the command reports the storage interface's own errors, as real processes on real SQLite
 * files: a database whose schema is newer than this branchlog (`SchemaTooNewError`) and a file that
 * is no database (SQLite's failure, `BackendFailureError`) each print one line naming the store,
 * the database and what happened, and exit 1; `--verbose` adds the fields, the driver's error among
 * them. In process: the exit codes, and `--verbose`'s fields of an error whose cause holds itself.
 */
import { BackendFailureError, SchemaTooNewError } from "@branchlog/session-store/TranscriptStoreError"
import Database from "better-sqlite3"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ExitCode, exitCodeOf } from "../src/CliError.js"
import { fieldsOf } from "../src/internal/runner.js"
import { runProcess } from "./support/harness.js"
import { caseFolders } from "./support/storeCases.js"

const { fresh } = caseFolders("branchlog-cli-store-errors-")

const id = "0f1e2d3c-aaaa-4bbb-8ccc-000000000007"
const session = [
  `{"type":"session","version":3,"id":"${id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}`,
  `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1767225601000}}`,
  ``
].join("\n")

describe("the stores' errors on the command line (real processes)", () => {
  it("a database of a newer schema: one line naming it and both versions, exit 1, nothing changed", async () => {
    const dir = fresh()
    writeFileSync(join(dir, "s.jsonl"), session)
    const file = join(dir, "team.db")
    const copied = await runProcess(["copy", join(dir, "s.jsonl"), `sqlite:${file}`])
    expect(copied.code).toBe(0)
    const db = new Database(file)
    const supported = db.prepare("SELECT max(migration_id) FROM effect_sql_migrations").pluck().get() as number
    db.prepare("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (99, 'future')").run()
    db.close()
    const before = readFileSync(file)
    for (const args of [["info", `sqlite:${file}#${id}`], ["append", `sqlite:${file}#${id}`]]) {
      const ran = await runProcess(args, { input: "" })
      expect(ran.code).toBe(1)
      expect(ran.stdout).toBe("")
      expect(ran.stderr).toBe(
        `branchlog: the sqlite store at ${file} has schema version 99, newer than this branchlog supports (${supported}); nothing was changed: use a newer branchlog\n`
      )
    }
    expect(readFileSync(file).equals(before)).toBe(true)
  }, 60_000)

  it(
    "a file that is no database: SQLite's failure in one line with its code, exit 1; --verbose adds the driver's error",
    async () => {
      const dir = fresh()
      const file = join(dir, "junk.db")
      writeFileSync(file, "not a database, only text long enough to fill a header page. ".repeat(20))
      const ran = await runProcess(["info", `sqlite:${file}#x`])
      expect(ran.code).toBe(1)
      expect(ran.stderr).toBe(
        `branchlog: the sqlite store failed to open ${file} (SQLITE_NOTADB): file is not a database\n`
      )
      const verbose = await runProcess(["info", `sqlite:${file}#x`, "--verbose"])
      expect(verbose.code).toBe(1)
      const [line, ...rest] = verbose.stderr.split("\n")
      expect(`${line}\n`).toBe(ran.stderr)
      const fields = JSON.parse(rest.join("\n"))
      expect(fields).toMatchObject({
        _tag: "BackendFailureError",
        store: "sqlite",
        location: file,
        operation: "open",
        code: "SQLITE_NOTADB",
        // the driver's own error: better-sqlite3's code is SQLITE_NOTADB, node:sqlite's ERR_SQLITE_ERROR (errcode 26)
        cause: { message: "file is not a database" }
      })
    },
    60_000
  )
})

describe("exit codes and --verbose fields of the stores' errors", () => {
  it("a too-new schema and a backend's failure exit 1 (the operation failed), not 2", () => {
    expect(
      exitCodeOf(new SchemaTooNewError({ store: "postgres", location: "postgres://h/db", found: 9, supported: 2 }))
    )
      .toBe(ExitCode.failure)
    expect(exitCodeOf(
      new BackendFailureError({ store: "postgres", location: "postgres://h/db", operation: "load", detail: "x" })
    )).toBe(ExitCode.failure)
    expect(exitCodeOf({ _tag: "UnsupportedSessionRefError" })).toBe(ExitCode.usage)
  })

  it("a cause that holds itself is written as [Circular], with its name and message", () => {
    const cause = Object.assign(new Error("connection lost"), { code: "ECONNRESET", self: undefined as unknown })
    cause.self = cause
    const error = new BackendFailureError({
      store: "postgres",
      location: "postgres://h/db#s1",
      operation: "append",
      code: "ECONNRESET",
      detail: "connection lost",
      cause
    })
    expect(JSON.parse(fieldsOf(error))).toEqual({
      _tag: "BackendFailureError",
      store: "postgres",
      location: "postgres://h/db#s1",
      operation: "append",
      code: "ECONNRESET",
      detail: "connection lost",
      cause: { name: "Error", message: "connection lost", code: "ECONNRESET", self: "[Circular]" }
    })
    // the same object twice side by side is no cycle
    const shared = { a: 1 }
    expect(JSON.parse(fieldsOf({ one: shared, two: shared }))).toEqual({ one: { a: 1 }, two: { a: 1 } })
  })
})
