/**
 * The agent runtime over one session: a `SessionManager` (what happened), a `LanguageModel`,
 * the `ToolRegistry`, the `ModelRegistry` and hooks (how it runs now). Only what happens is
 * written to the transcript (messages, tool results, model and thinking changes, compactions,
 * branch summaries); tools, models and prompts stay runtime state.
 *
 * `prompt(text)` appends the user message, then loops: build the context
 * (`convertToLlm(buildSessionContext())`), stream the model's reply with the active tools,
 * append it, run its tool calls (in parallel where the tools allow, results appended in call
 * order in one locked batch), and go on until the model stops. The transcript lock is taken
 * only by the writes (each append, or `withWriteLock` around the batch), never while the model
 * streams; each write folds what other writers appended meanwhile. `abort()` ends the turn: the
 * reply so far is recorded with `stopReason: "aborted"` (unfinished tool calls get error
 * results). A model failure is recorded with `stopReason: "error"` and its `errorMessage`.
 *
 * A prompt `!cmd` runs the command instead (`UserBash`) and records a `bashExecution` message;
 * `!!cmd` keeps it out of the model's context. A model call that fails on a transient error is
 * retried (`Retry`, each retry an `Retry` event); the transcript holds only the final reply.
 * With `subagents`, the `task` tool runs prompts in child sessions (`SubAgent`).
 *
 * Lifecycle events go to the `SessionEvents` given (or in context): `resume` or `create`
 * (once the new session is durable: a prompt flushes the session before calling the model),
 * `turn-start` (after the user message is written), `turn-end` with the outcome, `compact`,
 * `fork`, and the sub-agents' `create` and `subagent-status`. Transcript events come from the
 * store's `TranscriptObserver` (sessions-semantics' `StoreBridge`) in the context of the writes.
 *
 * On creation the model and thinking level are restored from the session's context (a model
 * the registry does not know is ignored); when the branch has no `thinking_level_change`, the
 * current level is written once (spec §13). After a prompt, the context is compacted when it
 * passes the threshold of the model's window; `compact()` does it on demand.
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import { LlmMessages } from "@branchlog/session-core"
import type { SessionManager } from "@branchlog/session-store"
import { SessionEvents, SessionKey } from "@branchlog/sessions-semantics"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AgentBusyError, CompactionError, type ModelNotFoundError, type NavigationError } from "./AgentError.js"
import * as Compaction from "./Compaction.js"
import type * as Hooks from "./Hooks.js"
import * as Lifecycle from "./internal/lifecycle.js"
import * as Navigation from "./internal/navigation.js"
import { taskTool } from "./internal/subagent.js"
import * as Turns from "./internal/turns.js"
import { LanguageModel } from "./LanguageModel.js"
import * as ModelRegistry from "./ModelRegistry.js"
import type { ModelInfo, ModelRegistryShape } from "./ModelRegistry.js"
import * as Retry from "./Retry.js"
import type * as SubAgent from "./SubAgent.js"
import * as SystemPrompt from "./SystemPrompt.js"
import * as ToolRegistry from "./ToolRegistry.js"
import type { ToolRegistryShape } from "./ToolRegistry.js"
import * as UserBash from "./UserBash.js"

/** Something that happened during a prompt (stream deltas, appended messages, compactions). */
export type AgentEvent = Turns.AgentEvent

/** How a prompt ended. */
export type PromptResult = Turns.PromptResult

/** Options of `navigateTree`. */
export type NavigateOptions = Navigation.NavigateOptions

/** What `navigateTree` did. */
export type NavigateResult = Navigation.NavigateResult

/** What `fork` did. */
export type ForkResult = Navigation.ForkResult

/** What a compaction wrote. */
export interface CompactionResult {
  readonly entryId: string
  readonly summary: string
  readonly firstKeptEntryId: string
  readonly tokensBefore: number
  readonly details: Compaction.FileDetails
}

/** Errors of the session's writes. */
export type WriteError = SessionManager.WriteError

/** Errors of navigation. */
export type NavigationErrors =
  | SessionManager.WriteError
  | SessionManager.EntryNotFoundError
  | NavigationError
  | CompactionError

