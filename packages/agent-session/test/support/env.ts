/** Shared helpers of the AgentSession suites: temporary folders, scripted sessions, transcript rows. */
import type { SessionManager } from "@branchlog/session-store"
import { IdSource } from "@branchlog/session-store"
import { SessionStore } from "@branchlog/store-jsonl"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AgentSession from "../../src/AgentSession.js"
import * as BuiltinTools from "../../src/BuiltinTools.js"
import type * as Compaction from "../../src/Compaction.js"
import type * as Hooks from "../../src/Hooks.js"
import * as ModelRegistry from "../../src/ModelRegistry.js"
import * as ScriptedModel from "../../src/ScriptedModel.js"
import * as ToolRegistry from "../../src/ToolRegistry.js"
import * as Workspace from "../../src/Workspace.js"

const roots: Array<string> = []

/** A fresh temporary folder. */
export const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-session-"))
  roots.push(dir)
  return dir
}

/** Removes the temporary folders. */
export const cleanup = (): void => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
}

/** Store services over real files, deterministic ids. */
export const storeLayer = Layer.merge(SessionStore.layerNode, IdSource.deterministic(7))

/** The models of the suites. */
export const models = [
  ModelRegistry.scriptedModel,
  { provider: "scripted", id: "tiny", api: "scripted", contextWindow: 400, reasoning: false }
]

/** The rows of a transcript file. */
export const rowsOf = (file: string): Array<Record<string, any>> =>
  fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))

/** What a scripted agent test needs. */
export interface Scripted {
  readonly session: AgentSession.AgentSessionShape
  readonly sm: SessionManager.SessionManager
  readonly files: Map<string, string>
  readonly events: Array<AgentSession.AgentEvent>
  /** Resolves at the next streamed delta. */
  readonly nextDelta: () => Effect.Effect<Effect.Effect<void>>
}

/** An agent session over `sm` with a scripted model and the built-ins over an in-memory workspace. */
export const scripted = (
  sm: SessionManager.SessionManager,
  options: {
    readonly script?: ScriptedModel.Script
    readonly hooks?: ReadonlyArray<Hooks.Hooks>
    readonly compaction?: Compaction.Settings
    readonly current?: { provider: string; modelId: string }
    /** More options of the agent session (events, retry, bash, sub-agents). */
    readonly extra?: Partial<AgentSession.Options>
  } = {}
): Effect.Effect<Scripted, SessionManager.WriteError> =>
  Effect.gen(function*() {
    const files = new Map([["a.txt", "alpha\n"], ["b.txt", "beta\n"]])
    const events: Array<AgentSession.AgentEvent> = []
    let waiting: Deferred.Deferred<void> | undefined
    const session = yield* AgentSession.make({
      sessionManager: sm,
      tools: ToolRegistry.make({ builtinTools: BuiltinTools.all(Workspace.memory(files)) }),
      models: ModelRegistry.make({ models, ...(options.current ? { current: options.current } : {}) }),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      ...(options.compaction ? { compaction: options.compaction } : {}),
      ...options.extra,
      onEvent: (event) =>
        Effect.suspend(() => {
          events.push(event)
          if (options.extra?.onEvent !== undefined) return options.extra.onEvent(event)
          if (event._tag === "MessageUpdate" && waiting !== undefined) {
            const d = waiting
            waiting = undefined
            return Deferred.succeed(d, undefined)
          }
          return Effect.void
        })
    }).pipe(Effect.provide(ScriptedModel.layer(options.script === undefined ? {} : { script: options.script })))
    const nextDelta = () =>
      Effect.map(Deferred.make<void>(), (d) => {
        waiting = d
        return Deferred.await(d)
      })
    return { session, sm, files, events, nextDelta }
  })
