/** The type every subcommand is given (its parsed arguments stay internal to its module). */
import type { SessionStore } from "@branchlog/store-jsonl"
import type * as Command from "@effect/cli/Command"
import type { Stdin } from "../Stdin.js"

/** What the subcommands' handlers need: the store and the file-level services under it, and stdin for `append`. */
export type Requirements = SessionStore.Services | Stdin

/** A subcommand. */
export type CliCommand = Command.Command<any, Requirements, unknown, any>
