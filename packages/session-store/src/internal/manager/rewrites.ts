/**
 * The manager's destructive rewrites of its own file (`rewrite`, prepareForRun's reset): under
 * the lock, after folding what other writers did since this manager last looked, through
 * `TranscriptFile.replace` (backup first, owner and mode kept, nothing left on failure).
 */
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type { Core } from "./core.js"
import { contentOf, rebuild, replaceHeader } from "./load.js"
import { dropAppender, locked, markLastWriter, sync } from "./persist.js"

/**
 * Replaces the file with the state's rows (after a backup of the old bytes), atomically, under
 * the lock and after folding what other writers did since this manager last looked (their rows
 * are kept; a header changed in memory, e.g. by `setIdentity`, is kept too); re-reads it.
 */
export const rewriteFromState = (core: Core, label: string) =>
  locked(core, (token) =>
    Effect.gen(function*() {
      // the file is replaced (new inode): a held appender would write to the old one
      yield* dropAppender(core)
      const file = core.file!
      const header = core.state.header
      const savedLeaf = core.state.leafId
      if (core.onDisk) yield* sync(core, token)
      if (header !== undefined && core.state.header !== header) replaceHeader(core, header)
      const replaced = yield* core.services.files.replace(file, contentOf(SessionState.rows(core.state)), {
        backup: label
      })
      core.pending = []
      core.onDisk = true
      yield* rebuild(core)
      if (savedLeaf === null || SessionState.hasId(core.state, savedLeaf)) SessionState.navigate(core.state, savedLeaf)
      markLastWriter(core)
      return replaced.backup === undefined ? [] : [replaced.backup]
    }))

/**
 * prepareForRun's reset, under the lock: folds what changed first; a file that meanwhile holds an
 * assistant message (another writer's run) is not reset (`false`). Otherwise the file is backed
 * up and emptied, and `true` is returned with the backup, if the file had bytes.
 */
export const resetFile = (core: Core) =>
  locked(core, (token) =>
    Effect.gen(function*() {
      yield* dropAppender(core)
      const file = core.file!
      if (core.onDisk) yield* sync(core, token)
      if (core.hasAssistant) return { reset: false, backup: undefined }
      const replaced = yield* core.services.files.replace(file, "", { backup: "reset" })
      markLastWriter(core, false)
      return { reset: true, backup: replaced.backup }
    }))
