/**
 * @branchlog/session-core: the pure heart of branchlog. Entry schemas, the line codec,
 * migrations, the reducer (a fold of rows into a `SessionState`), context building and tree
 * queries for pi / OpenClaw session transcripts (format version 3). No I/O, no clock, no
 * randomness.
 *
 * @since 0.1.0
 */

/** Agent message shapes and derived context messages. */
export * as AgentMessage from "./AgentMessage.js"
/** What is wrong with a session: the findings of fsck. */
export * as Diagnostics from "./Diagnostics.js"
/** Header, entry and leaf-control schemas. */
export * as Entry from "./Entry.js"
/** JSON answers for context, tree and info. */
export * as JsonView from "./JsonView.js"
/** One line in, one parsed row out; and back. */
export * as Line from "./Line.js"
/** Context messages converted for a model. */
export * as LlmMessages from "./LlmMessages.js"
/** v1 → v2 → v3 migrations. */
export * as Migration from "./Migration.js"
/** `buildSessionContext`. */
export * as SessionContext from "./SessionContext.js"
/** The session state and its reducer. */
export * as SessionState from "./SessionState.js"
/** Tree queries. */
export * as Tree from "./Tree.js"
