/** The read commands `info`, `tree`, `context` (`show` and `continue`: show.ts). They never modify a file. */
import { JsonView } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import type { SessionOutline } from "@branchlog/store-jsonl"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import { childLines } from "../internal/children.js"
import type { CliCommand } from "../internal/command.js"
import * as Indexed from "../internal/indexed.js"
import * as LlmView from "../internal/llmView.js"
import * as Output from "../internal/output.js"
import * as Pick from "../internal/pick.js"
import { openFull, openReadOnly, resumeReadOnly } from "../internal/session.js"
import { dir, file, json, last } from "../internal/sessionArgs.js"
import { messageLine } from "../internal/summary.js"
import * as TreeText from "../internal/treeText.js"
import * as Usage from "../internal/usage.js"
import * as Width from "../internal/width.js"

const sessionArg = file

/** `--full`: read the whole session. */
export const full = Options.boolean("full").pipe(
  Options.withDescription("read the whole session (default: only the active path, through the sidecar index)")
)
/** `--leaf ID`. */
export const leaf = Options.text("leaf").pipe(
  Options.withDescription("the entry to read at (default: the session's current leaf)"),
  Options.optional
)

/** A note on stderr when opening found damage (the file is not changed). */
export const reportDamage = (path: string, session: SessionManager.SessionManager) => {
  const corrupt = session.isBounded() ? session.loadReport().corrupt.length : session.getState().corrupt.length
  return corrupt === 0
    ? Effect.void
    : Output.note(`${path}: ${corrupt} unreadable line(s) skipped; run \`branchlog fsck ${path}\` for details`)
}

/**
 * The leaf to read at: the option's id (which must exist), else the session's leaf. A bounded
 * session loads the rest only when the id is neither on its loaded path nor certainly absent.
 */
export const leafOf = (path: string, session: SessionManager.SessionManager, option: Option.Option<string>) =>
  Option.match(option, {
    onNone: () => Effect.succeed(session.getLeafId()),
    onSome: (id) =>
      Effect.flatMap(
        SessionManager.reading(session, (s) => s.getEntry(id)),
        (entry) =>
          entry === undefined
            ? Effect.fail(new UsageError({ path, detail: `no entry ${id}` }))
            : Effect.succeed<string | null>(id)
      )
  })

/** The first lines of `info`: file, id, version (and the one on disk), cwd, parent and name. */
const headLines = (
  file: string,
  answer: {
    readonly id?: string | undefined
    readonly version?: number | undefined
    readonly cwd?: string | undefined
    readonly parentSession?: string | undefined
    readonly name?: string | undefined
  },
  report: { readonly migratedFrom?: number | undefined }
): Array<string> => [
  `file     ${file}`,
  `id       ${answer.id ?? "(no header)"}`,
  `version  ${answer.version ?? "?"}${
    report.migratedFrom === undefined ? "" : ` (version ${report.migratedFrom} on disk, migrated in memory)`
  }`,
  `cwd      ${answer.cwd ?? ""}`,
  ...(answer.parentSession === undefined ? [] : [`parent   ${answer.parentSession}`]),
  ...(answer.name === undefined ? [] : [`name     ${answer.name}`])
]
/** `info` from the sidecar index: counts from its summary and row table, no usage totals (they need every entry). */
const indexedInfo = (
  file: string,
  session: SessionManager.SessionManager,
  outline: SessionOutline.Outline,
  counts: SessionOutline.Counts,
  json: boolean
) =>
  Effect.gen(function*() {
    const header = session.getHeader()
    const name = session.getSessionName()
    const answer = {
      ...(header === null ? {} : {
        id: header.id,
        version: typeof header.version === "number" ? header.version : 1,
        ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
        ...(header.parentSession === undefined ? {} : { parentSession: header.parentSession })
      }),
      ...(name === undefined ? {} : { name }),
      entries: counts.entries,
      leafId: session.getLeafId(),
      types: Object.fromEntries(counts.types),
      labels: outline.labels,
      compactions: outline.compactions,
      size: outline.size
    }
    if (json) return yield* Output.json(answer)
    yield* Output.lines([
      ...headLines(file, answer, session.loadReport()),
      `entries  ${answer.entries}${
        counts.types.length === 0 ? "" : ` (${counts.types.map(([type, n]) => `${type} ${n}`).join(", ")})`
      }`,
      `labels   ${answer.labels}`,
      `compactions ${answer.compactions}`,
      `size     ${answer.size} bytes, ${outline.lines} lines`,
      `leaf     ${answer.leafId ?? "(none)"}`,
      `usage    not summed from the index (it needs every entry): \`branchlog info --full\` gives the totals`
    ])
  })

