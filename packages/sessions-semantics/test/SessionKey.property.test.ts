import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import * as AgentId from "../src/AgentId.js"
import * as SessionKey from "../src/SessionKey.js"
import * as SessionKind from "../src/SessionKind.js"

const CHANNELS = ["telegram", "discord", "slack", "whatsapp", "signal", "matrix", "irc", "imessage"] as const
const ACCOUNTS = ["default", "bot2", "acme", "work-account"] as const
const RESERVED = new Set(["cron", "subagent", "acp", "hook", "direct", "dm", "group", "channel", "room"])

const lowerId = fc.stringMatching(/^[a-z0-9][a-z0-9@+._-]{0,15}$/)
const mixedId = fc.stringMatching(/^[A-Za-z0-9+/=]{1,12}$/)
const agentId = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/)
const mainKey = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,10}$/).filter((k) => !RESERVED.has(k))
const uuidish = fc.uuid().map((u) => u.toLowerCase())

const route: fc.Arbitrary<SessionKey.Route | undefined> = fc.option(
  fc.record({
    channel: fc.constantFrom(...CHANNELS),
    accountId: fc.option(fc.constantFrom(...ACCOUNTS), { nil: undefined })
  }).map(({ accountId, channel }) => (accountId === undefined ? { channel } : { channel, accountId })),
  { nil: undefined }
)

/** A Matrix channel/group or Signal group reached directly keeps the case of its id. */
const preservesCase = (r: SessionKey.Route | undefined, kind: SessionKey.ConversationKind): boolean =>
  r !== undefined && r.accountId === undefined &&
  ((r.channel === "matrix" && kind !== "room") || (r.channel === "signal" && kind === "group"))

const withRoute = (r: SessionKey.Route | undefined) => (r === undefined ? {} : { route: r })

const direct: fc.Arbitrary<SessionKey.Scope> = fc
  .record({ r: route, marker: fc.constantFrom("direct" as const, "dm" as const), peerId: lowerId })
  .map(({ marker, peerId, r }) => ({ _tag: "Direct", ...withRoute(r), marker, peerId }))

const conversation: fc.Arbitrary<{ scope: SessionKey.Scope; preserve: boolean }> = fc
  .record({
    r: route,
    kind: fc.constantFrom("group" as const, "channel" as const, "room" as const),
    lower: lowerId,
    mixed: mixedId,
    server: fc.stringMatching(/^[A-Za-z0-9.-]{1,12}$/),
    topicId: fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined })
  })
  .map(({ kind, lower, mixed, r, server, topicId }) => {
    const preserve = preservesCase(r, kind)
    const peerId = !preserve ? lower : r?.channel === "matrix" ? `!${mixed}:${server}` : mixed
    const scope: SessionKey.Scope = {
      _tag: "Conversation",
      ...withRoute(r),
      kind,
      peerId,
      ...(topicId === undefined ? {} : { topicId })
    }
    return { scope, preserve: preserve && r?.channel === "matrix" }
  })

const otherScope: fc.Arbitrary<SessionKey.Scope> = fc.oneof(
  direct,
  fc.record({ jobId: lowerId, runId: fc.option(lowerId, { nil: undefined }) }).map(({ jobId, runId }) =>
    runId === undefined ? { _tag: "Cron" as const, jobId } : { _tag: "Cron" as const, jobId, runId }
  ),
  fc.array(uuidish, { minLength: 1, maxLength: 4 }).map(([first, ...others]) => ({
    _tag: "Subagent" as const,
    path: [first!, ...others] as const
  })),
  fc.stringMatching(/^[a-z0-9-]{1,12}(:[a-z0-9-]{1,8})?$/).map((id) => ({ _tag: "Acp" as const, id })),
  uuidish.map((id) => ({ _tag: "Hook" as const, id }))
)

/** A scope, and whether a thread id after it keeps its case (Matrix tails). */
const scope: fc.Arbitrary<{ scope: SessionKey.Scope; preserve: boolean }> = fc.oneof(
  conversation,
  otherScope.map((s) => ({ scope: s, preserve: false }))
)

/** A thread id or none; Matrix tails keep its case, every other key has it lowercased. */
const thread = fc.record({
  present: fc.boolean(),
  lower: fc.stringMatching(/^[a-z0-9$._-]{1,12}$/),
  mixed: fc.stringMatching(/^\$?[A-Za-z0-9]{1,12}$/)
})

const pickThread = (
  t: { present: boolean; lower: string; mixed: string },
  preserve: boolean
): { threadId?: string } => (t.present ? { threadId: preserve ? t.mixed : t.lower } : {})

const mainScope = mainKey.map((k) => ({ scope: { _tag: "Main" as const, mainKey: k }, preserve: false }))