/** Options of an agent session. */
export interface Options {
  readonly sessionManager: SessionManager.SessionManager
  readonly tools: ToolRegistryShape
  readonly models: ModelRegistryShape
  readonly hooks?: ReadonlyArray<Hooks.Hooks>
  /** The base of the system prompt (default `SystemPrompt.DEFAULT_BASE`). */
  readonly basePrompt?: string
  readonly contextFiles?: ReadonlyArray<SystemPrompt.ContextFile>
  readonly compaction?: Compaction.Settings
  /** Most model calls per prompt (default 50). */
  readonly maxTurns?: number
  readonly onEvent?: (event: AgentEvent) => Effect.Effect<void>
  /** Where lifecycle events go (default: the `SessionEvents` in context, if any). */
  readonly events?: SessionEvents.SessionEventsShape
  /** Told every lifecycle event of this session and its sub-agents (besides `events`). */
  readonly onLifecycle?: (event: SessionEvents.LifecycleEvent) => Effect.Effect<void>
  /** Who the session is in its events (default key `agent:main:main`). */
  readonly session?: Lifecycle.Identity & { readonly fresh?: boolean }
  /** Retries of failed model calls (default `Retry.defaultSettings`). */
  readonly retry?: Retry.Settings
  /** How `!cmd` runs. */
  readonly bash?: UserBash.Settings
  /** Enables the `task` tool (sub-agents in child sessions). */
  readonly subagents?: SubAgent.Settings
}

/** An agent session. */
export interface AgentSessionShape {
  readonly sessionManager: SessionManager.SessionManager
  readonly tools: ToolRegistryShape
  readonly models: ModelRegistryShape
  /** Runs the agent on a user message until the model stops. */
  readonly prompt: (text: string | AgentMessage.UserContent) => Effect.Effect<PromptResult, AgentBusyError | WriteError>
  /** Ends the running prompt (no-op when idle). */
  readonly abort: () => Effect.Effect<void>
  /** `true` while a prompt runs. */
  readonly isRunning: () => boolean
  /** Switches model and appends `model_change`. */
  readonly setModel: (provider: string, modelId: string) => Effect.Effect<ModelInfo, ModelNotFoundError | WriteError>
  /** Sets the thinking level and appends `thinking_level_change`; returns the effective level. */
  readonly setThinkingLevel: (level: string) => Effect.Effect<string, WriteError>
  /** Compacts now (a bounded session manager, `SessionManager.resume`, loads the rest of the session first). */
  readonly compact: (
    options?: { readonly instructions?: string }
  ) => Effect.Effect<CompactionResult, CompactionError | AgentBusyError | WriteError>
  /** Moves in the tree (spec §13 `/tree`; a bounded session manager loads the rest of the session first). */
  readonly navigateTree: (
    targetId: string,
    options?: NavigateOptions
  ) => Effect.Effect<NavigateResult, NavigationErrors | AgentBusyError>
  /** Forks at a user message (spec §13 `/fork`; a bounded session manager loads the rest of the session first). */
  readonly fork: (entryId: string) => Effect.Effect<ForkResult, NavigationErrors | AgentBusyError>
  /** The system prompt for the active tools. */
  readonly systemPrompt: () => string
  /** The context the model would see now. */
  readonly messages: () => ReadonlyArray<LlmMessages.LlmMessage>
}

/** The AgentSession service. */
export class AgentSession
  extends Context.Tag("@branchlog/agent-session/AgentSession")<AgentSession, AgentSessionShape>()
{}

