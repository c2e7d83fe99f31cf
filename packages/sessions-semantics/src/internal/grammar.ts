/**
 * The grammar of session keys (spec §14): scopes (the `<rest>` after `agent:<agentId>:`), thread
 * suffixes, and the inverse printer. Works on keys that are already normalised.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { ConversationKind, ErrorPart, ParsedSessionKey, PeerMarker, Route, Scope } from "../SessionKey.js"

/** Why a key does not parse, before it becomes a `SessionKeyParseError`. */
export interface Failure {
  readonly part: ErrorPart
  readonly detail: string
}

/** The thread marker; the last one in a key splits base and thread id. */
export const THREAD_MARKER = ":thread:"
const TOPIC_MARKER = ":topic:"
const AGENT_PREFIX = "agent:"
const SUBAGENT_PREFIX = "subagent:"
const SUBAGENT_MARKER = ":subagent:"

const fail = (part: ErrorPart, detail: string): Either.Either<never, Failure> => Either.left({ part, detail })
const blank = (value: string | undefined): boolean => value === undefined || value.trim() === ""

const isPeerMarker = (token: string | undefined): token is PeerMarker => token === "direct" || token === "dm"
const isConversationKind = (token: string | undefined): token is ConversationKind =>
  token === "group" || token === "channel" || token === "room"

/** Index of the `:` that ends `agent:<id>`, or -1 when the key is not agent-scoped. */
export const agentHeadEnd = (key: string): number => (key.startsWith(AGENT_PREFIX) ? key.indexOf(":", 6) : -1)

/** Splits a normalised key at its last `:thread:` (never inside the `agent:<id>` head). */
export const splitThread = (key: string): { readonly base: string; readonly threadId: string | undefined } => {
  const index = key.lastIndexOf(THREAD_MARKER)
  if (index === -1 || (key.startsWith(AGENT_PREFIX) && index < agentHeadEnd(key))) {
    return { base: key, threadId: undefined }
  }
  return { base: key.slice(0, index), threadId: key.slice(index + THREAD_MARKER.length) }
}

const parseRoute = (
  segments: ReadonlyArray<string>
): { readonly kindAt: number; readonly route: Route | undefined } | undefined => {
  if (isPeerMarker(segments[0]) || isConversationKind(segments[0])) return { kindAt: 0, route: undefined }
  const channel = segments[0] ?? ""
  if (isPeerMarker(segments[1]) || isConversationKind(segments[1])) return { kindAt: 1, route: { channel } }
  const accountId = segments[1] ?? ""
  if (isPeerMarker(segments[2]) || isConversationKind(segments[2])) {
    return { kindAt: 2, route: { channel, accountId } }
  }
  return undefined
}

const parsePeer = (segments: ReadonlyArray<string>): Either.Either<Scope, Failure> | undefined => {
  const found = parseRoute(segments)
  if (found === undefined) return undefined
  const { kindAt, route } = found
  if (route !== undefined && blank(route.channel)) return fail("channel", "the channel before the peer kind is empty")
  if (route?.accountId !== undefined && blank(route.accountId)) {
    return fail("accountId", "the account id before the peer kind is empty")
  }
  const token = segments[kindAt] ?? ""
  const tail = segments.slice(kindAt + 1).join(":")
  if (blank(tail)) return fail("peerId", `no peer id after "${token}"`)
  const withRoute = route === undefined ? {} : { route }
  if (isPeerMarker(token)) return Either.right({ _tag: "Direct", ...withRoute, marker: token, peerId: tail })
  const kind = token as ConversationKind
  const topicAt = tail.lastIndexOf(TOPIC_MARKER)
  if (topicAt > 0 && !tail.slice(topicAt + TOPIC_MARKER.length).includes(":")) {
    const topicId = tail.slice(topicAt + TOPIC_MARKER.length)
    if (blank(topicId)) return fail("topicId", "empty topic id after :topic:")
    return Either.right({ _tag: "Conversation", ...withRoute, kind, peerId: tail.slice(0, topicAt), topicId })
  }
  return Either.right({ _tag: "Conversation", ...withRoute, kind, peerId: tail })
}

