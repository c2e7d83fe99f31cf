/**
 * `@branchlog/sessions-semantics`: session keys (grammar, normalising, shapes), session kinds and
 * chat types, session lifecycle and transcript events, the session index, and the bridge that
 * lets session-store publish transcript events.
 *
 * @since 0.1.0
 */

/** Agent ids: the pattern, sanitising, the default `main`. */
export * as AgentId from "./AgentId.js"

/** Session keys: parse, format, normalise, shapes, threads, sub-agents. */
export * as SessionKey from "./SessionKey.js"

/** Session kinds and chat types derived from keys and store entries. */
export * as SessionKind from "./SessionKind.js"

/** Lifecycle and transcript events: the `SessionEvents` service and its listener API. */
export * as SessionEvents from "./SessionEvents.js"

/** The session index: session key → session record, one JSON file per agent, locked and atomic. */
export * as SessionIndex from "./SessionIndex.js"

/** The bridge from session-store's `TranscriptObserver` to `SessionEvents`. */
export * as StoreBridge from "./StoreBridge.js"
