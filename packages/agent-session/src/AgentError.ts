/**
 * The errors of the agent runtime: tools, models, the model registry, compaction and navigation.
 * Each carries what a caller needs to act on it (the tool or model name, the HTTP status, the
 * entry id).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A tool could not run: bad arguments, a failing workspace operation, a blocked or failed hook. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  /** `<tool>: <reason>`. */
  override get message(): string {
    return `${this.toolName}: ${this.reason}`
  }
}

/** The language model failed (network, HTTP status, malformed stream, scripted failure). */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  provider: Schema.String,
  reason: Schema.String,
  status: Schema.optional(Schema.Number),
  /** The wait the provider asked for (`Retry-After`), in milliseconds. */
  retryAfterMs: Schema.optional(Schema.Number),
  /** `true` when the failure is transient whatever its status (connection refused or reset, a cut stream). */
  transient: Schema.optional(Schema.Boolean)
}) {
  /** The reason, with the provider and HTTP status when known. */
  override get message(): string {
    return `${this.provider}: ${this.reason}${this.status === undefined ? "" : ` (HTTP ${this.status})`}`
  }
}

/** A model that the model registry does not know. */
export class ModelNotFoundError extends Schema.TaggedError<ModelNotFoundError>()("ModelNotFoundError", {
  provider: Schema.String,
  modelId: Schema.String
}) {
  /** `Model <provider>/<id> not found`. */
  override get message(): string {
    return `Model ${this.provider}/${this.modelId} not found`
  }
}

/** `prompt` was called while a turn of the same session was still running. */
export class AgentBusyError extends Schema.TaggedError<AgentBusyError>()("AgentBusyError", {
  sessionId: Schema.String
}) {
  /** Names the session. */
  override get message(): string {
    return `session ${this.sessionId} is already running a turn`
  }
}

/** Compaction could not run (nothing to compact, or the summary model failed). */
export class CompactionError extends Schema.TaggedError<CompactionError>()("CompactionError", {
  reason: Schema.String
}) {
  /** The reason. */
  override get message(): string {
    return `compaction: ${this.reason}`
  }
}

/** `navigateTree` / `fork` was given an id the session does not know, or a target it cannot use. */
export class NavigationError extends Schema.TaggedError<NavigationError>()("NavigationError", {
  entryId: Schema.String,
  reason: Schema.String
}) {
  /** The entry and the reason. */
  override get message(): string {
    return `entry ${this.entryId}: ${this.reason}`
  }
}
