/**
 * The `task` tool of one session (see `SubAgent`): depth check, the child session and its key,
 * its tools, the run, and the child's final answer as the result. The parent's abort reaches the
 * child (its reply is recorded as aborted before the tool returns).
 */
import type { AgentMessage } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import { ToolError } from "../AgentError.js"
import * as LanguageModel from "../LanguageModel.js"
import type { ModelRegistryShape } from "../ModelRegistry.js"
import * as SubAgent from "../SubAgent.js"
import * as Tool from "../Tool.js"
import type { ToolRegistryShape } from "../ToolRegistry.js"
import type { Lifecycle } from "./lifecycle.js"

/** A child agent as the tool needs it. */
export interface Child {
  readonly prompt: (text: string) => Effect.Effect<
    {
      readonly stopReason: AgentMessage.StopReason
      readonly messages: ReadonlyArray<AgentMessage.AgentMessage>
      readonly errorMessage?: string
    },
    unknown
  >
  readonly abort: () => Effect.Effect<void>
}

/** What the tool works with. */
export interface TaskContext {
  readonly sm: SessionManager.SessionManager
  readonly tools: ToolRegistryShape
  readonly models: ModelRegistryShape
  readonly lifecycle: Lifecycle
  readonly settings: SubAgent.Settings
  /** Makes the child agent over its session, with its tools and identity. */
  readonly makeChild: (options: {
    readonly sm: SessionManager.SessionManager
    readonly tools: ReadonlyArray<Tool.AnyTool>
    readonly subagents: boolean
    readonly key: string
    readonly parentKey: string
    readonly label: string | undefined
  }) => Effect.Effect<Child, unknown>
}

const Parameters = Schema.Struct({
  prompt: Schema.String.annotations({ description: "what the sub-agent should do; it sees nothing else" }),
  tools: Schema.optional(
    Schema.Array(Schema.String).annotations({
      description: "the tools the sub-agent may use (default: this session's active tools)"
    })
  ),
  label: Schema.optional(Schema.String.annotations({ description: "a short name for the sub-agent" }))
})

/**
 * Aborts the child and waits for it to record its aborted reply; an abort that came before the
 * child's turn began is repeated, and a child that never ends is interrupted after ~10 s.
 */
const stopChild = (agent: Child, fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      yield* agent.abort()
      if (Option.isSome(yield* Effect.option(Effect.timeout(Fiber.await(fiber), 100)))) return
    }
    yield* Fiber.interrupt(fiber)
  })

const describe = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** The `task` tool of the session in `ctx`. */
export const taskTool = (ctx: TaskContext): Tool.AnyTool =>
  Tool.make({
    name: SubAgent.TOOL_NAME,
    description: "Run a task in a sub-agent with its own session and tools; returns its final answer.",
    promptSnippet: "Delegate a self-contained task to a sub-agent (its final answer comes back)",
    parameters: Parameters,
    execute: (args) =>
      Effect.gen(function*() {
        const fail = (reason: string) => new ToolError({ toolName: SubAgent.TOOL_NAME, reason })
        const maxDepth = ctx.settings.maxDepth ?? 2
        const parentKey = ctx.lifecycle.identity.sessionKey
        const depth = SubAgent.depthOf(parentKey)
        if (depth >= maxDepth) {
          return yield* fail(`sub-agent depth limit reached: this session is ${depth} deep, the limit is ${maxDepth}`)
        }
        const wanted = args.tools ?? ctx.tools.activeToolNames()
        const allowed = ctx.tools.tools()
        const unknown = wanted.filter((n) => n !== SubAgent.TOOL_NAME && !allowed.has(n))
        if (unknown.length > 0) return yield* fail(`tools not available to a sub-agent: ${unknown.join(", ")}`)
        const tools = wanted.filter((n) => n !== SubAgent.TOOL_NAME).map((n) => allowed.get(n)!)
        const key = SubAgent.childKey(parentKey, (ctx.settings.newId ?? randomUUID)())
        const child = yield* ctx.settings.sessions.create({
          cwd: ctx.sm.getCwd(),
          sessionDir: ctx.settings.sessionDir ?? (ctx.sm.isPersisted() ? ctx.sm.getSessionDir() : undefined),
          parentSession: ctx.sm.getSessionFile()
        }).pipe(Effect.mapError((e) => fail(`could not create the child session: ${e.message}`)))
        const agent = yield* ctx.makeChild({
          sm: child,
          tools,
          subagents: wanted.includes(SubAgent.TOOL_NAME),
          key,
          parentKey,
          label: args.label
        }).pipe(Effect.mapError((e) => fail(`could not start the sub-agent: ${describe(e)}`)))
        const status = (value: string, extra: { readonly errorMessage?: string } = {}) =>
          ctx.lifecycle.publishRaw({
            sessionKey: key,
            reason: "subagent-status",
            parentSessionKey: parentKey,
            ...(args.label === undefined ? {} : { label: args.label }),
            ...(child.getSessionFile() === undefined ? {} : { sessionFile: child.getSessionFile()! }),
            sessionId: child.getSessionId(),
            status: value,
            ...extra
          })
        yield* status("running")
        // a daemon: interrupting the tool must not interrupt the child before it records its abort
        const fiber = yield* Effect.forkDaemon(agent.prompt(args.prompt))
        const result = yield* Fiber.join(fiber).pipe(
          Effect.onInterrupt(() => Effect.zipRight(stopChild(agent, fiber), status("aborted"))),
          Effect.tapErrorCause(() => status("error")),
          Effect.mapError((e) => fail(`the sub-agent failed: ${describe(e)}`))
        )
        const outcome = result.stopReason === "error" ? "error" : result.stopReason === "aborted" ? "aborted" : "done"
        yield* status(outcome, result.errorMessage === undefined ? {} : { errorMessage: result.errorMessage })
        const last = [...result.messages].reverse().find((m): m is AgentMessage.AssistantMessage =>
          m.role === "assistant"
        )
        const answer = last === undefined ? "" : LanguageModel.textOf(last)
        const details = {
          sessionKey: key,
          sessionId: child.getSessionId(),
          ...(child.getSessionFile() === undefined ? {} : { sessionFile: child.getSessionFile() }),
          stopReason: result.stopReason
        }
        if (outcome !== "done") {
          return {
            ...Tool.text(
              `sub-agent ${outcome}: ${result.errorMessage ?? "no answer"}${answer ? `\n${answer}` : ""}`,
              details
            ),
            isError: true
          }
        }
        return Tool.text(answer === "" ? "(the sub-agent gave no answer)" : answer, details)
      })
  })
