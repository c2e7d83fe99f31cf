import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as SessionKey from "../src/SessionKey.js"
import * as SessionKind from "../src/SessionKind.js"

/** What every key of the table is expected to give. */
interface Expected {
  readonly input: string
  /** `SessionKey.normalize(input)` */
  readonly canonical: string
  readonly shape: SessionKey.SessionKeyShape
  readonly kind: SessionKind.SessionKind
  readonly chat: SessionKind.ChatType
  readonly agentId: string
  readonly thread: string | undefined
  readonly depth: number
  readonly parent: string | undefined
  /** The parsed scope tag (`Sentinel` for sentinels), or `error:<part>`. */
  readonly parsed: string
}

const row = (input: string, parsed: string, overrides: Partial<Omit<Expected, "input" | "parsed">> = {}): Expected => ({
  input,
  parsed,
  canonical: input,
  shape: "agent",
  kind: "direct",
  chat: "unknown",
  agentId: "main",
  thread: undefined,
  depth: 0,
  parent: undefined,
  ...overrides
})

const TABLE: ReadonlyArray<Expected> = [
  // main / shared DM
  row("agent:main:main", "Main"),
  row("AGENT:Main:MAIN", "Main", { canonical: "agent:main:main" }),
  row("  agent:ops:main  ", "Main", { canonical: "agent:ops:main", agentId: "ops" }),
  row("agent:ops:work", "Main", { agentId: "ops" }),
  row("agent:My Bot!:main", "Main", { canonical: "agent:my-bot:main", agentId: "my-bot" }),
  row("agent:_ops_:main", "Main", { canonical: "agent:ops_:main", agentId: "ops_" }),
  // direct messages: per peer, per channel+peer, per account+channel+peer
  row("agent:main:direct:+15551234567", "Direct", { chat: "direct" }),
  row("agent:main:telegram:direct:123456789", "Direct", { chat: "direct" }),
  row("agent:main:telegram:bot2:direct:123456789", "Direct", { chat: "direct" }),
  row("agent:main:whatsapp:direct:+4915112345678", "Direct", { chat: "direct" }),
  row("agent:main:discord:dm:987654321", "Direct", { chat: "direct" }),
  row("agent:main:Slack:Direct:U012ABCDEF", "Direct", {
    canonical: "agent:main:slack:direct:u012abcdef",
    chat: "direct"
  }),
  row("agent:main:direct:user@example.com:thread:42", "Direct", {
    chat: "direct",
    thread: "42",
    parent: "agent:main:direct:user@example.com"
  }),
  row("agent:main:signal:direct:+15550001111", "Direct", { chat: "direct" }),
  row("agent:main:matrix:direct:@Alice:Matrix.org", "Direct", {
    canonical: "agent:main:matrix:direct:@alice:matrix.org",
    chat: "direct"
  }),
  // groups, Telegram topics, case-preserving Signal and Matrix ids
  row("agent:main:telegram:group:-1001234567890", "Conversation", { kind: "group", chat: "group" }),
  row("agent:main:telegram:group:-1001234567890:topic:42", "Conversation", { kind: "group", chat: "group" }),
  row("agent:main:telegram:group:-1001234567890:topic:42:thread:7", "Conversation", {
    kind: "group",
    chat: "group",
    thread: "7",
    parent: "agent:main:telegram:group:-1001234567890:topic:42"
  }),
  row("agent:main:whatsapp:group:120363025246125486@g.us", "Conversation", { kind: "group", chat: "group" }),
  row("agent:main:signal:group:AbCdEf123+/=", "Conversation", { kind: "group", chat: "group" }),
  row("AGENT:MAIN:SIGNAL:GROUP:AbCdEf123+/=", "Conversation", {
    canonical: "agent:main:signal:group:AbCdEf123+/=",
    kind: "group",
    chat: "group"
  }),
  row("agent:main:matrix:group:!RoomId:Matrix.org", "Conversation", { kind: "group", chat: "group" }),
  row("agent:main:matrix:channel:!AbC:example.org:thread:$EvEnT", "Conversation", {
    kind: "group",
    chat: "channel",
    thread: "$EvEnT",
    parent: "agent:main:matrix:channel:!AbC:example.org"
  }),
  row("AGENT:MAIN:MATRIX:CHANNEL:!AbC:Example.org:THREAD:$Ev", "Conversation", {
    canonical: "agent:main:matrix:channel:!AbC:Example.org:thread:$Ev",
    kind: "group",
    chat: "channel",
    thread: "$Ev",
    parent: "agent:main:matrix:channel:!AbC:Example.org"
  }),
  row("agent:main:slack:acme:group:C024BE91L", "Conversation", {
    canonical: "agent:main:slack:acme:group:c024be91l",
    kind: "group",
    chat: "group"
  }),
  row("agent:main:signal:acct:group:AbC", "Conversation", {
    canonical: "agent:main:signal:acct:group:abc",
    kind: "group",
    chat: "group"
  }),
  // channels and rooms
  row("agent:main:discord:channel:123456", "Conversation", { kind: "group", chat: "channel" }),
  row("agent:main:discord:channel:123456:thread:987", "Conversation", {
    kind: "group",
    chat: "channel",
    thread: "987",
    parent: "agent:main:discord:channel:123456"
  }),
  row("agent:main:slack:channel:c024be91l", "Conversation", { kind: "group", chat: "channel" }),
  row("agent:main:discord:guild1:channel:42", "Conversation", { kind: "group", chat: "channel" }),
  row("agent:main:matrix:room:!Abc:Example.org", "Conversation", {
    canonical: "agent:main:matrix:room:!abc:example.org"
  }),
  row("agent:main:irc:libera:room:#effect", "Conversation"),
  // thread suffixes
  row("agent:main:main:thread:abc", "Main", { thread: "abc", parent: "agent:main:main" }),
  row("agent:main:discord:channel:1:thread:2:thread:3", "Conversation", {
    kind: "group",
    chat: "channel",
    thread: "3",
    parent: "agent:main:discord:channel:1:thread:2"
  }),
  row("agent:main:telegram:direct:123:thread:", "error:threadId", { chat: "direct" }),
  row("agent:thread:main", "Main", { agentId: "thread" }),
  // cron jobs and runs
  row("agent:main:cron:daily-report", "Cron", { kind: "cron" }),
  row("agent:main:cron:daily-report:run:r-2024-05-01", "Cron", { kind: "cron" }),
  row("agent:ops:cron:backup:run:r42", "Cron", { kind: "cron", agentId: "ops" }),
  row("cron:nightly", "Cron", { shape: "legacy_or_alias", kind: "cron" }),
  row("agent:main:cron:", "error:cronJobId"),
  row("agent:main:cron:job:run:", "error:cronRunId", { kind: "cron" }),
  // sub-agents and nesting depth
  row("agent:main:subagent:3f2c9a4e-1b2d-4c3e-9f8a-123456789abc", "Subagent", { depth: 1 }),
  row("agent:main:subagent:aaa:subagent:bbb", "Subagent", { depth: 2, parent: "agent:main:subagent:aaa" }),
  row("agent:main:subagent:a:subagent:b:subagent:c", "Subagent", {
    depth: 3,
    parent: "agent:main:subagent:a:subagent:b"
  }),
  row("subagent:xyz", "Subagent", { shape: "legacy_or_alias", depth: 1 }),
  row("subagent:xyz:subagent:uvw", "Subagent", { shape: "legacy_or_alias", depth: 2, parent: "subagent:xyz" }),
  row("agent:research:subagent:abc:thread:t1", "Subagent", {
    agentId: "research",
    depth: 1,
    thread: "t1",
    parent: "agent:research:subagent:abc"
  }),
  row("agent:subagent:main", "Main", { agentId: "subagent" }),
  row("agent:main:subagent:a:subagent:", "error:subagentId", { depth: 1 }),
  // ACP
  row("agent:codex:acp:3b1e0c7e-aaaa-4bbb-8ccc-0123456789ab", "Acp", { agentId: "codex" }),
  row("acp:session-1", "Acp", { shape: "legacy_or_alias" }),
  row("agent:main:acp:binding:discord:channel:123", "Acp", { kind: "group" }),
  row("agent:main:acp:", "error:acpId"),
  // webhooks
  row("hook:4f1c2b7a-0000-4000-8000-000000000001", "Hook", { shape: "legacy_or_alias" }),
  row("agent:main:hook:4f1c2b7a", "Hook"),
  // sentinels
  row("global", "Sentinel", { shape: "legacy_or_alias", kind: "global" }),
  row("unknown", "Sentinel", { shape: "legacy_or_alias", kind: "unknown" }),
  row(" GLOBAL ", "Sentinel", { canonical: "global", shape: "legacy_or_alias", kind: "global" }),
  // legacy and alias keys
  row("group:12345", "Conversation", { shape: "legacy_or_alias", chat: "group" }),
  row("channel:general", "Conversation", { shape: "legacy_or_alias", chat: "channel" }),
  row("whatsapp:120363025246125486@g.us", "Opaque", { shape: "legacy_or_alias", chat: "group" }),
  row("120363025246125486@g.us", "Opaque", { shape: "legacy_or_alias", chat: "group" }),
  row("discord:acct:guild-1:channel-2", "Opaque", { shape: "legacy_or_alias", chat: "channel" }),
  row("discord:guild-1:channel-2", "Opaque", { shape: "legacy_or_alias", chat: "channel" }),
  row("discord:guild-1:channel-2:thread:9", "Opaque", {
    shape: "legacy_or_alias",
    chat: "channel",
    thread: "9",
    parent: "discord:guild-1:channel-2"
  }),
  row("telegram:group:-100123", "Conversation", { shape: "legacy_or_alias", kind: "group", chat: "group" }),
  row("signal:group:AbC=", "Conversation", { shape: "legacy_or_alias", kind: "group", chat: "group" }),
  row("matrix:channel:!Room:Server.org", "Conversation", {
    shape: "legacy_or_alias",
    kind: "group",
    chat: "channel"
  }),
  row("dm:alice", "Direct", { shape: "legacy_or_alias", chat: "direct" }),
  row("main", "Opaque", { shape: "legacy_or_alias" }),
  row("My-Alias", "Opaque", { canonical: "my-alias", shape: "legacy_or_alias" }),
  row("heartbeat:main", "Opaque", { shape: "legacy_or_alias" }),
  row("agent", "Opaque", { shape: "legacy_or_alias" }),
  row("cron:", "Opaque", { shape: "legacy_or_alias", kind: "cron" }),
  // malformed agent keys
  row("agent:main", "error:rest", { shape: "malformed_agent" }),
  row("agent:", "error:agentId", { shape: "malformed_agent" }),
  row("agent::main", "error:agentId", { shape: "malformed_agent" }),
  row("agent::main:x", "error:agentId"),
  row("agent:main:telegram:direct:", "error:peerId"),
  row("agent:main:telegram::group:1", "error:accountId", { kind: "group", chat: "group" }),
  row("agent:main:thread:x", "error:rest", { thread: "x", parent: "agent:main" }),
  // missing
  row("", "error:key", { canonical: "", shape: "missing" }),
  row("   ", "error:key", { canonical: "", shape: "missing" })
]

