/**
 * `@branchlog/importers`: Claude Code, Codex and OpenClaw (SQLite) sessions into branchlog trees.
 *
 * @since 0.1.0
 */

/** Claude Code transcripts → sessions (pure). */
export * as ClaudeCode from "./ClaudeCode.js"

/** Codex rollouts → sessions (pure). */
export * as Codex from "./Codex.js"

/** Format detection (pure). */
export * as Detect from "./Detect.js"

/** What the importers produce. */
export * as ImportedSession from "./ImportedSession.js"

/** The importers' errors. */
export * as ImportError from "./ImportError.js"

/** Reading, converting and writing a source. */
export * as Importer from "./Importer.js"

/** OpenClaw agent database events → sessions (pure). */
export * as OpenClaw from "./OpenClaw.js"

/** Reading an OpenClaw agent database (read-only). */
export * as OpenClawDatabase from "./OpenClawDatabase.js"
