import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SessionKey from "../src/SessionKey.js"

const parseError = (raw: string) => Either.getLeft(SessionKey.parse(raw)).pipe(Option.getOrThrow)

describe("SessionKey.parse", () => {
  it("gives the structure of an account-scoped direct key", () => {
    expect(SessionKey.parse("agent:main:telegram:bot2:direct:123:thread:9")).toEqual(
      Either.right({
        _tag: "Agent",
        agentId: "main",
        scope: {
          _tag: "Direct",
          route: { channel: "telegram", accountId: "bot2" },
          marker: "direct",
          peerId: "123"
        },
        threadId: "9"
      })
    )
  })

  it("splits a Telegram topic from the group id", () => {
    expect(SessionKey.parse("agent:main:telegram:group:-100123:topic:42")).toEqual(
      Either.right({
        _tag: "Agent",
        agentId: "main",
        scope: { _tag: "Conversation", route: { channel: "telegram" }, kind: "group", peerId: "-100123", topicId: "42" }
      })
    )
  })

  it("keeps a Matrix room id whole, colons and case included", () => {
    const parsed = SessionKey.parse("agent:main:matrix:channel:!AbC:Example.org:thread:$EvT")
    expect(parsed).toEqual(
      Either.right({
        _tag: "Agent",
        agentId: "main",
        scope: { _tag: "Conversation", route: { channel: "matrix" }, kind: "channel", peerId: "!AbC:Example.org" },
        threadId: "$EvT"
      })
    )
  })

  it("gives the sub-agent path outermost first, and cron job and run", () => {
    expect(SessionKey.parse("agent:main:subagent:a:subagent:b")).toEqual(
      Either.right({ _tag: "Agent", agentId: "main", scope: { _tag: "Subagent", path: ["a", "b"] } })
    )
    expect(SessionKey.parse("agent:main:cron:job1:run:r1")).toEqual(
      Either.right({ _tag: "Agent", agentId: "main", scope: { _tag: "Cron", jobId: "job1", runId: "r1" } })
    )
    expect(SessionKey.parse("cron:job1")).toEqual(
      Either.right({ _tag: "Legacy", scope: { _tag: "Cron", jobId: "job1" } })
    )
  })

  it("keeps unknown shapes verbatim as opaque", () => {
    expect(SessionKey.parse("agent:main:cron:job:extra")).toEqual(
      Either.right({ _tag: "Agent", agentId: "main", scope: { _tag: "Opaque", rest: "cron:job:extra" } })
    )
    expect(SessionKey.parse("Some Alias")).toEqual(
      Either.right({ _tag: "Legacy", scope: { _tag: "Opaque", rest: "some alias" } })
    )
  })

  it("returns typed errors naming the wrong part, never throws", () => {
    const cases: ReadonlyArray<readonly [string, SessionKey.ErrorPart]> = [
      ["", "key"],
      ["agent:", "agentId"],
      ["agent: :main", "agentId"],
      ["agent:main", "rest"],
      ["agent:main:", "rest"],
      ["agent:main:main:thread: ", "threadId"],
      ["agent:main::direct:1", "channel"],
      ["agent:main:tg::direct:1", "accountId"],
      ["agent:main:direct:", "peerId"],
      ["agent:main:telegram:group:1:topic: ", "topicId"],
      ["agent:main:cron", "cronJobId"],
      ["agent:main:cron:j:run", "cronRunId"],
      ["agent:main:subagent", "subagentId"],
      ["agent:main:acp", "acpId"],
      ["agent:main:hook:", "hookId"]
    ]
    for (const [raw, part] of cases) {
      const error = parseError(raw)
      expect(error).toBeInstanceOf(SessionKey.SessionKeyParseError)
      expect({ raw, part: error.part }).toEqual({ raw, part })
      expect(error.message).toContain(part)
    }
  })
})

