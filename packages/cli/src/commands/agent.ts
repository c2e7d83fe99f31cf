/** `branchlog demo` and `branchlog run`: the agent loop of @branchlog/agent-session over a real session file. */
import type { LanguageModel, ModelRegistry, ScriptedModel } from "@branchlog/agent-session"
import type { AgentMessage } from "@branchlog/session-core"
import { SessionManager } from "@branchlog/session-store"
import { SessionCatalog } from "@branchlog/store-jsonl"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { TurnFailed, UsageError } from "../CliError.js"
import type { CliCommand } from "../internal/command.js"
import * as Globals from "../internal/globals.js"
import * as Output from "../internal/output.js"
import { messageLine } from "../internal/summary.js"
import * as TreeText from "../internal/treeText.js"
import * as Width from "../internal/width.js"

/**
 * The agent runtime, imported when `demo` or `run` runs (it brings the OpenAI provider and an
 * HTTP client): the other commands, and the help, never load it.
 */
const agentRuntime = Effect.promise(() => import("@branchlog/agent-session"))

/** The demo's script: three turns with tool calls over a small in-memory project. */
const demoScript: ReadonlyArray<ScriptedModel.Step> = [
  {
    thinking: "I should look at the code before changing it.",
    text: "Let me read the app and the notes first.",
    toolCalls: [{ name: "read", arguments: { path: "src/app.ts" } }, { name: "read", arguments: { path: "NOTES.md" } }]
  },
  {
    text: "The greeting is hard-coded. I'll make it take a name.",
    toolCalls: [{
      name: "edit",
      arguments: {
        path: "src/app.ts",
        oldText: "export const greet = () => \"hello\"",
        newText: "export const greet = (name: string) => `hello, ${name}`"
      }
    }]
  },
  { text: "Done: `greet` now takes a name." },
  {
    text: "Writing a changelog entry.",
    toolCalls: [{ name: "write", arguments: { path: "CHANGELOG.md", content: "- greet() takes a name\n" } }]
  },
  { text: "The changelog records the change." },
  { text: "Here is the plan we settled on: keep `greet` small and documented." }
]

/** `branchlog demo [--dir DIR]`. */
export const demo: CliCommand = Command.make(
  "demo",
  {
    dir: Options.text("dir").pipe(
      Options.withDescription("where to keep the demo's session files (default: a fresh temporary folder)"),
      Options.optional
    )
  },
  ({ dir }) =>
    Effect.gen(function*() {
      const { AgentSession, BuiltinTools, ModelRegistry, ScriptedModel, ToolRegistry, Workspace } = yield* agentRuntime
      const sessionDir = Option.getOrElse(dir, () => join(tmpdir(), `branchlog-demo-${randomUUID().slice(0, 8)}`))
      const project = new Map([
        ["src/app.ts", "export const greet = () => \"hello\"\n"],
        ["NOTES.md", "# Notes\n- greet should take a name\n"]
      ])
      const sm = yield* SessionManager.create("/demo/project", sessionDir)
      // the manager moves to the new file when it forks: keep the first one's path
      const sessionFile = sm.getSessionFile()!
      const say = (text: string) => Output.lines([text])
      const session = yield* AgentSession.make({
        sessionManager: sm,
        tools: ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.memory(project)) }),
        models: ModelRegistry.make({ models: [ModelRegistry.scriptedModel] }),
        // a small session: keep only the last few dozen tokens verbatim, so compacting has work to do
        compaction: { enabled: false, thresholdRatio: 0.8, keepRecentTokens: 10 },
        onEvent: (event) => event._tag === "MessageEnd" ? say(`  ${messageLine(event.message, 90)}`) : Effect.void
      }).pipe(Effect.provide(ScriptedModel.layer({ script: demoScript })))

      yield* say("1. a turn with two parallel tool calls, then an edit:")
      const first = yield* session.prompt("Make greet take a name; read the notes first.")
      const firstAssistant = first.entryIds[1]!
      yield* sm.appendLabelChange(firstAssistant, "read-before-edit")
      yield* say(`2. labelled ${firstAssistant} "read-before-edit"`)
      yield* say("3. another turn on the same branch:")
      yield* session.prompt("Add a changelog entry.")
      const back = yield* session.navigateTree(first.entryIds.at(-1)!, { summarize: true, label: "before-changelog" })
      yield* say(`4. branched back to ${back.leafId} with a summary of the abandoned branch (${back.summaryEntryId})`)
      yield* session.prompt("Summarise the plan instead.")
      const compaction = yield* session.compact()
      yield* say(`5. compacted ${compaction.tokensBefore} tokens, keeping from ${compaction.firstKeptEntryId}`)
      const forked = yield* session.fork(first.entryIds[0]!)
      // a fork with no assistant reply yet is written at its first reply; flush() writes it now
      yield* sm.flush()
      yield* say(`6. forked at the first user message into ${forked.sessionFile ?? "(memory)"}`)

      const original = yield* SessionManager.open(sessionFile, undefined, undefined, { readOnly: true, cache: false })
      const context = original.buildSessionContext()
      yield* Output.lines([
        "",
        "tree of the demo session (* current path):",
        ...TreeText.render(original.getState(), { style: Output.stdoutStyle(), columns: Width.columns() }),
        "",
        `context at the leaf (${context.messages.length} messages, model ${context.model?.provider}/${context.model?.modelId}, thinking ${context.thinkingLevel}):`,
        ...context.messages.map((message) => `  ${messageLine(message, 90)}`),
        "",
        `session file: ${original.getSessionFile()}`,
        `forked file:  ${forked.sessionFile}`,
        `try: branchlog tree ${original.getSessionFile()}`
      ])
    })
).pipe(
  Command.withDescription(
    "Run a scripted agent (no network, no configuration): turns with tool calls, a label, a branch with a summary, a compaction and a fork; then print the tree, the context and the file."
  )
)

