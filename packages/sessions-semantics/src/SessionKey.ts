/**
 * Session keys (spec §14): `agent:<agentId>:<rest>`, plus the legacy and alias keys that do not
 * start with `agent:` and the `global` / `unknown` sentinels.
 *
 * Every function takes raw strings and normalises them first (trim, lowercase except the
 * case-preserving Signal group and Matrix channel/group ids, agent id sanitised). Parsing never
 * throws: it returns `Either<ParsedSessionKey, SessionKeyParseError>`, and the error names the
 * part of the key that is wrong.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AgentId from "./AgentId.js"
import * as Grammar from "./internal/grammar.js"
import { normalizeKey } from "./internal/keyCase.js"

/** The main key used when none is configured: `main` (so `agent:main:main`). */
export const DEFAULT_MAIN_KEY = "main"

/** The marker whose last occurrence splits a key into base and thread id. */
export const THREAD_MARKER = ":thread:"

/** The token before a direct peer id: `direct` (canonical) or `dm` (older keys). */
export type PeerMarker = "direct" | "dm"

/** The token before a group-like peer id. */
export type ConversationKind = "group" | "channel" | "room"

/** The channel (and optionally the account on it) that a peer is reached through. */
export interface Route {
  readonly channel: string
  readonly accountId?: string
}

/** The structured `<rest>` of a key: what the session is about. */
export type Scope =
  /** `main` or the configured main key: the shared DM session (`dmScope: "main"`). */
  | { readonly _tag: "Main"; readonly mainKey: string }
  /** `direct:<peer>`, `<channel>:direct:<peer>`, `<channel>:<account>:direct:<peer>` (or `dm`). */
  | { readonly _tag: "Direct"; readonly route?: Route; readonly marker: PeerMarker; readonly peerId: string }
  /** `[<channel>:[<account>:]]<group|channel|room>:<id>[:topic:<topicId>]`. */
  | {
    readonly _tag: "Conversation"
    readonly route?: Route
    readonly kind: ConversationKind
    readonly peerId: string
    readonly topicId?: string
  }
  /** `cron:<jobId>` or `cron:<jobId>:run:<runId>`. */
  | { readonly _tag: "Cron"; readonly jobId: string; readonly runId?: string }
  /** `subagent:<id>[:subagent:<id>…]`, outermost first. */
  | { readonly _tag: "Subagent"; readonly path: readonly [string, ...Array<string>] }
  /** `acp:<…>` (the id is opaque and may hold colons). */
  | { readonly _tag: "Acp"; readonly id: string }
  /** `hook:<id>` (webhook sessions). */
  | { readonly _tag: "Hook"; readonly id: string }
  /** Anything else, kept verbatim (aliases, legacy shapes). */
  | { readonly _tag: "Opaque"; readonly rest: string }

/** A parsed key: a sentinel, an agent-scoped key, or a legacy/alias key without `agent:`. */
export type ParsedSessionKey =
  | { readonly _tag: "Sentinel"; readonly name: "global" | "unknown" }
  | { readonly _tag: "Agent"; readonly agentId: string; readonly scope: Scope; readonly threadId?: string }
  | { readonly _tag: "Legacy"; readonly scope: Scope; readonly threadId?: string }

/** The parts of a key that a parse error can point at. */
export const ErrorPart = Schema.Literal(
  "key",
  "agentId",
  "rest",
  "threadId",
  "channel",
  "accountId",
  "peerId",
  "topicId",
  "cronJobId",
  "cronRunId",
  "subagentId",
  "acpId",
  "hookId"
)

/** The part of a key that a parse error points at. */
export type ErrorPart = typeof ErrorPart.Type

/** A key that does not parse: `part` says which part is wrong, `detail` how. */
export class SessionKeyParseError extends Schema.TaggedError<SessionKeyParseError>()("SessionKeyParseError", {
  input: Schema.String,
  part: ErrorPart,
  detail: Schema.String
}) {
  /** A readable one-line description. */
  override get message(): string {
    return `invalid session key ${JSON.stringify(this.input)} (${this.part}): ${this.detail}`
  }
}

