/**
 * Catching up with the store under a hold: what others appended since the manager's cursor is
 * folded (without moving this manager's leaf), a replaced session is re-read whole, and a session
 * that vanished is written back whole.
 */
import { SessionState } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import type { Held, StoreFailure } from "../../TranscriptStore.js"
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

/** Brings the state up to date with the session held by `held`. */
export const sync = (core: Core, held: Held): Effect.Effect<void, StoreFailure> =>
  Effect.gen(function*() {
    // a new session: nothing to catch up with (its first write checks that nothing is there)
    if (!core.onDisk) return
    if (core.cursor === undefined) return yield* rebuild(core)
    const change = yield* held.changes(core.cursor)
    switch (change._tag) {
      case "Unchanged":
        return
      case "Appended": {
        // a bounded state folds foreign rows only after loading the rest (the rows may reach anywhere)
        if (core.pending.length > 0 || core.bounded !== undefined) return yield* rebuild(core)
        const saved = core.state.leafId
        for (const row of change.rows) applyLine(core, row)
        core.cursor = change.cursor
        core.end = change.end
        if (core.state.leafId !== saved) SessionState.navigate(core.state, saved)
        return
      }
      case "Replaced":
        return yield* rebuild(core)
      case "Missing":
        return yield* restoreMissing(core, held)
    }
  })
