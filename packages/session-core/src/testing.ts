/**
 * Test and benchmark helpers of @branchlog/session-core (not part of the runtime API).
 *
 * @since 0.1.0
 */

/** Deterministic synthetic sessions. */
export * as Synthetic from "./testing/Synthetic.js"

/** Agent message builders. */
export * as Messages from "./testing/Messages.js"