describe("SessionKey normalising and case rules", () => {
  it("lowercases everything but Signal group ids and Matrix channel/group tails", () => {
    expect(SessionKey.normalize(" Agent:Main:Telegram:Group:ABC ")).toBe("agent:main:telegram:group:abc")
    expect(SessionKey.normalize("agent:main:signal:group: AbC= ")).toBe("agent:main:signal:group:AbC=")
    expect(SessionKey.normalize("Signal:Group:AbC:Thread:XyZ")).toBe("signal:group:AbC:thread:xyz")
    expect(SessionKey.normalize("agent:main:matrix:group:!Abc:Srv:THREAD:$Ev")).toBe(
      "agent:main:matrix:group:!Abc:Srv:thread:$Ev"
    )
    expect(SessionKey.normalize("agent:main:matrix:acct:channel:!Abc:Srv")).toBe(
      "agent:main:matrix:acct:channel:!abc:srv"
    )
    expect(SessionKey.normalize("agent:main:signal:direct:ABC")).toBe("agent:main:signal:direct:abc")
  })

  it("sanitises the agent id", () => {
    expect(SessionKey.normalize("agent:Research Team:main")).toBe("agent:research-team:main")
    expect(SessionKey.normalize("agent:***:main")).toBe("agent:main:main")
    expect(SessionKey.normalize(null)).toBe("")
  })
})

describe("SessionKey schemas and constructors", () => {
  it("brands canonical keys only", () => {
    expect(Schema.is(SessionKey.SessionKey)("agent:main:main")).toBe(true)
    expect(Schema.is(SessionKey.SessionKey)("Agent:Main:Main")).toBe(false)
    expect(Schema.is(SessionKey.SessionKey)("agent:main")).toBe(false)
  })

  it.effect("decodes raw strings by normalising them", () =>
    Effect.gen(function*() {
      const key = yield* Schema.decode(SessionKey.SessionKeyFromString)("  AGENT:Ops:Cron:Nightly ")
      expect(key).toBe("agent:ops:cron:nightly")
      const bad = yield* Effect.exit(Schema.decode(SessionKey.SessionKeyFromString)("agent:ops"))
      expect(Exit.isFailure(bad)).toBe(true)
    }))

  it("builds keys from parts", () => {
    expect(SessionKey.mainKey()).toBe("agent:main:main")
    expect(SessionKey.mainKey({ agentId: "Ops", mainKey: "Home" })).toBe("agent:ops:home")
    expect(SessionKey.mainKey({ agentId: "ops", mainKey: "cron" })).toBe("agent:ops:main")
    expect(
      SessionKey.fromParsed({ _tag: "Agent", agentId: "main", scope: { _tag: "Hook", id: "abc" } })
    ).toEqual(Either.right("agent:main:hook:abc"))
    expect(Either.isLeft(SessionKey.fromParsed({ _tag: "Agent", agentId: "main", scope: { _tag: "Hook", id: "" } })))
      .toBe(true)
  })

  it("adds and splits thread suffixes", () => {
    expect(SessionKey.withThread("agent:main:discord:channel:1", 42)).toBe("agent:main:discord:channel:1:thread:42")
    expect(SessionKey.withThread("agent:main:discord:channel:1", "  ")).toBe("agent:main:discord:channel:1")
    expect(SessionKey.withThread("agent:main:discord:channel:1", null)).toBe("agent:main:discord:channel:1")
    expect(SessionKey.splitThread("a:thread:b:thread:c")).toEqual({ base: "a:thread:b", threadId: Option.some("c") })
    expect(SessionKey.splitThread("a:thread:")).toEqual({ base: "a:thread:", threadId: Option.none() })
  })

  it("recognises cron runs, ACP, hooks and sub-agents", () => {
    expect(SessionKey.isCronRun("agent:main:cron:j:run:r")).toBe(true)
    expect(SessionKey.isCronRun("agent:main:cron:j")).toBe(false)
    expect(SessionKey.isCron("cron:j")).toBe(true)
    expect(SessionKey.isAcp("ACP:x")).toBe(true)
    expect(SessionKey.isAcp("agent:main:acp:x")).toBe(true)
    expect(SessionKey.isHook("hook:x")).toBe(true)
    expect(SessionKey.isSubagent("subagent:x")).toBe(true)
    expect(SessionKey.isSubagent("agent:subagent:main")).toBe(false)
  })

  it("parses the agent prefix leniently, as the spec's parseAgentSessionKey", () => {
    expect(SessionKey.parseAgent("agent:Ops:telegram:direct:1")).toEqual(
      Option.some({ agentId: "ops", rest: "telegram:direct:1" })
    )
    expect(SessionKey.parseAgent("agent:ops")).toEqual(Option.none())
    expect(SessionKey.parseAgent("cron:x")).toEqual(Option.none())
    expect(SessionKey.classifySessionKeyShape("agent:ops")).toBe("malformed_agent")
  })
})
