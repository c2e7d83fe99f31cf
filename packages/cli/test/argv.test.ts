/** Which command lines the executable runs directly (without @effect/cli): plain `append` lines on files only. */
import { describe, expect, it } from "vitest"
import { directAppend, isReadLine } from "../src/internal/argv.js"

describe("directAppend", () => {
  it("takes plain append lines, with its flags and the global options anywhere", () => {
    expect(directAppend(["append", "s.jsonl"])).toMatchObject({ file: "s.jsonl", json: false, full: false })
    expect(directAppend(["--verbose", "append", "--json", "s.jsonl", "--full", "--lock-timeout", "5s"], "/sessions"))
      .toMatchObject({
        file: "s.jsonl",
        json: true,
        full: true,
        globals: { verbose: true, lockTimeoutMs: 5000, noIndex: false }
      })
    expect(directAppend(["append", "s.jsonl", "--no-index", "--lock-timeout=2m"])?.globals)
      .toMatchObject({ noIndex: true, lockTimeoutMs: 120_000 })
  })

  it("leaves everything else to @effect/cli, which answers it as it always has", () => {
    for (
      const args of [
        ["ls"],
        ["show", "append"],
        ["append"],
        ["append", "--help"],
        ["append", "-h"],
        ["append", "a.jsonl", "b.jsonl"],
        ["append", "a.jsonl", "--json", "true"],
        ["append", "--json", "yes", "a.jsonl"],
        ["append", "a.jsonl", "--json", "--json"],
        ["append", "a.jsonl", "--json=true"],
        ["append", "a.jsonl", "--JSON"],
        ["append", "a.jsonl", "--jsn"],
        ["append", "-"],
        ["append", "a.jsonl", "--lock-timeout", "soon"],
        ["--log-level", "debug", "append", "a.jsonl"],
        ["append", "a.jsonl", "--completions", "bash"],
        ["append", "a.jsonl", "--version"],
        ["append", "a.jsonl", "--wizard"],
        // the stores' drivers load on the full path
        ["append", "sqlite:./x.db#id"],
        ["append", "postgres://h/db#id"]
      ]
    ) expect(directAppend(args), args.join(" ")).toBeUndefined()
    expect(directAppend(["append", "a.jsonl"], "sqlite:./x.db")).toBeUndefined()
  })
})

describe("isReadLine", () => {
  it("takes info, tree and context on files, their own help too", () => {
    for (
      const args of [["info", "s.jsonl"], ["tree", "--last"], ["context", "s.jsonl", "--json", "--verbose"], [
        "info",
        "--help"
      ], ["--no-index", "info", "abc123"]]
    ) expect(isReadLine(args), args.join(" ")).toBe(true)
  })

  it("leaves the rest to the full executable: other commands, completions, options before the command, stores", () => {
    for (
      const args of [
        ["ls"],
        ["show", "s.jsonl"],
        ["--help"],
        ["help", "info"],
        ["info", "--completions", "bash"],
        ["info", "--wizard"],
        ["--log-level=debug", "info", "s.jsonl"],
        ["info", "sqlite:./x.db#id"],
        ["context", "postgres://h/db#id"]
      ]
    ) expect(isReadLine(args), args.join(" ")).toBe(false)
    expect(isReadLine(["info", "s.jsonl"], "postgresql://h/db")).toBe(false)
  })
})
