/** `show` (the conversation on the current branch, readable) and `continue` (`show` of the working folder's latest session). */
import type { Entry } from "@branchlog/session-core"
import { Tree } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import * as Pick from "../internal/pick.js"
import { resumeReadOnly } from "../internal/session.js"
import { dir, file, json, last } from "../internal/sessionArgs.js"
import { contentText } from "../internal/summary.js"
import { full, leaf, leafOf, reportDamage } from "./read.js"

/**
 * What `show --json` prints: the session, the leaf read at, whether the branch starts at the last
 * compaction's kept entry (`bounded`: earlier entries are summarised; `--full` reads them), and the
 * branch's entries as stored, root (or kept entry) first.
 */
export interface ShowJson {
  readonly file: string
  readonly sessionId: string
  readonly leafId: string | null
  readonly bounded: boolean
  readonly entries: ReadonlyArray<Entry.Entry>
}

/**
 * The branch to show: from the last compaction's kept entry when the session was opened bounded
 * and `at` is on the loaded path; else the whole branch (a bounded session loads the rest first).
 */
const branchOf = (session: SessionManager.SessionManager, at: string | null) =>
  Effect.gen(function*() {
    const bounded = session.getBoundedState()
    if (bounded !== undefined && (at === null || bounded.byId.has(at))) {
      const branch = Tree.getBranch(bounded, at)
      const first = branch[0] as { readonly parentId?: string | null } | undefined
      return { branch, cut: first !== undefined && typeof first.parentId === "string" }
    }
    yield* session.loadFull()
    return { branch: session.getBranch(at), cut: false }
  })

/** The readable lines of a branch. */
const render = (branch: ReadonlyArray<Entry.Entry>, cut: boolean): Array<string> => {
  const style = Output.stdoutStyle()
  const out: Array<string> = []
  if (cut) {
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
  return out
}

/** Prints the session `file` as `show` does. */
const showSession = (file: string, options: {
  readonly full: boolean
  readonly json: boolean
  readonly leaf: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const session = yield* resumeReadOnly(file, options.full)
    yield* reportDamage(file, session)
    const at = yield* leafOf(file, session, options.leaf)
    const { branch, cut } = yield* branchOf(session, at)
    if (options.json) {
      return yield* Output.json(
        { file, sessionId: session.getSessionId(), leafId: at, bounded: cut, entries: branch } satisfies ShowJson
      )
    }
    yield* Output.lines(render(branch, cut))
  })

/** `branchlog show FILE|ID [--last] [--dir DIR] [--leaf ID] [--full] [--json]`. */
export const show: CliCommand = Command.make(
  "show",
  { file, last, dir, leaf, full, json },
  (args) => Effect.flatMap(Pick.target(args.file, args), (path) => showSession(path, args))
).pipe(
  Command.withDescription(
    "Print the conversation on the current branch (or up to --leaf), readable; FILE may be a session-id prefix."
  )
)

/** `branchlog continue [--dir DIR] [--full] [--json]`: `show` of the most recent session of the working folder. */
export const continueCommand: CliCommand = Command.make(
  "continue",
  { dir, full, json },
  (args) =>
    Effect.flatMap(
      Pick.mostRecent(process.cwd(), Option.getOrUndefined(args.dir)),
      (path) => Effect.zipRight(Output.note(`${path}`), showSession(path, { ...args, leaf: Option.none() }))
    )
).pipe(
  Command.withDescription(
    "Show the most recent session of the working folder (as ls lists them: branchlog's, pi's and OpenClaw's folders); its path goes to stderr."
  )
)
