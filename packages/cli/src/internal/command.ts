/** The type every subcommand is given (its parsed arguments stay internal to its module). */
import type { SessionManager } from "@branchlog/session-store"
import type * as Command from "@effect/cli/Command"
import type { Stdin } from "../Stdin.js"

/** What the subcommands' handlers need: the session-store services, and stdin for `append`. */
export type Requirements = SessionManager.Requirements | Stdin

/** A subcommand. */
export type CliCommand = Command.Command<any, Requirements, unknown, any>
