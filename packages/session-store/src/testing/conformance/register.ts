/**
 * Registers the conformance cases with `@effect/vitest` (loaded only inside vitest): one block
 * named `conformance: <name>` that builds the backend's layer once (before its first case, closed
 * after its last), one `describe` per group, one scoped test per case, with the live clock.
 *
 * Not `layer()` of `@effect/vitest`: it assigns its methods onto vitest's shared `it`, so every file
 * that runs after it in the same worker (vitest's `isolate: false`) got the backend's runtime, and
 * no `TestClock`, from its own `it.effect`.
 */
import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as appends from "./appends.js"
import type { Backend } from "./Backend.js"
import * as boundedOpen from "./boundedOpen.js"
import * as branching from "./branching.js"
import * as catalog from "./catalog.js"
import * as context from "./context.js"
import * as flush from "./flush.js"
import * as forks from "./forks.js"
import * as listing from "./listing.js"
import * as prepare from "./prepare.js"
import * as readOnly from "./readOnly.js"
import * as resume from "./resume.js"
import * as rows from "./rows.js"
import * as streaming from "./streaming.js"
import type { Fixture, Group } from "./support.js"
import * as writers from "./writers.js"

/** Every group of cases, in the order they run. */
export const groups: ReadonlyArray<Group> = [
  flush.group,
  appends.group,
  branching.group,
  context.group,
  forks.group,
  writers.group,
  rows.group,
  streaming.group,
  readOnly.group,
  resume.group,
  boundedOpen.group,
  catalog.group,
  listing.group,
  prepare.group
]

/** The title of a backend's block: what `pnpm conformance` counts by. */
export const title = <R>(backend: Backend<R>): string => `conformance: ${backend.name}`

/** Registers every case against `backend` (`fixtures`: sessions other tools wrote, for the cases that store them as they are). */
export const register = <R>(
  backend: Backend<R>,
  options: { readonly timeout?: number; readonly fixtures?: ReadonlyArray<Fixture> } = {}
): void => {
  describe(title(backend), () => {
    const context = { fixtures: options.fixtures ?? [] }
    const timeout = options.timeout ?? 60_000
    // built once, by the block's beforeAll, shared by every case, released after the last
    const services = ManagedRuntime.make(backend.layer)
    beforeAll(async () => {
      await services.runtime()
    })
    afterAll(() => services.dispose())
    for (const group of groups) {
      describe(group.name, () => {
        for (const c of group.cases) {
          it.scopedLive(
            c.name,
            () => Effect.provide(c.run(backend.subject, context), services),
            Math.max(timeout, c.timeout ?? 0)
          )
        }
      })
    }
  })
}