/** Parses the scope (`<rest>`); `agentScoped` decides whether a lone segment is a main key. */
export const parseScope = (rest: string, agentScoped: boolean): Either.Either<Scope, Failure> => {
  if (blank(rest)) return fail("rest", "nothing after the agent id")
  const segments = rest.split(":")
  const head = segments[0]
  switch (head) {
    case "cron": {
      const jobId = segments[1]
      if (blank(jobId)) return fail("cronJobId", "no job id after cron:")
      if (segments.length === 2) return Either.right({ _tag: "Cron", jobId: jobId! })
      if (segments[2] !== "run") return Either.right({ _tag: "Opaque", rest })
      const runId = segments[3]
      if (blank(runId)) return fail("cronRunId", "no run id after :run:")
      if (segments.length > 4) return Either.right({ _tag: "Opaque", rest })
      return Either.right({ _tag: "Cron", jobId: jobId!, runId: runId! })
    }
    case "subagent": {
      const path = rest.slice(SUBAGENT_PREFIX.length).split(SUBAGENT_MARKER)
      if (path.some(blank)) return fail("subagentId", "empty sub-agent id")
      const [first, ...others] = path
      return Either.right({ _tag: "Subagent", path: [first!, ...others] })
    }
    case "acp": {
      const id = rest.slice(4)
      return blank(id) ? fail("acpId", "no id after acp:") : Either.right({ _tag: "Acp", id })
    }
    case "hook": {
      const id = rest.slice(5)
      return blank(id) ? fail("hookId", "no id after hook:") : Either.right({ _tag: "Hook", id })
    }
  }
  const peer = parsePeer(segments)
  if (peer !== undefined) return peer
  if (segments.length === 1 && agentScoped) return Either.right({ _tag: "Main", mainKey: rest })
  return Either.right({ _tag: "Opaque", rest })
}

/** Parses a normalised, non-blank key. Keys without `agent:` never fail (they fall back to opaque). */
export const parseNormalized = (key: string): Either.Either<ParsedSessionKey, Failure> => {
  if (key === "global" || key === "unknown") return Either.right({ _tag: "Sentinel", name: key })
  if (!key.startsWith(AGENT_PREFIX)) {
    const { base, threadId } = splitThread(key)
    if (threadId !== undefined && !blank(threadId) && !blank(base)) {
      const scope = Either.getOrElse(parseScope(base, false), (): Scope => ({ _tag: "Opaque", rest: base }))
      return Either.right({ _tag: "Legacy", scope, threadId })
    }
    const scope = Either.getOrElse(parseScope(key, false), (): Scope => ({ _tag: "Opaque", rest: key }))
    return Either.right({ _tag: "Legacy", scope })
  }
  const headEnd = agentHeadEnd(key)
  const agentId = headEnd === -1 ? key.slice(6) : key.slice(6, headEnd)
  if (blank(agentId)) return fail("agentId", "empty agent id after agent:")
  if (headEnd === -1) return fail("rest", "nothing after the agent id")
  const { base, threadId } = splitThread(key)
  if (threadId !== undefined && blank(threadId)) return fail("threadId", "empty thread id after :thread:")
  return Either.map(parseScope(base.slice(headEnd + 1), true), (scope): ParsedSessionKey =>
    threadId === undefined
      ? { _tag: "Agent", agentId, scope }
      : { _tag: "Agent", agentId, scope, threadId })
}

const formatRoute = (route: Route | undefined): string =>
  route === undefined
    ? ""
    : route.accountId === undefined
    ? `${route.channel}:`
    : `${route.channel}:${route.accountId}:`

/** Prints a scope back to its `<rest>` string. */
export const formatScope = (scope: Scope): string => {
  switch (scope._tag) {
    case "Main":
      return scope.mainKey
    case "Direct":
      return `${formatRoute(scope.route)}${scope.marker}:${scope.peerId}`
    case "Conversation":
      return `${formatRoute(scope.route)}${scope.kind}:${scope.peerId}${
        scope.topicId === undefined ? "" : `${TOPIC_MARKER}${scope.topicId}`
      }`
    case "Cron":
      return scope.runId === undefined ? `cron:${scope.jobId}` : `cron:${scope.jobId}:run:${scope.runId}`
    case "Subagent":
      return `${SUBAGENT_PREFIX}${scope.path.join(SUBAGENT_MARKER)}`
    case "Acp":
      return `acp:${scope.id}`
    case "Hook":
      return `hook:${scope.id}`
    case "Opaque":
      return scope.rest
  }
}

/** Prints a parsed key back to its string. */
export const format = (parsed: ParsedSessionKey): string => {
  const thread = parsed._tag === "Sentinel" || parsed.threadId === undefined ? "" : `${THREAD_MARKER}${parsed.threadId}`
  switch (parsed._tag) {
    case "Sentinel":
      return parsed.name
    case "Agent":
      return `${AGENT_PREFIX}${parsed.agentId}:${formatScope(parsed.scope)}${thread}`
    case "Legacy":
      return `${formatScope(parsed.scope)}${thread}`
  }
}
