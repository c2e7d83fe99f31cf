/**
 * The manager's destructive rewrites of its own session (`rewrite`, prepareForRun's reset): under
 * the hold, after catching up with what other writers did since this manager last looked,
 * through the store's `replace` with a backup kept (for files: `TranscriptFile.replace`, backup
 * first, owner and mode kept, nothing left on failure).
 */
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type { Core } from "./core.js"
import { adoptKeepingLeaf, replaceHeader } from "./load.js"
import { locked } from "./locking.js"
import { sync } from "./sync.js"

/**
 * Replaces the session with the state's rows (after a backup of the old ones), under the hold and
 * after catching up (other writers' rows are kept; a header changed in memory, e.g. by
 * `setIdentity`, is kept too); takes the result over.
 */
export const rewriteFromState = (core: Core, label: string) =>
  locked(core, (held) =>
    Effect.gen(function*() {
      const header = core.state.header
      const savedLeaf = core.state.leafId
      if (core.onDisk) yield* sync(core, held)
      if (header !== undefined && core.state.header !== header) replaceHeader(core, header)
      const { backup, loaded } = yield* held.replace(SessionState.rows(core.state), { backup: label, cwd: core.cwd })
      core.pending = []
      adoptKeepingLeaf(core, loaded)
      if (savedLeaf === null || SessionState.hasId(core.state, savedLeaf)) SessionState.navigate(core.state, savedLeaf)
      return backup === undefined ? [] : [backup]
    }))

/**
 * prepareForRun's reset, under the hold: catches up first; a session that meanwhile holds an
 * assistant message (another writer's run) is not reset (`false`). Otherwise it is backed up and
 * emptied, and `true` is returned with the backup, if it had rows.
 */
export const resetFile = (core: Core) =>
  locked(core, (held) =>
    Effect.gen(function*() {
      if (core.onDisk) yield* sync(core, held)
      if (core.hasAssistant) return { reset: false, backup: undefined }
      const { backup } = yield* held.replace([], { backup: "reset", cwd: core.cwd })
      return { reset: true, backup }
    }))
