/**
 * `prepareForRun` (OpenClaw's `prepareSessionManagerForRun`, spec §12) through the manager's
 * public API, without touching its fields:
 * 1. no file before the run: the header takes the run's session id and cwd; nothing is written;
 * 2. a file without an assistant message: a recovered header is rewritten with the new identity;
 *    otherwise the file is backed up and emptied, so that header, user and assistant are written
 *    together on the first reply (OpenClaw truncates; branchlog keeps a backup);
 * 3. a file with an assistant message: the identity is updated, and the file rewritten (after a
 *    backup) only when it changed.
 *
 * The rewrites and the reset run under the transcript lock after folding what other writers did
 * meanwhile (their rows are kept); a reset is refused when an assistant message appeared. A
 * bounded manager (`SessionManager.resume`) has the rest of its session loaded first.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidSessionFileError } from "./SessionError.js"
import type { SessionManager, WriteError } from "./SessionManager.js"

/** The run's view of the session. */
export interface RunInput {
  readonly sessionFile: string
  readonly hadSessionFile: boolean
  readonly sessionId: string
  readonly cwd: string
}

/** What was done: `none` (no header), `identity` (case 1), `reset` / `rewritten` (case 2), `unchanged` / `rewritten` (case 3). */
export type RunPreparation = "none" | "identity" | "reset" | "rewritten" | "unchanged"

/** Prepares a manager for an agent run (spec §12). */
export const prepareForRun = (
  manager: SessionManager,
  input: RunInput
): Effect.Effect<RunPreparation, WriteError | InvalidSessionFileError> =>
  Effect.gen(function*() {
    if (manager.getHeader() === null) return "none"
    // a bounded manager (`resume`): every case below reads or rewrites the whole session
    yield* manager.loadFull()
    const identity = { sessionId: input.sessionId, cwd: input.cwd }
    if (!input.hadSessionFile) {
      yield* manager.setIdentity(identity)
      return "identity"
    }
    if (!manager.hasAssistantMessage()) {
      if (manager.wasRecoveredFromCorruptHeader()) {
        yield* manager.setIdentity(identity)
        yield* manager.rewrite("backup")
        return "rewritten"
      }
      const headerLine = manager.getState().headerLine
      if (headerLine === undefined || headerLine.line !== 1) {
        return yield* new InvalidSessionFileError({
          path: input.sessionFile,
          reason: "Refusing to reset session transcript with invalid header",
          ...(headerLine === undefined ? {} : { line: headerLine.line, offset: headerLine.offset })
        })
      }
      yield* manager.setIdentity(identity)
      yield* manager.resetTranscript()
      return "reset"
    }
    const changed = yield* manager.setIdentity(identity)
    if (!changed) return "unchanged"
    yield* manager.rewrite("backup")
    return "rewritten"
  })
