/**
 * The tool registry of spec §13: the tools from three sources (built-in, extension with its path,
 * SDK), filtered by the allow-list and `disableBuiltInTools` (judged independently: a tool is
 * allowed iff not (built-ins disabled and it is built-in) and (no allow-list or it is listed)),
 * exposed as four maps of allowed tools (runnable tools, definitions with their source, prompt
 * snippets, prompt guidelines), and the ordered set of active tool names.
 *
 * `refresh` computes the next active set incrementally: start from the explicit list or the
 * previous active names, keep the allowed ones present in the registry, then add every registry
 * tool when an allow-list exists, else every extension tool with `includeAllExtensionTools`,
 * else (no explicit list) every tool that appeared since the last refresh. Registering or
 * unregistering tools refreshes at once (without an explicit list), so a re-installed extension
 * comes back active and never empties the set. On a name clash an SDK tool wins over an
 * extension tool, which wins over a built-in; the winner's source is the tool's source.
 *
 * The registry is runtime state: nothing of it is written to the transcript.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import type * as Tool from "./Tool.js"

/** Where a tool comes from. */
export type ToolSource =
  | { readonly _tag: "builtin" }
  | { readonly _tag: "extension"; readonly path: string }
  | { readonly _tag: "sdk" }

/** A tool's definition and its source. */
export interface ToolDefinition {
  readonly definition: Tool.AnyTool
  readonly source: ToolSource
}

/** The tools active by default. */
export const DEFAULT_ACTIVE_TOOLS: ReadonlyArray<string> = ["read", "bash", "edit", "write"]

/** Options of a registry. */
export interface Options {
  readonly builtinTools?: ReadonlyArray<Tool.AnyTool>
  readonly sdkTools?: ReadonlyArray<Tool.AnyTool>
  /** Only these names may be used (undefined: no allow-list). */
  readonly allowedToolNames?: Iterable<string>
  readonly disableBuiltInTools?: boolean
  /** The first active set (default {@link DEFAULT_ACTIVE_TOOLS} and the SDK tools). */
  readonly activeToolNames?: ReadonlyArray<string>
}

/** Options of `refresh`. */
export interface RefreshOptions {
  readonly activeToolNames?: ReadonlyArray<string>
  readonly includeAllExtensionTools?: boolean
}

/** The registry. */
export interface ToolRegistryShape {
  /** Runnable allowed tools by name. */
  readonly tools: () => ReadonlyMap<string, Tool.AnyTool>
  /** Allowed tool definitions with their source. */
  readonly definitions: () => ReadonlyMap<string, ToolDefinition>
  /** Normalised prompt snippets (`promptSnippet ?? description`) of allowed tools. */
  readonly promptSnippets: () => ReadonlyMap<string, string>
  /** Normalised prompt guidelines of allowed tools. */
  readonly promptGuidelines: () => ReadonlyMap<string, ReadonlyArray<string>>
  /** The active tool names, in order. */
  readonly activeToolNames: () => ReadonlyArray<string>
  /** The active tools, in order. */
  readonly activeTools: () => ReadonlyArray<Tool.AnyTool>
  /** Whether a tool of this name and source passes the filters. */
  readonly isAllowed: (name: string, source: ToolSource) => boolean
  /** Recomputes the registry and the active set (see the module doc). */
  readonly refresh: (options?: RefreshOptions) => ReadonlyArray<string>
  /** Sets the active tools (unknown or disallowed names are ignored). */
  readonly setActiveToolsByName: (names: ReadonlyArray<string>) => ReadonlyArray<string>
  /** Registers (or replaces) the tools of the extension at `path`, then refreshes. */
  readonly registerExtensionTools: (path: string, tools: ReadonlyArray<Tool.AnyTool>) => void
  /** Removes the tools of the extension at `path`, then refreshes. */
  readonly unregisterExtension: (path: string) => void
  /** Adds (or replaces) SDK tools, then refreshes. */
  readonly registerSdkTools: (tools: ReadonlyArray<Tool.AnyTool>) => void
  /** Changes the filters, then refreshes. */
  readonly setFilters: (
    filters: { readonly allowedToolNames?: Iterable<string> | undefined; readonly disableBuiltInTools?: boolean }
  ) => void
}

/** The ToolRegistry service. */
export class ToolRegistry
  extends Context.Tag("@branchlog/agent-session/ToolRegistry")<ToolRegistry, ToolRegistryShape>()
{}