/** What `run '!cmd'` prints: the command, its output, its exit code. */
const bashLines = (message: AgentMessage.BashExecutionMessage): Array<string> => [
  messageLine(message, 200),
  ...(message.output === "" ? [] : [message.output.trimEnd()]),
  message.cancelled ? "cancelled" : `exit code: ${message.exitCode ?? "?"}`,
  ...(message.fullOutputPath === undefined ? [] : [`full output: ${message.fullOutputPath}`])
]

/** One line of `--verbose` for a lifecycle event: `session: <reason> <key> [status] [outcome] [file]`. */
const lifecycleLine = (event: {
  readonly reason: string
  readonly sessionKey: string
  readonly status?: string
  readonly outcome?: string
  readonly errorMessage?: string
  readonly parentSessionKey?: string
  readonly sessionFile?: string
}): string =>
  [
    `session: ${event.reason} ${event.sessionKey}`,
    ...(event.parentSessionKey === undefined ? [] : [`(parent ${event.parentSessionKey})`]),
    ...(event.status === undefined ? [] : [event.status]),
    ...(event.outcome === undefined ? [] : [event.outcome]),
    ...(event.errorMessage === undefined ? [] : [`: ${event.errorMessage}`]),
    ...(event.sessionFile === undefined ? [] : [event.sessionFile])
  ].join(" ")

