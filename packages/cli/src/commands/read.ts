/** The read commands: `info`, `tree`, `context`, `show`. They never modify a file. */
import { JsonView, LlmMessages, Tree } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import { SessionCatalog } from "@branchlog/session-store"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { dirname, resolve } from "node:path"
import { UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { openReadOnly, resumeReadOnly } from "../internal/session.js"
import { contentText, messageLine } from "../internal/summary.js"
import * as TreeText from "../internal/treeText.js"

const file = Args.text({ name: "FILE" }).pipe(
  Args.withDescription("a session file (.jsonl) or reference (sqlite:PATH#ID, postgres://…#ID)")
)
const json = Options.boolean("json").pipe(Options.withDescription("print JSON (the shapes are stable, for scripts)"))
const full = Options.boolean("full").pipe(
  Options.withDescription("read the whole session (default: only the active path, through the sidecar index)")
)
const leaf = Options.text("leaf").pipe(
  Options.withDescription("the entry to read at (default: the session's current leaf)"),
  Options.optional
)

/** A note on stderr when opening found damage (the file is not changed). */
const reportDamage = (path: string, session: SessionManager.SessionManager) => {
  const corrupt = session.isBounded() ? session.loadReport().corrupt.length : session.getState().corrupt.length
  return corrupt === 0
    ? Effect.void
    : Output.note(`${path}: ${corrupt} unreadable line(s) skipped; run \`branchlog fsck ${path}\` for details`)
}

/** The leaf to read at: the option's id (which must exist), else the session's leaf. */
const leafOf = (path: string, session: SessionManager.SessionManager, option: Option.Option<string>) =>
  Option.match(option, {
    onNone: () => Effect.succeed(session.getLeafId()),
    onSome: (id) =>
      session.getEntry(id) === undefined
        ? Effect.fail(new UsageError({ path, detail: `no entry ${id}` }))
        : Effect.succeed<string | null>(id)
  })

/** `branchlog info FILE [--json]`. */
export const info: CliCommand = Command.make("info", { file, json }, ({ file, json }) =>
  Effect.gen(function*() {
    const session = yield* openReadOnly(file)
    yield* reportDamage(file, session)
    const answer = JsonView.info(session.getState())
    if (json) return yield* Output.json(answer)
    const report = session.loadReport()
    yield* Output.lines([
      `file     ${file}`,
      `id       ${answer.id ?? "(no header)"}`,
      `version  ${answer.version ?? "?"}${
        report.migratedFrom === undefined ? "" : ` (version ${report.migratedFrom} on disk, migrated in memory)`
      }`,
      `cwd      ${answer.cwd ?? ""}`,
      ...(answer.parentSession === undefined ? [] : [`parent   ${answer.parentSession}`]),
      ...(answer.name === undefined ? [] : [`name     ${answer.name}`]),
      `entries  ${answer.entries}`,
      `leaf     ${answer.leafId ?? "(none)"}`
    ])
  })).pipe(Command.withDescription("Print what a session file holds: id, version, cwd, name, entries, leaf."))

/** `branchlog tree FILE [--json]`. */
export const tree: CliCommand = Command.make("tree", { file, json }, ({ file, json }) =>
  Effect.gen(function*() {
    const session = yield* openReadOnly(file)
    yield* reportDamage(file, session)
    if (json) return yield* Output.json(JsonView.tree(session.getState()))
    yield* Output.lines(TreeText.render(session.getState(), { style: Output.stdoutStyle() }))
    const children = yield* childLines(file)
    if (children.length > 0) yield* Output.lines(["child sessions (sub-agents, forks):", ...children])
  })).pipe(
    Command.withDescription(
      "Print the session tree: labels, the current path (*) and leaf; long linear runs folded; then the sessions of its folder whose header names it as parent (and theirs)."
    )
  )

/**
 * The sessions of `file`'s folder whose header's `parentSession` is `file`, and theirs below them
 * (indented, at most 8 levels): one line each, the path and the first user message.
 */
const childLines = (file: string) =>
  Effect.gen(function*() {
    const infos = yield* SessionCatalog.list("", dirname(resolve(file))).pipe(
      Effect.catchAll(() => Effect.succeed([] as Array<SessionCatalog.SessionInfo>))
    )
    const byParent = new Map<string, Array<SessionCatalog.SessionInfo>>()
    for (const info of infos) {
      if (info.parentSessionPath === undefined) continue
      const parent = resolve(dirname(resolve(file)), info.parentSessionPath)
      byParent.set(parent, [...(byParent.get(parent) ?? []), info])
    }
    const out: Array<string> = []
    const seen = new Set<string>()
    const walk = (parent: string, depth: number) => {
      if (depth > 8) return
      for (const child of byParent.get(parent) ?? []) {
        const path = resolve(child.path)
        if (seen.has(path)) continue
        seen.add(path)
        out.push(`${"  ".repeat(depth)}${child.path}  (${child.firstMessage.replace(/\s+/g, " ").slice(0, 60)})`)
        walk(path, depth + 1)
      }
    }
    walk(resolve(file), 1)
    return out
  })

/** `branchlog context FILE [--leaf ID] [--json] [--llm]`. */
export const context: CliCommand = Command.make(
  "context",
  { file, json, leaf, full, llm: Options.boolean("llm").pipe(Options.withDescription("as converted for the model")) },
  ({ file, full, json, leaf, llm }) =>
    Effect.gen(function*() {
      const session = yield* resumeReadOnly(file, full)
      yield* reportDamage(file, session)
      const at = yield* leafOf(file, session, leaf)
      const built = session.buildSessionContext(at)
      const answer = llm ? { ...built, messages: LlmMessages.convertToLlm(built.messages) } : built
      if (json) return yield* Output.json(answer)
      yield* Output.lines([
        `thinking level ${answer.thinkingLevel}, model ${
          answer.model === null ? "none" : `${answer.model.provider}/${answer.model.modelId}`
        }, ${answer.messages.length} messages`,
        ...answer.messages.map((message, i) => `${String(i + 1).padStart(4)}  ${messageLine(message, 100)}`)
      ])
    })
).pipe(
  Command.withDescription(
    "Print the LLM context at the leaf: as built (--json), or as converted for the model (--llm); reads only the active path through the sidecar index (--full: the whole file)."
  )
)

/** `branchlog show FILE [--leaf ID]`: the conversation on the current branch, readable. */
export const show: CliCommand = Command.make(
  "show",
  { file, leaf, full },
  ({ file, full, leaf }) =>
    Effect.gen(function*() {
      const session = yield* resumeReadOnly(file, full)
      yield* reportDamage(file, session)
      const at = yield* leafOf(file, session, leaf)
      const style = Output.stdoutStyle()
      const out: Array<string> = []
      // bounded: the branch from the last compaction's kept entry (what the context holds)
      const bounded = session.getBoundedState()
      const branch = bounded !== undefined && (at === null || bounded.byId.has(at))
        ? Tree.getBranch(bounded, at)
        : session.getBranch(at)
      const first = branch[0] as { readonly parentId?: string | null } | undefined
      if (bounded !== undefined && first !== undefined && typeof first.parentId === "string") {
        out.push(
          style.dim("(earlier entries of this branch are summarised by the compaction below; --full shows them)"),
          ""
        )
      }
      for (const entry of branch) {
        const when = style.dim(`${entry.timestamp} ${entry.id}`)
        if (entry.type === "message") {
          const m = entry.message as Record<string, unknown>
          out.push(`${style.bold(String(m.role))} ${when}`)
          const text = m.role === "bashExecution"
            ? `$ ${String(m.command)}\n${String(m.output)}`
            : contentText(m.content, { thinking: true })
          if (text !== "") out.push(...text.split("\n").map((line) => `  ${line}`))
        } else {
          out.push(`${style.cyan(entry.type)} ${when}`)
          const text = entry.type === "compaction" || entry.type === "branch_summary"
            ? entry.summary
            : entry.type === "custom_message"
            ? contentText(entry.content)
            : ""
          if (text !== "") out.push(...text.split("\n").map((line) => `  ${line}`))
        }
        out.push("")
      }
      yield* Output.lines(out)
    })
).pipe(Command.withDescription("Print the conversation on the current branch (or up to --leaf), readable."))
