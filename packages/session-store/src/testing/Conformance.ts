/**
 * The store conformance suite: every promise `SessionManager` and `SessionCatalog` make through a
 * store, as cases any backend runs with `@effect/vitest`. A backend is a name, the layer of its
 * services, and a `Subject` that hides how sessions are addressed (see `Backend`):
 *
 * ```ts
 * // test/conformance.test.ts
 * import { Conformance } from "@branchlog/session-store/testing"
 * Conformance.suite(Conformance.memory())
 * ```
 *
 * `suite` registers one block named `conformance: <backend name>` (what `pnpm conformance`
 * counts), one `describe` per behaviour group and one test per case, on the live clock. The
 * backend's layer is built once for the block and closed after it; vitest's shared `it` is left as
 * it was, so other tests may follow in the file or the worker. The vitest part is loaded only
 * inside vitest, so this module (and `@branchlog/session-store/testing`) can still be imported by
 * plain scripts.
 *
 * @since 0.1.0
 */
import type { Backend } from "./conformance/Backend.js"
import type { Fixture, Group } from "./conformance/support.js"

export type {
  /** A backend the suite runs against: name, layer, subject. */
  Backend,
  /** Sessions listed in a place: reference and `SessionInfo`. */
  Listed,
  /** A place where sessions live (opaque to the suite). */
  Place,
  /** The string form of a session reference. */
  Ref,
  /** The services every case needs (the store); a backend's own extras are its `R`. */
  Services,
  /** How the suite reaches sessions of one backend. */
  Subject
} from "./conformance/Backend.js"

export type {
  /** One case: a name and the effect that checks one promise. */
  Case,
  /** What a case is given beside the backend (the fixtures). */
  Context,
  /** A session another tool wrote, as bytes: name and bytes. */
  Fixture,
  /** A named group of cases. */
  Group
} from "./conformance/support.js"

export {
  /** The in-memory backend (`memory`, `MemoryStore`): no filesystem, rows in plain state. */
  memory
} from "./conformance/rowBackend.js"

const inVitest = typeof (globalThis as { __vitest_worker__?: unknown }).__vitest_worker__ === "object"

const runner = inVitest ? await import("./conformance/register.js") : undefined

const required = () => {
  if (runner === undefined) throw new Error("the conformance suite runs inside vitest")
  return runner
}

/**
 * Registers every conformance case against `backend` (call it at the top level of a vitest test
 * file). `fixtures`: sessions other tools wrote (the reference fixtures), which the bounded-open
 * cases store as they are, beside the suite's own samples.
 */
export const suite = <R>(
  backend: Backend<R>,
  options: { readonly timeout?: number; readonly fixtures?: ReadonlyArray<Fixture> } = {}
): void => required().register(backend, options)

/** Every group of cases (inside vitest). */
export const groups = (): ReadonlyArray<Group> => required().groups

/** The number of cases a backend runs (inside vitest). */
export const caseCount = (): number => required().groups.reduce((n, group) => n + group.cases.length, 0)
