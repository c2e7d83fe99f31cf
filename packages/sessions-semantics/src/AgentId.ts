/**
 * Agent ids: the `<agentId>` part of `agent:<agentId>:<rest>` session keys.
 *
 * A valid id matches `^[a-z0-9][a-z0-9_-]{0,63}$`. Anything else is sanitised (lowercased, runs of
 * other characters become `-`, leading `-`/`_` and trailing `-` dropped, cut to 64 characters); what is
 * left empty becomes the default id `main`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The agent id used when none is given or sanitising leaves nothing: `main`. */
export const DEFAULT_AGENT_ID = "main"

/** The pattern every canonical agent id matches. */
export const AGENT_ID_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** The maximum length of an agent id. */
export const MAX_AGENT_ID_LENGTH = 64

const INVALID_RUN = /[^a-z0-9_-]+/g
const LEADING_JUNK = /^[-_]+/
const TRAILING_DASHES = /-+$/

/** A canonical agent id (matches `AGENT_ID_PATTERN`). */
export const AgentId = Schema.String.pipe(
  Schema.pattern(AGENT_ID_PATTERN, { message: () => "an agent id matches ^[a-z0-9][a-z0-9_-]{0,63}$" }),
  Schema.brand("@branchlog/sessions-semantics/AgentId"),
  Schema.annotations({ identifier: "AgentId" })
)

/** The type of a canonical agent id. */
export type AgentId = typeof AgentId.Type

/** Whether `value` is already a canonical agent id (no trimming, no case folding). */
export const isValid = (value: string): value is AgentId => AGENT_ID_PATTERN.test(value)

/**
 * Sanitises any input into a canonical agent id; blank or hopeless input gives `main`.
 * Total and idempotent: `normalize(normalize(x)) === normalize(x)`.
 */
export const normalize = (value: string | null | undefined): AgentId => {
  const trimmed = (value ?? "").trim()
  if (trimmed === "") return DEFAULT_AGENT_ID as AgentId
  const lowered = trimmed.toLowerCase()
  if (AGENT_ID_PATTERN.test(lowered)) return lowered as AgentId
  const sanitized = lowered
    .replace(INVALID_RUN, "-")
    .replace(LEADING_JUNK, "")
    .slice(0, MAX_AGENT_ID_LENGTH)
    .replace(TRAILING_DASHES, "")
  return (AGENT_ID_PATTERN.test(sanitized) ? sanitized : DEFAULT_AGENT_ID) as AgentId
}
