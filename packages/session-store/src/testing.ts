/**
 * `@branchlog/session-store/testing`: the store conformance suite every backend runs, and what
 * the bounded-open tests of every store compare. The backends' own adapters live with them (the
 * JSONL files' in `@branchlog/store-jsonl/testing`).
 *
 * @since 0.1.0
 */

/** The store conformance suite every backend runs (`Conformance.suite(backend)`). */
export * as Conformance from "./testing/Conformance.js"

/** What the bounded-open tests of every store compare (`answers`) and their seeded generator (`prng`). */
export * as ResumeChecks from "./testing/ResumeChecks.js"