/** `branchlog run PROMPT [--session FILE] [--model scripted|openai-compatible ...]`. */
export const run: CliCommand = Command.make(
  "run",
  {
    prompt: Args.text({ name: "PROMPT" }),
    session: Options.text("session").pipe(
      Options.withDescription(
        "the session file to continue (created when missing; default: a new session for this folder)"
      ),
      Options.optional
    ),
    full: Options.boolean("full").pipe(
      Options.withDescription("read the whole session first (default: only the active path, through the sidecar index)")
    ),
    model: Options.choice("model", ["scripted", "openai-compatible"]).pipe(
      Options.withDefault("scripted" as const),
      Options.withDescription("scripted (default, no network) or an OpenAI-compatible endpoint")
    ),
    apiUrl: Options.text("api-url").pipe(
      Options.withDescription("the endpoint's base URL, e.g. http://127.0.0.1:8080/v1"),
      Options.optional
    ),
    apiKey: Options.text("api-key").pipe(
      Options.withDescription("the API key (default: $OPENAI_API_KEY)"),
      Options.optional
    ),
    modelId: Options.text("model-id").pipe(Options.withDescription("the model to ask for"), Options.optional),
    maxRetries: Options.integer("max-retries").pipe(
      Options.withDefault(4),
      Options.withDescription("retries of a model call that fails on a transient error (429, 5xx, a reset)")
    ),
    retryDelay: Options.integer("retry-delay").pipe(
      Options.withDefault(1000),
      Options.withDescription("the first wait before a retry, in ms (doubled each time, with jitter)")
    ),
    retryBudget: Options.integer("retry-budget").pipe(
      Options.withDefault(60_000),
      Options.withDescription("the most waiting across the retries of one call, in ms")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON: the session and the turn's messages"))
  },
  ({ apiKey, apiUrl, full, json, maxRetries, model, modelId, prompt, retryBudget, retryDelay, session }) =>
    Effect.gen(function*() {
      const { AgentSession, BuiltinTools, ModelRegistry, OpenAiCompatible, ScriptedModel, ToolRegistry, Workspace } =
        yield* agentRuntime
      const cwd = process.cwd()
      const sm = Option.isSome(session)
        ? full
          ? yield* SessionManager.open(session.value, undefined, cwd)
          : yield* SessionManager.resume(session.value, undefined, cwd)
        : yield* SessionManager.create(cwd, yield* SessionCatalog.defaultSessionDir(cwd))
      const remote = model === "openai-compatible"
      if (remote && Option.isNone(apiUrl)) {
        return yield* new UsageError({ detail: "--model openai-compatible needs --api-url" })
      }
      const info: ModelRegistry.ModelInfo = remote
        ? {
          ...ModelRegistry.scriptedModel,
          provider: "openai-compatible",
          id: Option.getOrElse(modelId, () => "default"),
          api: "openai-completions",
          reasoning: false
        }
        : ModelRegistry.scriptedModel
      const NodeHttpClient = remote
        ? yield* Effect.promise(() => import("@effect/platform-node/NodeHttpClient"))
        : undefined
      const languageModel: Layer.Layer<LanguageModel.LanguageModel> = remote
        ? OpenAiCompatible.layer({
          apiUrl: Option.getOrThrow(apiUrl),
          ...Option.match(Option.orElse(apiKey, () => Option.fromNullable(process.env.OPENAI_API_KEY)), {
            onNone: () => ({}),
            onSome: (key) => ({ apiKey: key })
          })
        }).pipe(Layer.provide(NodeHttpClient!.layerUndici))
        : ScriptedModel.layer({ script: ScriptedModel.echoRule })
      const verbose = yield* FiberRef.get(Globals.verbose)
      const turn = Effect.gen(function*() {
        const agent = yield* AgentSession.make({
          sessionManager: sm,
          tools: ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.node(cwd)) }),
          models: ModelRegistry.make({ models: [info] }),
          retry: {
            maxRetries,
            baseDelayMs: retryDelay,
            maxDelayMs: Math.max(30_000, retryDelay),
            budgetMs: retryBudget
          },
          ...(verbose
            ? {
              onLifecycle: (event) => Output.note(lifecycleLine(event)),
              onEvent: (event) =>
                event._tag === "Retry"
                  ? Output.note(
                    `retry: attempt ${event.attempt} failed (${event.error.message}); retrying in ${
                      Math.round(event.delayMs)
                    } ms`
                  )
                  : Effect.void
            }
            : {})
        })
        return yield* agent.prompt(prompt)
      })
      const result = yield* turn.pipe(Effect.provide(languageModel))
      yield* sm.flush()
      const shown = result.messages[0]?.role === "bashExecution" ? result.messages : result.messages.slice(1)
      const width = Width.columns()
      yield* (json ?
        Output.json({
          file: sm.getSessionFile() ?? null,
          sessionId: sm.getSessionId(),
          leafId: sm.getLeafId(),
          messages: result.messages,
          errorMessage: result.errorMessage ?? null
        }) :
        Output.lines([
          ...shown.flatMap((message) =>
            message.role === "bashExecution"
              ? bashLines(message as AgentMessage.BashExecutionMessage)
              : [Width.fit(messageLine(message, width), width)]
          ),
          `session file: ${sm.getSessionFile()}`
        ]))
      if (result.errorMessage !== undefined) {
        const path = sm.getSessionFile()
        return yield* new TurnFailed({ detail: result.errorMessage, ...(path === undefined ? {} : { path }) })
      }
    })
).pipe(
  Command.withDescription(
    "Run one agent turn through AgentSession: the scripted model by default (no network), or an OpenAI-compatible endpoint."
  )
)