/** A new agent session over the `LanguageModel` in context. */
export const make = (options: Options): Effect.Effect<AgentSessionShape, WriteError, LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel
    const sm = options.sessionManager
    const { models, tools } = options
    const hooks = options.hooks ?? []
    const settings = options.compaction ?? Compaction.defaultSettings
    const emit = options.onEvent ?? (() => Effect.void)
    const events = options.events ?? Option.getOrUndefined(yield* Effect.serviceOption(SessionEvents.SessionEvents))
    const identity: Lifecycle.Identity = {
      ...options.session,
      sessionKey: options.session?.sessionKey ?? SessionKey.mainKey()
    }
    const lifecycle = yield* Lifecycle.make(sm, events, identity, options.onLifecycle, options.session?.fresh ?? false)
    const executor = Option.getOrUndefined(yield* Effect.serviceOption(CommandExecutor.CommandExecutor))
    const mutex = yield* Effect.makeSemaphore(1)
    const serial = <A, E>(effect: Effect.Effect<A, E>) => Effect.zipLeft(mutex.withPermits(1)(effect), lifecycle.settle)
    let running: Turns.AbortHandle | undefined

    // Resume: restore the model and thinking level from the context; a branch without a
    // thinking level gets the registry's current one written once.
    const context = sm.buildSessionContext()
    if (context.model !== null) {
      yield* Effect.ignore(models.setCurrent(context.model.provider, context.model.modelId))
    }
    // (asked of the manager, not of `getBranch`, so that a bounded session stays bounded)
    if (sm.hasThinkingLevelChange()) models.setThinkingLevel(context.thinkingLevel)
    else yield* sm.appendThinkingLevelChange(models.thinkingLevel())
    // a session made for this agent (a sub-agent's) is written at once, so `create` comes first
    if (options.session?.fresh === true && sm.isPersisted()) yield* sm.flush()
    yield* lifecycle.settle

    const systemPrompt = () => SystemPrompt.fromRegistry(tools, options.basePrompt, options.contextFiles)
    const modelRef = () => ({ provider: models.current().provider, id: models.current().id })

    const compactNow = (instructions?: string) =>
      Effect.gen(function*() {
        // the whole branch (a bounded manager's `getBranch` would throw `SessionNotLoadedError`)
        yield* sm.loadFull()
        const plan = Compaction.prepare(sm.getBranch(), settings)
        if (plan === undefined) return yield* new CompactionError({ reason: "nothing to compact" })
        const summary = yield* Compaction.summarize(
          model,
          Compaction.summaryRequest({
            purpose: "compaction",
            model: modelRef(),
            messages: plan.messagesToSummarize,
            previousSummary: plan.previousSummary,
            instructions
          })
        )
        if (summary.length === 0) return yield* new CompactionError({ reason: "the model returned an empty summary" })
        const entryId = yield* sm.appendCompaction(summary, plan.firstKeptEntryId, plan.tokensBefore, plan.details)
        yield* lifecycle.settle
        if (lifecycle.durable()) yield* lifecycle.publish("compact", { entryId })
        yield* emit({
          _tag: "Compacted",
          entryId,
          firstKeptEntryId: plan.firstKeptEntryId,
          tokensBefore: plan.tokensBefore
        })
        return {
          entryId,
          summary,
          firstKeptEntryId: plan.firstKeptEntryId,
          tokensBefore: plan.tokensBefore,
          details: plan.details
        }
      })

    const autoCompact = Effect.suspend(() => {
      const tokens = Compaction.estimateContextTokens(sm.buildSessionContext().messages)
      if (!Compaction.shouldCompact(tokens, models.current().contextWindow, settings)) return Effect.void
      return compactNow().pipe(
        Effect.catchAll((error) => Effect.logWarning(`auto-compaction skipped: ${error.message}`))
      )
    })

    const env: Turns.LoopEnv = {
      sm,
      model,
      tools,
      models,
      hooks,
      systemPrompt,
      emit,
      serial,
      maxTurns: options.maxTurns ?? 50,
      retry: options.retry ?? Retry.defaultSettings
    }

    if (options.subagents !== undefined) {
      const subagents = options.subagents
      tools.registerSdkTools([taskTool({
        sm,
        tools,
        models,
        lifecycle,
        settings: subagents,
        makeChild: (child) =>
          make({
            sessionManager: child.sm,
            tools: ToolRegistry.make({ sdkTools: child.tools, activeToolNames: child.tools.map((t) => t.name) }),
            models: ModelRegistry.make({
              models: [models.current()],
              current: { provider: models.current().provider, modelId: models.current().id },
              thinkingLevel: models.thinkingLevel()
            }),
            hooks,
            compaction: settings,
            retry: env.retry,
            ...(options.bash === undefined ? {} : { bash: options.bash }),
            ...(events === undefined ? {} : { events }),
            ...(options.onLifecycle === undefined ? {} : { onLifecycle: options.onLifecycle }),
            ...(child.subagents ? { subagents } : {}),
            session: {
              sessionKey: child.key,
              parentSessionKey: child.parentKey,
              ...(identity.agentId === undefined ? {} : { agentId: identity.agentId }),
              ...(child.label === undefined ? {} : { label: child.label }),
              fresh: true
            }
          }).pipe(Effect.provideService(LanguageModel, model))
      })])
    }

    /** Runs a user's `!cmd` and records it (no model call). */
    const runBash = (parsed: UserBash.Parsed, handle: Turns.AbortHandle) =>
      Effect.gen(function*() {
        const outcome = yield* UserBash.run(
          parsed.command,
          sm.getCwd(),
          options.bash ?? {},
          Deferred.await(handle.deferred)
        ).pipe(
          executor === undefined
            ? Effect.provide(UserBash.layerNode)
            : Effect.provideService(CommandExecutor.CommandExecutor, executor)
        )
        const message = yield* UserBash.toMessage(parsed, outcome)
        const id = yield* serial(Effect.zipLeft(sm.appendMessage(message), flushIfFile))
        yield* emit({ _tag: "MessageEnd", message, entryId: id })
        const aborted = yield* Deferred.isDone(handle.deferred)
        return { stopReason: aborted ? "aborted" : "stop", messages: [message], entryIds: [id] } satisfies PromptResult
      })

    const flushIfFile = Effect.suspend(() => sm.isPersisted() ? sm.flush() : Effect.void)

    /** Refuses to run `effect` while a prompt runs (the leaf must not move under the loop). */
    const idle = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | AgentBusyError> =>
      Effect.suspend((): Effect.Effect<A, E | AgentBusyError> =>
        running === undefined ? effect : Effect.fail(new AgentBusyError({ sessionId: sm.getSessionId() }))
      )

    const prompt = (text: string | AgentMessage.UserContent) =>
      Effect.gen(function*() {
        const deferred = yield* Deferred.make<void>()
        if (running !== undefined) return yield* new AgentBusyError({ sessionId: sm.getSessionId() })
        const handle: Turns.AbortHandle = { deferred, controller: new AbortController() }
        running = handle
        return yield* Effect.gen(function*() {
          const bash = typeof text === "string" ? UserBash.parse(text) : undefined
          if (bash !== undefined) {
            const result = yield* runBash(bash, handle)
            yield* lifecycle.publish("turn-end", { entryId: result.entryIds[0]!, outcome: result.stopReason })
            return result
          }
          const user: AgentMessage.UserMessage = {
            role: "user",
            content: text,
            timestamp: yield* Clock.currentTimeMillis
          }
          const id = yield* serial(Effect.zipLeft(sm.appendMessage(user), flushIfFile))
          yield* lifecycle.publish("turn-start", { entryId: id })
          yield* emit({ _tag: "MessageEnd", message: user, entryId: id })
          const result = yield* Turns.runTurns(env, handle, { message: user, id })
          yield* emit({ _tag: "AgentEnd", stopReason: result.stopReason })
          yield* lifecycle.publish("turn-end", {
            entryId: id,
            outcome: result.stopReason,
            ...(result.errorMessage === undefined ? {} : { errorMessage: result.errorMessage })
          })
          if (result.stopReason !== "error" && result.stopReason !== "aborted") yield* serial(autoCompact)
          return result
        }).pipe(Effect.ensuring(Effect.sync(() => {
          running = undefined
        })))
      })

    return {
      sessionManager: sm,
      tools,
      models,
      prompt,
      abort: () =>
        Effect.suspend(() => {
          const handle = running
          if (handle === undefined) return Effect.void
          handle.controller.abort()
          return Deferred.succeed(handle.deferred, undefined)
        }),
      isRunning: () => running !== undefined,
      setModel: (provider, modelId) =>
        serial(Effect.tap(models.setCurrent(provider, modelId), () => sm.appendModelChange(provider, modelId))),
      setThinkingLevel: (level) =>
        serial(Effect.suspend(() => {
          const effective = models.setThinkingLevel(level)
          return Effect.as(sm.appendThinkingLevelChange(level), effective)
        })),
      compact: (compactOptions) => idle(serial(compactNow(compactOptions?.instructions))),
      navigateTree: (targetId, navigateOptions) =>
        idle(serial(Navigation.navigateTree(sm, model, modelRef(), targetId, navigateOptions))),
      fork: (entryId) => idle(Effect.tap(serial(Navigation.fork(sm, entryId)), () => lifecycle.forked)),
      systemPrompt,
      messages: () => LlmMessages.convertToLlm(sm.buildSessionContext().messages)
    }
  })

/** A layer of an agent session whose manager comes from `sessionManager`. */
export const layer = <E, R>(
  sessionManager: Effect.Effect<SessionManager.SessionManager, E, R>,
  options: Omit<Options, "sessionManager">
): Layer.Layer<AgentSession, E | WriteError, R | LanguageModel> =>
  Layer.effect(AgentSession, Effect.flatMap(sessionManager, (sm) => make({ ...options, sessionManager: sm })))
