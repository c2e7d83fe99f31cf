/**
 * Registers the conformance cases with `@effect/vitest` (loaded only inside vitest): one
 * `layer(backend.layer)` block named `conformance: <name>`, one `describe` per group, one
 * `it.scoped` per case, with the live clock (`excludeTestServices`).
 */
import { describe, layer } from "@effect/vitest"
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
): void =>
  layer(backend.layer, { excludeTestServices: true })(title(backend), (it) => {
    const context = { fixtures: options.fixtures ?? [] }
    const timeout = options.timeout ?? 60_000
    for (const group of groups) {
      describe(group.name, () => {
        for (const c of group.cases) {
          it.scoped(c.name, () => c.run(backend.subject, context), Math.max(timeout, c.timeout ?? 0))
        }
      })
    }
  })
