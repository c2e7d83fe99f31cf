/**
 * `@branchlog/session-store/testing`: the in-memory filesystem, the layers of the file-level
 * services, and harnesses that run one behavioural suite against real files and the in-memory
 * volume — for this package's suites and for users' own tests — and the store conformance suite.
 *
 * @since 0.1.0
 */

/** The in-memory volume, its tag and layers. */
export * as MemoryFileSystem from "./MemoryFileSystem.js"

/** The store conformance suite every backend runs (`Conformance.suite(backend)`). */
export * as Conformance from "./testing/Conformance.js"

/** What the bounded-open tests of every store compare (`answers`) and their seeded generator (`prng`). */
export * as ResumeChecks from "./testing/ResumeChecks.js"

/** Child processes for multi-process tests: start one through tsx, wait for what it prints. */
export * as Children from "./testing/Children.js"

/** One harness per backend: the services' layer plus an "external process" editing files. */
export * as Harness from "./testing/Harness.js"

export {
  /** Every file-level service over one in-memory volume, plus the volume. */
  layerMemory,
  /** Every file-level service over node:fs (real files). */
  layerNode,
  /** Every file-level service over the `MemoryFileSystem` in context. */
  layerServicesMemory
} from "./SessionStore.js"
