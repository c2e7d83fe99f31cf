/** The write commands: `branch`, `label`, `name`, `fork`, `append`. Each write goes through the locked path. */
import { SessionManager } from "@branchlog/session-store"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { appendStdin } from "../internal/append.js"
import type { CliCommand } from "../internal/command.js"
import * as Output from "../internal/output.js"
import { openWritable, requireEntry, requireFile } from "../internal/session.js"

const file = Args.text({ name: "FILE" }).pipe(
  Args.withDescription("a session file (.jsonl) or reference (sqlite:PATH#ID, postgres://…#ID)")
)
const id = Args.text({ name: "ID" }).pipe(Args.withDescription("an entry id"))
const json = Options.boolean("json").pipe(Options.withDescription("print JSON (stable shapes, for scripts)"))

/** `branchlog branch FILE ID [--summary TEXT]`: move the leaf (persisted as a leaf-control row). */
export const branch: CliCommand = Command.make(
  "branch",
  {
    file,
    id,
    summary: Options.text("summary").pipe(
      Options.withDescription("also append a branch summary of the branch being left, at ID"),
      Options.optional
    ),
    json
  },
  ({ file, id, json, summary }) =>
    Effect.gen(function*() {
      const session = yield* openWritable(file)
      yield* requireEntry(session, file, id)
      if (Option.isSome(summary)) {
        const summaryId = yield* session.branchWithSummary(id, summary.value)
        yield* session.flush()
        if (json) return yield* Output.json({ file, leafId: summaryId, branchedFrom: id, summaryId })
        return yield* Output.lines([`leaf moved to ${id}; branch summary ${summaryId} appended there`])
      }
      yield* session.branch(id)
      yield* session.flush()
      if (json) return yield* Output.json({ file, leafId: id, branchedFrom: id, summaryId: null })
      yield* Output.lines([`leaf moved to ${id}`])
    })
).pipe(Command.withDescription("Move the session's leaf to an entry (the position is written to the file)."))

/** `branchlog label FILE ID [LABEL]`: set, or with no label clear, an entry's label. */
export const label: CliCommand = Command.make(
  "label",
  {
    file,
    id,
    label: Args.text({ name: "LABEL" }).pipe(Args.withDescription("the label (none clears it)"), Args.optional),
    json
  },
  ({ file, id, json, label }) =>
    Effect.gen(function*() {
      const session = yield* openWritable(file)
      yield* requireEntry(session, file, id)
      const text = Option.getOrUndefined(label)
      const entryId = yield* session.appendLabelChange(id, text)
      yield* session.flush()
      if (json) return yield* Output.json({ file, targetId: id, label: text || null, entryId })
      yield* Output.lines([text ? `labelled ${id} "${text}"` : `cleared the label of ${id}`])
    })
).pipe(Command.withDescription("Label an entry; with no LABEL, clear its label."))

/** `branchlog name FILE NAME`: set the session's display name. */
export const name: CliCommand = Command.make(
  "name",
  { file, name: Args.text({ name: "NAME" }).pipe(Args.withDescription("the session's name (trimmed)")), json },
  ({ file, json, name }) =>
    Effect.gen(function*() {
      const session = yield* openWritable(file)
      const entryId = yield* session.appendSessionInfo(name)
      yield* session.flush()
      if (json) return yield* Output.json({ file, name: name.trim() === "" ? null : name.trim(), entryId })
      yield* Output.lines([name.trim() === "" ? "cleared the session name" : `named the session "${name.trim()}"`])
    })
).pipe(Command.withDescription("Set the session's name (an empty name clears it)."))

/** `branchlog fork FILE [--from ID] [--cwd DIR]`: a new session file from this one. */
export const fork: CliCommand = Command.make(
  "fork",
  {
    file,
    from: Options.text("from").pipe(Options.withDescription("fork the path up to this entry only"), Options.optional),
    cwd: Options.text("cwd").pipe(Options.withDescription("the new session's working folder"), Options.optional),
    json
  },
  ({ cwd, file, from, json }) =>
    Effect.gen(function*() {
      yield* requireFile(file)
      const print = (forked: SessionManager.SessionManager) =>
        json
          ? Output.json({
            from: file,
            to: forked.getSessionFile() ?? null,
            sessionId: forked.getSessionId(),
            cwd: forked.getHeader()?.cwd ?? null,
            leafId: forked.getLeafId()
          })
          : Output.lines([forked.getSessionFile() ?? ""])
      if (Option.isNone(from)) return yield* print(yield* SessionManager.forkFrom(file, Option.getOrUndefined(cwd)))
      const session = yield* openWritable(file)
      yield* requireEntry(session, file, from.value)
      yield* session.createBranchedSession(from.value)
      if (Option.isSome(cwd)) yield* session.setIdentity({ sessionId: session.getSessionId(), cwd: cwd.value })
      yield* session.flush()
      yield* print(session)
    })
).pipe(
  Command.withDescription(
    "Fork the session into a new file (the whole session, or the path up to --from) and print its path."
  )
)

/**
 * `branchlog append FILE`: agent messages from stdin, one JSON object per line, each its own entry,
 * written as they arrive (`internal/append.ts`; the executable runs it directly, `internal/direct.ts`).
 */
export const append: CliCommand = Command.make("append", {
  file,
  json,
  full: Options.boolean("full").pipe(
    Options.withDescription("read the whole session first (default: only the active path, through the sidecar index)")
  )
}, appendStdin).pipe(
  Command.withDescription(
    "Append agent messages read from stdin (one JSON object a line), each line written as soon as it is read, through the locked write path; creates FILE if missing."
  )
)
