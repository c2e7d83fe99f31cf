/**
 * Sub-agents (spec §14): the built-in `task` tool runs a prompt in a child session. The child is a
 * new session (header `parentSession` = the parent's file) whose key is derived from the
 * parent's (`agent:<id>:subagent:<uuid>`, nested as `<parent>:subagent:<uuid>`), with its own
 * tools (the call's allow-list, taken from the parent's allowed tools), and its final answer is
 * the tool's result. A session whose key is already `maxDepth` sub-agents deep gets a tool error
 * instead. The child's lifecycle (`create` with `parentSessionKey`, `subagent-status`) goes to the
 * parent's `SessionEvents`.
 *
 * @since 0.1.0
 */
import type { SessionManager } from "@branchlog/session-store"
import { SessionManager as Manager } from "@branchlog/session-store"
import { SessionKey } from "@branchlog/sessions-semantics"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The tool's name. */
export const TOOL_NAME = "task"

/** Where child sessions are made. */
export interface SessionFactory {
  /** A new session for `cwd` in `sessionDir` whose header names `parentSession`, written at once. */
  readonly create: (options: {
    readonly cwd: string
    readonly sessionDir: string | undefined
    readonly parentSession: string | undefined
  }) => Effect.Effect<SessionManager.SessionManager, SessionManager.WriteError>
}

/** How sub-agents run. */
export interface Settings {
  readonly sessions: SessionFactory
  /** The deepest sub-agent (default 2: a sub-agent may spawn one more, that one none). */
  readonly maxDepth?: number
  /** The folder of child sessions (default: the parent's folder). */
  readonly sessionDir?: string
  /** The id in a child's key (default a random UUID). */
  readonly newId?: () => string
}

/** The factory over the session store in context: child files beside the parent's, written at once. */
export const storeSessions: Effect.Effect<SessionFactory, never, SessionManager.StoreRequirement> = Effect.map(
  Effect.context<SessionManager.StoreRequirement>(),
  (context: Context.Context<SessionManager.StoreRequirement>): SessionFactory => ({
    create: ({ cwd, parentSession, sessionDir }) =>
      Effect.gen(function*() {
        const sm = yield* Manager.create(cwd, sessionDir)
        yield* sm.newSession(parentSession === undefined ? {} : { parentSession })
        yield* sm.flush()
        return sm
      }).pipe(Effect.provide(context))
  })
)

/** The key of a child of `parentKey` (spec §14: one more `:subagent:<id>`). */
export const childKey = (parentKey: string, id: string): string =>
  SessionKey.isSubagent(parentKey)
    ? `${SessionKey.normalize(parentKey)}:subagent:${id}`
    : `agent:${SessionKey.agentIdOf(parentKey)}:subagent:${id}`

/** The sub-agent depth of a key (0 for a session that is not a sub-agent). */
export const depthOf = (key: string): number => SessionKey.subagentDepth(key)