const parsedTag = (input: string): string =>
  Either.match(SessionKey.parse(input), {
    onLeft: (e) => `error:${e.part}`,
    onRight: (p) => (p._tag === "Sentinel" ? "Sentinel" : p.scope._tag)
  })

describe("session keys, table of spec §14 shapes", () => {
  it("has at least 60 keys", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60)
  })

  describe.each(TABLE)("$input", (t) => {
    it("normalises, classifies and splits", () => {
      expect(SessionKey.normalize(t.input)).toBe(t.canonical)
      expect(SessionKey.classifyShape(t.input)).toBe(t.shape)
      expect(SessionKind.classify(t.input)).toBe(t.kind)
      expect(SessionKind.chatTypeOf(t.input)).toBe(t.chat)
      expect(SessionKey.agentIdOf(t.input)).toBe(t.agentId)
      expect(Option.getOrUndefined(SessionKey.splitThread(t.input).threadId)).toBe(t.thread)
      expect(SessionKey.subagentDepth(t.input)).toBe(t.depth)
      expect(Option.getOrUndefined(SessionKey.parentKey(t.input))).toBe(t.parent)
    })

    it("parses to the expected structure, and formats back", () => {
      expect(parsedTag(t.input)).toBe(t.parsed)
      const parsed = SessionKey.parse(t.input)
      if (Either.isRight(parsed)) {
        expect(SessionKey.format(parsed.right)).toBe(t.canonical)
        expect(SessionKey.isSessionKey(t.canonical)).toBe(true)
        expect(SessionKey.make(t.input)).toEqual(Either.right(t.canonical))
      } else {
        expect(parsed.left._tag).toBe("SessionKeyParseError")
        expect(parsed.left.input).toBe(t.input)
        expect(SessionKey.isSessionKey(t.canonical)).toBe(false)
      }
    })
  })
})

