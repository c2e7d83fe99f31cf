/**
 * A runnable tool: a name, a description, parameters as an `effect/Schema` schema (given to the
 * model as JSON Schema), optional prompt snippet and guidelines for the system prompt, and an
 * `execute` effect that receives the decoded arguments.
 *
 * @since 0.1.0
 */
import type { AgentMessage } from "@branchlog/session-core"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { ToolError } from "./AgentError.js"

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** The id of the tool call in the assistant message. */
  readonly toolCallId: string
}

/** What a tool returns: content blocks for the model, optional details for the transcript. */
export interface ToolOutput {
  readonly content: ReadonlyArray<AgentMessage.TextContent | AgentMessage.ImageContent>
  readonly details?: unknown
  readonly isError?: boolean
}

/** A runnable tool whose decoded arguments have type `A`. */
export interface Tool<A = any> {
  readonly name: string
  readonly description: string
  readonly parameters: Schema.Schema<A, any, never>
  /** One line for the system prompt's tool list (default: the description). */
  readonly promptSnippet?: string
  /** Lines for the system prompt's guidelines. */
  readonly promptGuidelines?: ReadonlyArray<string>
  /** `false` when the tool changes shared state and must not run beside other calls (default `true`). */
  readonly parallel?: boolean
  readonly execute: (args: A, context: ToolContext) => Effect.Effect<ToolOutput, ToolError>
}

/** Any tool. */
export type AnyTool = Tool<any>

/** The description of a tool as a model receives it. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: JSONSchema.JsonSchema7Root
}

/** Builds a tool (an identity that fixes the argument type from the schema). */
export const make = <S extends Schema.Schema<any, any, never>>(tool: {
  readonly name: string
  readonly description: string
  readonly parameters: S
  readonly promptSnippet?: string
  readonly promptGuidelines?: ReadonlyArray<string>
  readonly parallel?: boolean
  readonly execute: (args: Schema.Schema.Type<S>, context: ToolContext) => Effect.Effect<ToolOutput, ToolError>
}): Tool<Schema.Schema.Type<S>> => tool

/** The JSON Schema of a tool's parameters. */
export const jsonSchema = (tool: AnyTool): JSONSchema.JsonSchema7Root => JSONSchema.make(tool.parameters)

/** The spec a model receives for a tool. */
export const toSpec = (tool: AnyTool): ToolSpec => ({
  name: tool.name,
  description: tool.description,
  parameters: jsonSchema(tool)
})

/** A text-only tool output. */
export const text = (value: string, details?: unknown): ToolOutput =>
  details === undefined
    ? { content: [{ type: "text", text: value }] }
    : { content: [{ type: "text", text: value }], details }

/** A failed tool output (the model sees the reason; `isError` is recorded). */
export const errorOutput = (reason: string): ToolOutput => ({
  content: [{ type: "text", text: reason }],
  isError: true
})

/** Decodes raw model arguments with the tool's schema; a mismatch is a `ToolError`. */
export const decodeArguments = (tool: AnyTool, args: unknown): Effect.Effect<unknown, ToolError> =>
  Schema.decodeUnknown(tool.parameters)(args).pipe(
    Effect.mapError((error) => new ToolError({ toolName: tool.name, reason: `invalid arguments: ${error.message}` }))
  )
