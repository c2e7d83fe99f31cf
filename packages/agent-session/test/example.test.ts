/** The README's runnable example runs as written (a child process, like a user would start it). */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")

describe("examples/demo.ts", () => {
  it.live("runs and prints the transcript", () =>
    Effect.gen(function*() {
      const out = yield* Effect.async<string>((resume) => {
        execFile(
          process.execPath,
          ["--conditions=@branchlog/source", "--import", "tsx", "examples/demo.ts"],
          { cwd: root, timeout: 180_000 },
          (error, stdout, stderr) => resume(error ? Effect.die(new Error(stderr)) : Effect.succeed(stdout))
        )
      })
      const lines = out.trim().split("\n")
      expect(lines[0]).toBe("stop: stop | notes.md: \"# Notes\\nshipped\\n\"")
      expect(lines[1]).toMatch(
        /^compacted, kept from [0-9a-f]{8} details \{"readFiles":\[\],"modifiedFiles":\["notes.md"\]\}$/
      )
      expect(lines.slice(2).map((l) => l.split(" ").slice(0, 2).join(" ").replace(/ [0-9a-f-]{8,}$/, ""))).toEqual([
        "session",
        "thinking_level_change",
        "message user",
        "message assistant",
        "message toolResult",
        "message toolResult",
        "message assistant",
        "message user",
        "message assistant",
        "compaction"
      ])
    }), { timeout: 180_000 })
})