describe("session kinds with a store entry", () => {
  const cases: ReadonlyArray<readonly [string, SessionKind.EntryHints, SessionKind.SessionKind]> = [
    ["agent:main:main", { spawnedBy: "agent:main:main" }, "spawn-child"],
    ["agent:main:cron:job", { spawnedBy: "agent:main:main" }, "cron"],
    ["agent:main:direct:1", { chatType: "group" }, "group"],
    ["agent:main:direct:1", { chatType: "channel" }, "group"],
    ["agent:main:direct:1", { chatType: "direct" }, "direct"],
    ["agent:main:subagent:x", { spawnedBy: "agent:main:main", chatType: "group" }, "spawn-child"],
    ["agent:main:telegram:group:1", { spawnedBy: "agent:main:main" }, "spawn-child"],
    ["global", { spawnedBy: "agent:main:main" }, "global"],
    ["unknown", { chatType: "group" }, "unknown"],
    ["agent:main:main", { spawnedBy: "   " }, "direct"],
    ["agent:main:main", { spawnedBy: null, chatType: null }, "direct"],
    ["acp:x", { spawnedBy: "agent:main:main" }, "spawn-child"],
    ["cron:legacy", { chatType: "group" }, "cron"]
  ]
  it.each(cases)("%s with %j is %s", (key, entry, kind) => {
    expect(SessionKind.classify(key, entry)).toBe(kind)
    expect(SessionKind.classifySessionKind(key, entry)).toBe(kind)
  })
})
