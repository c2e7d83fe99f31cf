/**
 * Catching up with the store under a hold: what others appended since the manager's cursor is
 * folded (without moving this manager's leaf), a replaced session is re-read whole, and a session
 * that vanished is written back whole.
 */
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type { Changes, Held, StoreFailure } from "../../TranscriptStore.js"
import type { Core } from "./core.js"
import { applyLine } from "./core.js"
import { adoptKeepingLeaf, rebuild } from "./load.js"

/** Writes the whole state to a session that vanished, then takes the result over. */
const restoreMissing = (core: Core, held: Held) =>
  Effect.gen(function*() {
    const rows = SessionState.rows(core.state)
    const { loaded } = yield* held.replace(rows, { cwd: core.cwd })
    core.pending = []
    adoptKeepingLeaf(core, loaded)
  })

/** Folds rows others appended since the cursor, keeping this manager's leaf. */
const foldAppended = (core: Core, change: Extract<Changes, { readonly _tag: "Appended" }>): void => {
  const saved = core.state.leafId
  for (const row of change.rows) applyLine(core, row)
  core.cursor = change.cursor
  core.end = change.end
  if (core.state.leafId !== saved) SessionState.navigate(core.state, saved)
}

/** Brings the state up to date with the session held by `held` (plain code: this runs before every write). */
export const sync = (core: Core, held: Held): Effect.Effect<void, StoreFailure> => {
  // a new session: nothing to catch up with (its first write checks that nothing is there)
  if (!core.onDisk) return Effect.void
  if (core.cursor === undefined) return rebuild(core)
  return Effect.flatMap(held.changes(core.cursor), (change): Effect.Effect<void, StoreFailure> => {
    switch (change._tag) {
      case "Unchanged":
        return Effect.void
      case "Appended":
        // a bounded state folds foreign rows only after loading the rest (the rows may reach anywhere)
        if (core.pending.length > 0 || core.bounded !== undefined) return rebuild(core)
        foldAppended(core, change)
        return Effect.void
      case "Replaced":
        return rebuild(core)
      case "Missing":
        return restoreMissing(core, held)
    }
  })
}