/** `branchlog info FILE|ID [--last] [--dir DIR] [--json] [--full]`. */
export const info: CliCommand = Command.make(
  "info",
  {
    file: sessionArg,
    last,
    dir,
    json,
    full: Options.boolean("full").pipe(
      Options.withDescription(
        "read the whole session: token and cost totals (default: counts from the sidecar index, no totals)"
      )
    )
  },
  (args) =>
    Effect.gen(function*() {
      const file = yield* Pick.target(args.file, args)
      const session = yield* (args.full ? openFull(file) : openReadOnly(file))
      yield* reportDamage(file, session)
      if (!args.full && session.isBounded()) {
        const outline = yield* Indexed.outline(file)
        const counts = Option.isSome(outline) ? yield* outline.value.counts : Option.none()
        if (Option.isSome(outline) && Option.isSome(counts)) {
          return yield* indexedInfo(file, session, outline.value, counts.value, args.json)
        }
      }
      // every entry is summed: a bounded session (no index to count from) loads the rest
      yield* session.loadFull()
      const usage: Usage.SessionUsage = {
        all: Usage.totals(session.getEntries()),
        activePath: Usage.totals(session.getBranch())
      }
      const answer = { ...JsonView.info(session.getState()), usage }
      if (args.json) return yield* Output.json(answer)
      yield* Output.lines([
        ...headLines(file, answer, session.loadReport()),
        `entries  ${answer.entries}`,
        `leaf     ${answer.leafId ?? "(none)"}`,
        `usage    all entries: ${Usage.describe(usage.all)}`,
        `         active path: ${Usage.describe(usage.activePath)}`
      ])
    })
).pipe(
  Command.withDescription(
    "Print what a session holds: id, version, cwd, name, entries, leaf; from the sidecar index, entries by type, labels, compactions and size; with --full (or without an index), token and cost totals (all entries, and the active path)."
  )
)

/** `branchlog tree FILE [--json] [--depth N] [--around ID]`. */
export const tree: CliCommand = Command.make(
  "tree",
  {
    file: sessionArg,
    last,
    dir,
    json,
    depth: Options.integer("depth").pipe(
      Options.withDescription(
        "print branch nesting at most N levels deep (deeper branches: one line with their count)"
      ),
      Options.optional
    ),
    around: Options.text("around").pipe(
      Options.withDescription(
        "print only the path from the root to this entry, the branches off it (one line each) and the entries below it"
      ),
      Options.optional
    )
  },
  (args) =>
    Effect.gen(function*() {
      const { json } = args
      const file = yield* Pick.target(args.file, args)
      const session = yield* openReadOnly(file)
      yield* reportDamage(file, session)
      if (json) {
        yield* session.loadFull()
        return yield* Output.json(JsonView.tree(session.getState()))
      }
      const depth = Option.getOrUndefined(args.depth)
      if (depth !== undefined && depth < 0) {
        return yield* Effect.fail(new UsageError({ path: file, detail: "--depth must be 0 or more" }))
      }
      const around = Option.getOrUndefined(args.around)
      const options = {
        style: Output.stdoutStyle(),
        columns: Width.columns(),
        ...(depth === undefined ? {} : { depth })
      }
      const outline = session.isBounded() ? yield* Indexed.outline(file) : Option.none()
      const fromIndex = Option.isNone(outline)
        ? Option.none<"printed" | "missing">()
        : yield* Indexed.printTree(outline.value, around === undefined ? options : { ...options, around }, Output.lines)
      if (Option.isSome(fromIndex)) {
        if (fromIndex.value === "missing") {
          return yield* Effect.fail(new UsageError({ path: file, detail: `no entry ${around}` }))
        }
      } else {
        // no index to print from: the whole tree
        yield* session.loadFull()
        const shape = TreeText.stateShape(session.getState())
        const at = around === undefined ? undefined : shape.find(around)
        if (around !== undefined && at === undefined) {
          return yield* Effect.fail(new UsageError({ path: file, detail: `no entry ${around}` }))
        }
        const laid = { ...options, around: at }
        yield* Output.lines(TreeText.print(shape, TreeText.plan(shape, laid), (node) => node.entry, laid))
      }
      const children = yield* childLines(file)
      if (children.length > 0) yield* Output.lines(["child sessions (sub-agents, forks):", ...children])
    })
).pipe(
  Command.withDescription(
    "Print the session tree: labels, the current path (*) and leaf; long linear runs folded (--depth N, --around ID: less of it); from the sidecar index, reading only the entries shown; then the sessions of its folder whose header names it as parent (and theirs)."
  )
)

/** `branchlog context FILE|ID [--last] [--leaf ID] [--json] [--llm]`. */
export const context: CliCommand = Command.make(
  "context",
  {
    file: sessionArg,
    last,
    dir,
    json,
    leaf,
    full,
    llm: Options.boolean("llm").pipe(
      Options.withDescription(
        "print what the model receives, as provider-neutral JSON (messages, model, thinking level)"
      )
    )
  },
  (args) =>
    Effect.gen(function*() {
      const { full, json, leaf, llm } = args
      const file = yield* Pick.target(args.file, args)
      const session = yield* resumeReadOnly(file, full)
      yield* reportDamage(file, session)
      const at = yield* leafOf(file, session, leaf)
      // at the leaf (or on the loaded path) from the bounded session; elsewhere after loading the rest
      const built = yield* SessionManager.reading(session, (s) => s.buildSessionContext(at))
      if (llm) return yield* Output.json(LlmView.view(built))
      const answer = built
      if (json) return yield* Output.json(answer)
      const columns = Width.columns()
      yield* Output.lines([
        Width.fit(
          `thinking level ${answer.thinkingLevel}, model ${
            answer.model === null ? "none" : `${answer.model.provider}/${answer.model.modelId}`
          }, ${answer.messages.length} messages`,
          columns
        ),
        ...answer.messages.map((message, i) =>
          Width.fit(`${String(i + 1).padStart(4)}  ${messageLine(message, columns)}`, columns)
        )
      ])
    })
).pipe(
  Command.withDescription(
    "Print the LLM context at the leaf: as built (--json), or what the model receives as provider-neutral JSON (--llm); reads only the active path through the sidecar index (--full: the whole file)."
  )
)
