/**
 * `@branchlog/agent-session`: the agent runtime above storage. The tool registry, hooks, the
 * model registry, system prompt assembly, the compaction controller, the `LanguageModel`
 * service with a scripted and an OpenAI-compatible implementation, and `AgentSession`, the
 * agent loop that writes what happens into a `SessionManager`.
 *
 * @since 0.1.0
 */

/** Errors of tools, models, compaction and navigation. */
export * as AgentError from "./AgentError.js"
/** The agent loop over a session, a model, tools and hooks. */
export * as AgentSession from "./AgentSession.js"
/** The built-in tools read, bash, edit and write. */
export * as BuiltinTools from "./BuiltinTools.js"
/** Token estimates, the threshold, the cut point and the summary call. */
export * as Compaction from "./Compaction.js"
/** Hooks around tool calls and turns. */
export * as Hooks from "./Hooks.js"
/** The LanguageModel service, its events, and folding them into an assistant message. */
export * as LanguageModel from "./LanguageModel.js"
/** Known models, the current model and the thinking level. */
export * as ModelRegistry from "./ModelRegistry.js"
/** An OpenAI-compatible chat-completions LanguageModel. */
export * as OpenAiCompatible from "./OpenAiCompatible.js"
/** A deterministic LanguageModel for tests and the demo. */
export * as ScriptedModel from "./ScriptedModel.js"
/** System prompt assembly. */
export * as SystemPrompt from "./SystemPrompt.js"
/** Runnable tools with schema parameters. */
export * as Tool from "./Tool.js"
/** The tool registry: sources, filters, maps and the active set. */
export * as ToolRegistry from "./ToolRegistry.js"
/** The folder the built-in tools work on. */
export * as Workspace from "./Workspace.js"
/** Retries of model calls on transient errors (an Effect Schedule). */
export * as Retry from "./Retry.js"
/** Sub-agents: the `task` tool and child sessions. */
export * as SubAgent from "./SubAgent.js"
/** A user's `!cmd`, recorded as a `bashExecution` message. */
export * as UserBash from "./UserBash.js"