/** How a caller's "session key" string looks (spec `classifySessionKeyShape`). */
export type SessionKeyShape = "missing" | "agent" | "malformed_agent" | "legacy_or_alias"

/** The canonical form of a key: trimmed, case-folded, agent id sanitised; blank input gives `""`. */
export const normalize = (raw: string | null | undefined): string => normalizeKey(raw)

/** Parses a key by the grammar of spec §14; keys without `agent:` always parse (opaque at worst). */
export const parse = (raw: string | null | undefined): Either.Either<ParsedSessionKey, SessionKeyParseError> => {
  const input = raw ?? ""
  const key = normalizeKey(input)
  if (key === "") return Either.left(new SessionKeyParseError({ input, part: "key", detail: "the key is blank" }))
  return Either.mapLeft(Grammar.parseNormalized(key), (f) => new SessionKeyParseError({ input, ...f }))
}

/** Prints a parsed key in canonical form; `parse(format(k))` gives `k` back for canonical parts. */
export const format = (parsed: ParsedSessionKey): string => normalizeKey(Grammar.format(parsed))

const canonicalProblem = (value: string): string | undefined => {
  if (normalizeKey(value) !== value) return "a session key is trimmed and normalised (see SessionKey.normalize)"
  return Either.match(parse(value), { onLeft: (e) => e.message, onRight: () => undefined })
}

/** A canonical session key: normalised, and parses by the grammar. */
export const SessionKey = Schema.String.pipe(
  Schema.filter((value) => canonicalProblem(value) ?? true),
  Schema.brand("@branchlog/sessions-semantics/SessionKey"),
  Schema.annotations({ identifier: "SessionKey" })
)

/** The type of a canonical session key. */
export type SessionKey = typeof SessionKey.Type

/** Decodes any string into a `SessionKey` by normalising it first; encodes to the canonical string. */
export const SessionKeyFromString = Schema.transformOrFail(Schema.String, SessionKey, {
  strict: true,
  decode: (raw, _, ast) =>
    Either.match(parse(raw), {
      onLeft: (e) => ParseResult.fail(new ParseResult.Type(ast, raw, e.message)),
      onRight: () => ParseResult.succeed(normalizeKey(raw))
    }),
  encode: ParseResult.succeed
})

/** Whether a value is a canonical `SessionKey`. */
export const isSessionKey: (u: unknown) => u is SessionKey = Schema.is(SessionKey)

/** Normalises and validates a raw key. */
export const make = (raw: string | null | undefined): Either.Either<SessionKey, SessionKeyParseError> =>
  Either.map(parse(raw), () => normalizeKey(raw) as SessionKey)

/** Builds a `SessionKey` from parts (formats, then validates). */
export const fromParsed = (parsed: ParsedSessionKey): Either.Either<SessionKey, SessionKeyParseError> =>
  make(Grammar.format(parsed))

/** The main session key of an agent: `agent:<agentId>:<mainKey>` (defaults `main`, `main`). */
export const mainKey = (options?: { readonly agentId?: string; readonly mainKey?: string }): SessionKey => {
  const agentId = AgentId.normalize(options?.agentId)
  const main = (options?.mainKey ?? "").trim().toLowerCase() || DEFAULT_MAIN_KEY
  return Either.getOrElse(make(`agent:${agentId}:${main}`), () => `agent:${agentId}:${DEFAULT_MAIN_KEY}` as SessionKey)
}

/**
 * The lenient agent-prefix parse of the spec (`parseAgentSessionKey`): at least three non-empty
 * `:`-parts, the first `agent`. The agent id is sanitised.
 */
export const parseAgent = (
  raw: string | null | undefined
): Option.Option<{ readonly agentId: AgentId.AgentId; readonly rest: string }> => {
  const parts = normalizeKey(raw).split(":").filter((part) => part !== "")
  if (parts.length < 3 || parts[0] !== "agent") return Option.none()
  return Option.some({ agentId: AgentId.normalize(parts[1]), rest: parts.slice(2).join(":") })
}

