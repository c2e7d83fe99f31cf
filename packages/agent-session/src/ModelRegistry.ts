/**
 * The models an agent may use (provider, id, context window, whether it reasons, price per
 * million tokens), the current model and the thinking level. A model that does not reason runs
 * with thinking `"off"` whatever level is asked. Runtime state only: `AgentSession` writes the
 * `model_change` / `thinking_level_change` entries.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ModelNotFoundError } from "./AgentError.js"

/** The thinking levels in practice. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const

/** A thinking level (the format does not validate it: any string is kept). */
export type ThinkingLevel = string

/** Price in dollars per million tokens. */
export interface ModelCost {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
}

/** A known model. */
export interface ModelInfo {
  readonly provider: string
  readonly id: string
  /** The `api` field written into assistant messages (e.g. `"openai-completions"`). */
  readonly api: string
  readonly contextWindow: number
  readonly reasoning: boolean
  readonly maxOutputTokens?: number
  readonly cost?: ModelCost
}

/** The registry. */
export interface ModelRegistryShape {
  readonly models: () => ReadonlyArray<ModelInfo>
  readonly find: (provider: string, modelId: string) => ModelInfo | undefined
  readonly current: () => ModelInfo
  /** Makes a known model current. */
  readonly setCurrent: (provider: string, modelId: string) => Effect.Effect<ModelInfo, ModelNotFoundError>
  /** The level asked for, as it applies to the current model. */
  readonly thinkingLevel: () => ThinkingLevel
  /** Sets the level asked for; returns the effective one. */
  readonly setThinkingLevel: (level: ThinkingLevel) => ThinkingLevel
  /** Adds (or replaces) a model. */
  readonly register: (model: ModelInfo) => void
}

/** The ModelRegistry service. */
export class ModelRegistry
  extends Context.Tag("@branchlog/agent-session/ModelRegistry")<ModelRegistry, ModelRegistryShape>()
{}

/** The scripted model of the tests and the demo. */
export const scriptedModel: ModelInfo = {
  provider: "scripted",
  id: "scripted-1",
  api: "scripted",
  contextWindow: 32_000,
  reasoning: true
}

/** A registry over `models`; the first is current unless `current` names another. */
export const make = (options: {
  readonly models: ReadonlyArray<ModelInfo>
  readonly current?: { readonly provider: string; readonly modelId: string }
  readonly thinkingLevel?: ThinkingLevel
}): ModelRegistryShape => {
  const models: Array<ModelInfo> = [...options.models]
  if (models.length === 0) models.push(scriptedModel)
  const find = (provider: string, modelId: string) => models.find((m) => m.provider === provider && m.id === modelId)
  let current = (options.current && find(options.current.provider, options.current.modelId)) || models[0]!
  let level: ThinkingLevel = options.thinkingLevel ?? "off"
  return {
    models: () => models,
    find,
    current: () => current,
    setCurrent: (provider, modelId) =>
      Effect.suspend(() => {
        const model = find(provider, modelId)
        if (model === undefined) return Effect.fail(new ModelNotFoundError({ provider, modelId }))
        current = model
        return Effect.succeed(model)
      }),
    thinkingLevel: () => current.reasoning ? level : "off",
    setThinkingLevel: (next) => {
      level = next
      return current.reasoning ? level : "off"
    },
    register: (model) => {
      const at = models.findIndex((m) => m.provider === model.provider && m.id === model.id)
      if (at >= 0) models[at] = model
      else models.push(model)
    }
  }
}

/** A layer holding a registry. */
export const layer = (options: Parameters<typeof make>[0]): Layer.Layer<ModelRegistry> =>
  Layer.sync(ModelRegistry, () => make(options))
