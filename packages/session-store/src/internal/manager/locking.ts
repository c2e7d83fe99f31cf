/**
 * Holding the session: every write runs under the store's exclusive hold (the transcript lock,
 * for files); inside this manager's own `withWriteLock` the hold it took is used as it is (no
 * re-entrant acquire per write).
 */
import * as Effect from "effect/Effect"
import * as SessionRef from "../../SessionRef.js"
import type { Held, StoreFailure } from "../../TranscriptStore.js"
import type { Core } from "./core.js"

/**
 * The hold of this manager's `withWriteLock` when it is a hold of the session the manager is on
 * now (a store may hand back its own canonical reference object: the same session, another object).
 */
export const heldNow = (core: Core): Held | undefined => {
  const held = core.held
  if (held === undefined || core.ref === undefined) return undefined
  return held.ref === core.ref || SessionRef.equals(held.ref, core.ref) ? held : undefined
}

/** Runs `f` holding the session (the one this manager's `withWriteLock` holds, else a fresh hold). */
export const locked = <A, E>(
  core: Core,
  f: (held: Held) => Effect.Effect<A, E>
): Effect.Effect<A, E | StoreFailure> => {
  const held = heldNow(core)
  if (held !== undefined) return f(held)
  // a manager keeping the session's index current writes it before letting go
  const index = core.index
  return core.services.store.exclusive(
    core.ref!,
    index === undefined
      ? f
      : (h) => Effect.ensuring(f(h), Effect.suspend(() => core.index?.write(core.cursor) ?? Effect.void)),
    core.options.lock === undefined ? {} : { lock: core.options.lock }
  )
}

/** Holds the session across `effect`: this manager's writes inside it skip re-checks of their own tail. */
export const withWriteLock = <A, E, R>(
  core: Core,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreFailure, R> =>
  !core.persist || core.ref === undefined || core.readOnly
    ? effect
    : core.services.store.exclusive(
      core.ref,
      (held) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            core.lockDepth += 1
            const outer = core.held
            core.held = held
            return outer
          }),
          () => effect,
          (outer) =>
            Effect.zipRight(
              // a manager keeping the session's index current writes it when its hold ends
              Effect.suspend(() => core.index?.write(core.cursor) ?? Effect.void),
              Effect.sync(() => {
                core.lockDepth -= 1
                core.held = outer
              })
            )
        ),
      core.options.lock === undefined ? {} : { lock: core.options.lock }
    )