const parsedKey: fc.Arbitrary<SessionKey.ParsedSessionKey> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.constantFrom("global" as const, "unknown" as const).map((name) => ({
      _tag: "Sentinel" as const,
      name
    }))
  },
  {
    weight: 6,
    arbitrary: fc.record({ agentId, s: fc.oneof(scope, mainScope), t: thread }).map(({ agentId, s, t }) => ({
      _tag: "Agent" as const,
      agentId,
      scope: s.scope,
      ...pickThread(t, s.preserve)
    }))
  },
  {
    weight: 3,
    arbitrary: fc.record({ s: scope, t: thread }).map(({ s, t }) => ({
      _tag: "Legacy" as const,
      scope: s.scope,
      ...pickThread(t, s.preserve)
    }))
  }
)

const FRAGMENTS = [
  "agent",
  "main",
  "ops",
  "signal",
  "matrix",
  "telegram",
  "group",
  "channel",
  "room",
  "direct",
  "dm",
  "thread",
  "topic",
  "cron",
  "run",
  "subagent",
  "acp",
  "hook",
  "global",
  "unknown",
  ":",
  ":",
  ":",
  " ",
  "\t",
  "AbC",
  "XyZ",
  "!Room",
  "$Ev",
  "İ",
  "Σ",
  "ß",
  "K",
  "@g.us",
  "guild-1",
  "channel-2",
  "-",
  "_",
  ""
]
/** Strings made of the grammar's own tokens, so that the interesting shapes come up often. */
const tokenSoup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 12 }).map((parts) => parts.join(""))
const anyString = fc.oneof(fc.string(), fc.string({ unit: "binary" }), tokenSoup)

const RUNS = { numRuns: 500 }

describe("session key properties", () => {
  it("the generator covers every scope and the case-preserving ids", () => {
    const keys = fc.sample(parsedKey, { numRuns: 2000, seed: 42 })
    const tags = new Set(keys.map((k) => (k._tag === "Sentinel" ? "Sentinel" : k.scope._tag)))
    expect([...tags].sort()).toEqual(["Acp", "Conversation", "Cron", "Direct", "Hook", "Main", "Sentinel", "Subagent"])
    expect(keys.some((k) => /signal:group:[^:]*[A-Z]/.test(SessionKey.format(k)))).toBe(true)
    expect(keys.some((k) => /matrix:(channel|group):.*[A-Z].*:thread:/.test(SessionKey.format(k)))).toBe(true)
    expect(keys.some((k) => k._tag === "Legacy" && k.threadId !== undefined)).toBe(true)
  })

  it("parse(format(k)) equals k for generated keys", () => {
    fc.assert(
      fc.property(parsedKey, (k) => {
        const printed = SessionKey.format(k)
        const parsed = SessionKey.parse(printed)
        expect(Either.isRight(parsed) && parsed.right).toStrictEqual(k)
        expect(SessionKey.normalize(printed)).toBe(printed)
        expect(SessionKey.isSessionKey(printed)).toBe(true)
      }),
      RUNS
    )
  })

  it("normalising is idempotent", () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        const once = SessionKey.normalize(raw)
        expect(SessionKey.normalize(once)).toBe(once)
      }),
      { numRuns: 2000 }
    )
  })

  it("whatever parses formats back to its normal form", () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        const parsed = SessionKey.parse(raw)
        if (Either.isRight(parsed)) expect(SessionKey.format(parsed.right)).toBe(SessionKey.normalize(raw))
        else expect(parsed.left.input).toBe(raw)
      }),
      { numRuns: 2000 }
    )
  })

  it("classification never throws on arbitrary strings", () => {
    const shapes = ["missing", "agent", "malformed_agent", "legacy_or_alias"]
    fc.assert(
      fc.property(
        fc.oneof(anyString, fc.constant(null), fc.constant(undefined)),
        fc.record({ chatType: fc.option(fc.string()), spawnedBy: fc.option(fc.string()) }, { requiredKeys: [] }),
        (raw, entry) => {
          expect(shapes).toContain(SessionKey.classifyShape(raw))
          expect(SessionKind.SessionKind.literals).toContain(SessionKind.classify(raw, entry))
          expect(SessionKind.ChatType.literals).toContain(SessionKind.chatTypeOf(raw))
          expect(AgentId.isValid(SessionKey.agentIdOf(raw))).toBe(true)
          expect(SessionKey.subagentDepth(raw)).toBeGreaterThanOrEqual(0)
          SessionKey.splitThread(raw)
          SessionKey.parentKey(raw)
          SessionKey.parse(raw)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("agent ids: normalising is idempotent and always gives a valid id", () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        const id = AgentId.normalize(raw)
        expect(AgentId.isValid(id)).toBe(true)
        expect(AgentId.normalize(id)).toBe(id)
      }),
      { numRuns: 2000 }
    )
  })

  it("a thread key's parent is its base, and depth grows by one per nested sub-agent", () => {
    fc.assert(
      fc.property(agentId, fc.array(uuidish, { minLength: 1, maxLength: 5 }), lowerId, (agent, path, threadId) => {
        const key = `agent:${agent}:subagent:${path.join(":subagent:")}`
        expect(SessionKey.subagentDepth(key)).toBe(path.length)
        const threaded = SessionKey.withThread(key, threadId)
        expect(SessionKey.parentKey(threaded)).toEqual(expect.objectContaining({ value: key }))
      })
    )
  })
})