/** Spec `classifySessionKeyShape`: `missing`, `agent`, `malformed_agent` or `legacy_or_alias`. */
export const classifyShape = (raw: string | null | undefined): SessionKeyShape => {
  const key = normalizeKey(raw)
  if (key === "") return "missing"
  if (Option.isSome(parseAgent(key))) return "agent"
  return key.startsWith("agent:") ? "malformed_agent" : "legacy_or_alias"
}

/** Alias of `classifyShape` under the spec's name. */
export const classifySessionKeyShape = classifyShape

/** The agent id of a key (spec `resolveAgentIdFromSessionKey`): parsed, else `main`. */
export const agentIdOf = (raw: string | null | undefined): AgentId.AgentId =>
  Option.match(parseAgent(raw), { onNone: () => AgentId.normalize(undefined), onSome: (p) => p.agentId })

/** The `<rest>` of an agent key, or the whole normalised key when it has no `agent:` prefix. */
export const scopedRest = (raw: string | null | undefined): string =>
  Option.match(parseAgent(raw), { onNone: () => normalizeKey(raw), onSome: (p) => p.rest })

/** Splits a key at its last `:thread:`; without a non-blank thread id, `base` is the whole key. */
export const splitThread = (
  raw: string | null | undefined
): { readonly base: string; readonly threadId: Option.Option<string> } => {
  const key = normalizeKey(raw)
  const { base, threadId } = Grammar.splitThread(key)
  if (threadId === undefined || threadId.trim() === "" || base.trim() === "") {
    return { base: key, threadId: Option.none() }
  }
  return { base, threadId: Option.some(threadId.trim()) }
}

/** The thread key of a base key (spec `resolveThreadSessionKeys`); blank thread ids give the base. */
export const withThread = (base: string, threadId: string | number | null | undefined): string => {
  const thread = threadId === null || threadId === undefined ? "" : String(threadId).trim()
  return normalizeKey(thread === "" ? base : `${base}${THREAD_MARKER}${thread}`)
}

/** Sub-agent nesting depth: the number of `:subagent:` after the agent head (a bare `subagent:` counts). */
export const subagentDepth = (raw: string | null | undefined): number =>
  `:${scopedRest(raw)}`.split(":subagent:").length - 1

/** Whether the key is a sub-agent key (`agent:<id>:subagent:…` or bare `subagent:…`). */
export const isSubagent = (raw: string | null | undefined): boolean => scopedRest(raw).startsWith("subagent:")

/** Whether the key is an ACP key (`agent:<id>:acp:…` or bare `acp:…`). */
export const isAcp = (raw: string | null | undefined): boolean => scopedRest(raw).startsWith("acp:")

/** Whether the key is a cron key (`agent:<id>:cron:…` or legacy `cron:…`). */
export const isCron = (raw: string | null | undefined): boolean => scopedRest(raw).startsWith("cron:")

/** Whether the key is one cron run (`…cron:<jobId>:run:<runId>`). */
export const isCronRun = (raw: string | null | undefined): boolean =>
  /^cron:[^:]+:run:[^:]+(?::|$)/.test(scopedRest(raw))

/** Whether the key is a webhook key (`hook:…`, bare or agent-scoped). */
export const isHook = (raw: string | null | undefined): boolean => scopedRest(raw).startsWith("hook:")

/**
 * The parent of a thread key (its base) or of a nested sub-agent key (the key without its last
 * `:subagent:<id>`). A first-level sub-agent's spawner is not in its key (`spawnedBy` in its
 * entry), so it has none; nor has any other key.
 */
export const parentKey = (raw: string | null | undefined): Option.Option<string> => {
  const { base, threadId } = splitThread(raw)
  if (Option.isSome(threadId)) return Option.some(base)
  if (subagentDepth(base) < 2) return Option.none()
  return Option.some(base.slice(0, base.lastIndexOf(":subagent:")))
}