/** Trims a snippet and folds its whitespace to single spaces. */
export const normalizeSnippet = (text: string): string => text.replace(/\s+/g, " ").trim()

/** Trims guidelines, drops empty and repeated ones. */
export const normalizeGuidelines = (lines: ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const line of lines ?? []) {
    const normal = normalizeSnippet(line)
    if (normal.length > 0 && !out.includes(normal)) out.push(normal)
  }
  return out
}

/** A new registry. */
export const make = (options: Options = {}): ToolRegistryShape => {
  const builtins = new Map<string, Tool.AnyTool>((options.builtinTools ?? []).map((t) => [t.name, t]))
  const extensions = new Map<string, ReadonlyArray<Tool.AnyTool>>()
  const sdk = new Map<string, Tool.AnyTool>((options.sdkTools ?? []).map((t) => [t.name, t]))
  let allowed: ReadonlySet<string> | undefined = options.allowedToolNames === undefined
    ? undefined
    : new Set(options.allowedToolNames)
  let disableBuiltIns = options.disableBuiltInTools ?? false

  let definitions = new Map<string, ToolDefinition>()
  let active: ReadonlyArray<string> = []
  let known = new Set<string>()

  const isAllowed = (name: string, source: ToolSource) =>
    !(disableBuiltIns && source._tag === "builtin") && (allowed === undefined || allowed.has(name))

  const rebuild = () => {
    const all = new Map<string, ToolDefinition>()
    for (const tool of builtins.values()) all.set(tool.name, { definition: tool, source: { _tag: "builtin" } })
    for (const [path, tools] of extensions) {
      for (const tool of tools) all.set(tool.name, { definition: tool, source: { _tag: "extension", path } })
    }
    for (const tool of sdk.values()) all.set(tool.name, { definition: tool, source: { _tag: "sdk" } })
    definitions = new Map([...all].filter(([name, def]) => isAllowed(name, def.source)))
  }

  const refresh = (refreshOptions: RefreshOptions = {}): ReadonlyArray<string> => {
    const previousKnown = known
    rebuild()
    const next: Array<string> = []
    const add = (name: string) => {
      if (definitions.has(name) && !next.includes(name)) next.push(name)
    }
    for (const name of refreshOptions.activeToolNames ?? active) add(name)
    if (allowed !== undefined) {
      for (const name of definitions.keys()) add(name)
    } else if (refreshOptions.includeAllExtensionTools === true) {
      for (const [name, def] of definitions) if (def.source._tag === "extension") add(name)
    } else if (refreshOptions.activeToolNames === undefined) {
      for (const name of definitions.keys()) if (!previousKnown.has(name)) add(name)
    }
    known = new Set(definitions.keys())
    active = next
    return active
  }

  const registry: ToolRegistryShape = {
    tools: () => new Map([...definitions].map(([name, def]) => [name, def.definition])),
    definitions: () => definitions,
    promptSnippets: () =>
      new Map([...definitions].map(([name, def]) => [
        name,
        normalizeSnippet(def.definition.promptSnippet ?? def.definition.description)
      ])),
    promptGuidelines: () =>
      new Map([...definitions].map(([name, def]) => [name, normalizeGuidelines(def.definition.promptGuidelines)])),
    activeToolNames: () => active,
    activeTools: () => active.map((name) => definitions.get(name)!.definition),
    isAllowed,
    refresh,
    setActiveToolsByName: (names) => refresh({ activeToolNames: names }),
    registerExtensionTools: (path, tools) => {
      extensions.set(path, tools)
      refresh()
    },
    unregisterExtension: (path) => {
      extensions.delete(path)
      refresh()
    },
    registerSdkTools: (tools) => {
      for (const tool of tools) sdk.set(tool.name, tool)
      refresh()
    },
    setFilters: (filters) => {
      if ("allowedToolNames" in filters) {
        allowed = filters.allowedToolNames === undefined ? undefined : new Set(filters.allowedToolNames)
      }
      if (filters.disableBuiltInTools !== undefined) disableBuiltIns = filters.disableBuiltInTools
      refresh()
    }
  }
  // The first active set: the given or default names; tools present at start are not "new".
  rebuild()
  known = new Set(definitions.keys())
  refresh({ activeToolNames: options.activeToolNames ?? [...DEFAULT_ACTIVE_TOOLS, ...sdk.keys()] })
  return registry
}

/** A layer holding a registry built from `options`. */
export const layer = (options: Options = {}): Layer.Layer<ToolRegistry> => Layer.sync(ToolRegistry, () => make(options))
