/**
 * The built-in tools `read`, `bash`, `edit` and `write` over a `Workspace`. They are small on
 * purpose: `read` returns a file (optionally a line range), `write` replaces a file, `edit`
 * replaces one exact, unique occurrence of a text, `bash` runs one command in the workspace.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ToolError } from "./AgentError.js"
import * as Tool from "./Tool.js"
import type { Workspace } from "./Workspace.js"

/** The names of the built-in tools, in their default order. */
export const names = ["read", "bash", "edit", "write"] as const

const lineCount = Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))

/** `read`: a file's text, optionally from line `offset` (1-based) for `limit` lines. */
export const read = (ws: Workspace): Tool.AnyTool =>
  Tool.make({
    name: "read",
    description: "Read a text file of the workspace.",
    promptSnippet: "Read file contents",
    promptGuidelines: ["Use read to examine files before editing them."],
    parameters: Schema.Struct({
      path: Schema.String,
      offset: Schema.optional(lineCount.annotations({ title: "offset", description: "First line to read (1-based)" })),
      limit: Schema.optional(lineCount.annotations({ title: "limit", description: "How many lines to read" }))
    }),
    execute: ({ limit, offset, path }) =>
      Effect.map(ws.readFile(path), (content) => {
        if (offset === undefined && limit === undefined) return Tool.text(content)
        const lines = content.split("\n")
        const start = (offset ?? 1) - 1
        return Tool.text(lines.slice(start, limit === undefined ? undefined : start + limit).join("\n"))
      })
  })

/** `write`: creates or replaces a file. */
export const write = (ws: Workspace): Tool.AnyTool =>
  Tool.make({
    name: "write",
    description: "Create or overwrite a file of the workspace.",
    promptSnippet: "Create or overwrite files",
    promptGuidelines: ["Use write only for new files or complete rewrites."],
    parallel: false,
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    execute: ({ content, path }) =>
      Effect.as(ws.writeFile(path, content), Tool.text(`Wrote ${content.length} characters to ${path}`))
  })

/** `edit`: replaces the one occurrence of `oldText` by `newText`. */
export const edit = (ws: Workspace): Tool.AnyTool =>
  Tool.make({
    name: "edit",
    description: "Replace one exact, unique occurrence of a text in a file.",
    promptSnippet: "Make surgical edits to files (find exact text and replace)",
    promptGuidelines: ["Use edit for precise changes; oldText must match exactly once."],
    parallel: false,
    parameters: Schema.Struct({ path: Schema.String, oldText: Schema.String, newText: Schema.String }),
    execute: ({ newText, oldText, path }) =>
      Effect.gen(function*() {
        const content = yield* ws.readFile(path)
        const at = content.indexOf(oldText)
        if (oldText.length === 0 || at < 0) {
          return yield* new ToolError({ toolName: "edit", reason: `text not found in ${path}` })
        }
        if (content.indexOf(oldText, at + 1) >= 0) {
          return yield* new ToolError({ toolName: "edit", reason: `text occurs more than once in ${path}` })
        }
        yield* ws.writeFile(path, content.slice(0, at) + newText + content.slice(at + oldText.length))
        return Tool.text(`Edited ${path}`)
      })
  })

/** `bash`: runs one command in the workspace folder. */
export const bash = (ws: Workspace): Tool.AnyTool =>
  Tool.make({
    name: "bash",
    description: "Run a shell command in the workspace folder.",
    promptSnippet: "Execute bash commands (ls, grep, find, etc.)",
    parallel: false,
    parameters: Schema.Struct({ command: Schema.String }),
    execute: ({ command }) =>
      Effect.map(ws.exec(command), ({ exitCode, output }) =>
        exitCode === 0
          ? Tool.text(output, { exitCode })
          : { ...Tool.text(`${output}\n(exit code ${exitCode})`, { exitCode }), isError: true })
  })

/** All four built-ins over one workspace. */
export const all = (ws: Workspace): ReadonlyArray<Tool.AnyTool> => [read(ws), bash(ws), edit(ws), write(ws)]
