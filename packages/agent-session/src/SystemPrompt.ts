/**
 * The system prompt: a base prompt, then the active tools (one line each, from their prompt
 * snippets, in active order), then the guidelines of the active tools (in the same order, each
 * once), then the context files (in the given order). Deterministic: no date, no environment;
 * sections with nothing to say are left out.
 *
 * @since 0.1.0
 */
import type { ToolRegistryShape } from "./ToolRegistry.js"

/** A file whose text is given to the model as project context (e.g. `AGENTS.md`). */
export interface ContextFile {
  readonly path: string
  readonly content: string
}

/** What a system prompt is made of. */
export interface Parts {
  readonly base: string
  readonly tools: ReadonlyArray<
    { readonly name: string; readonly snippet: string; readonly guidelines: ReadonlyArray<string> }
  >
  readonly contextFiles?: ReadonlyArray<ContextFile>
}

/** The default base prompt. */
export const DEFAULT_BASE =
  "You are a coding assistant. You help the user by reading files, running commands, editing code and writing new files."

/** Assembles the prompt text. */
export const build = (parts: Parts): string => {
  const sections: Array<string> = [parts.base.trim()]
  if (parts.tools.length > 0) {
    sections.push(["Available tools:", ...parts.tools.map((t) => `- ${t.name}: ${t.snippet}`)].join("\n"))
  }
  const guidelines: Array<string> = []
  for (const tool of parts.tools) for (const g of tool.guidelines) if (!guidelines.includes(g)) guidelines.push(g)
  if (guidelines.length > 0) sections.push(["Guidelines:", ...guidelines.map((g) => `- ${g}`)].join("\n"))
  const files = parts.contextFiles ?? []
  if (files.length > 0) {
    sections.push(["# Project Context", ...files.map((f) => `## ${f.path}\n\n${f.content.trim()}`)].join("\n\n"))
  }
  return sections.join("\n\n")
}

/** The prompt for the registry's active tools. */
export const fromRegistry = (
  registry: ToolRegistryShape,
  base: string = DEFAULT_BASE,
  contextFiles: ReadonlyArray<ContextFile> = []
): string => {
  const snippets = registry.promptSnippets()
  const guidelines = registry.promptGuidelines()
  return build({
    base,
    contextFiles,
    tools: registry.activeToolNames().map((name) => ({
      name,
      snippet: snippets.get(name) ?? "",
      guidelines: guidelines.get(name) ?? []
    }))
  })
}
