/** The arguments that name the session of a read command: `FILE` or an id prefix, `--last`, `--dir`. */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"

/** `FILE`: a file, a reference, or a session-id prefix (optional: `--last` instead). */
export const file = Args.text({ name: "FILE|ID" }).pipe(
  Args.withDescription("a session file, a reference (sqlite:PATH#ID, postgres://…#ID) or a session-id prefix"),
  Args.optional
)

/** `--last`: the most recent session of the working folder. */
export const last = Options.boolean("last").pipe(
  Options.withDescription("the most recent session of the working folder (as ls lists them)")
)

/** `--dir`: the folder to look in for an id prefix or `--last` (default: branchlog's, pi's and OpenClaw's). */
export const dir = Options.text("dir").pipe(
  Options.withDescription("look up ID / --last in this session folder (default: branchlog's, pi's, OpenClaw's)"),
  Options.optional
)

/** `--json`. */
export const json = Options.boolean("json").pipe(Options.withDescription("print JSON (stable shapes, for scripts)"))
