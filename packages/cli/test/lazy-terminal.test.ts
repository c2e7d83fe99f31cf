/**
 * The executable's Terminal (`internal/terminal.ts`) answers as @effect/platform-node's, which it
 * loads only when a command reads input or displays a prompt.
 */
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Terminal from "@effect/platform/Terminal"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as LazyTerminal from "../src/internal/terminal.js"

const facts = Effect.gen(function*() {
  const terminal = yield* Terminal.Terminal
  return { columns: yield* terminal.columns, rows: yield* terminal.rows, isTTY: yield* terminal.isTTY }
})

describe("the lazily loaded terminal", () => {
  it.scoped("reports the size and kind of stdout as @effect/platform-node's terminal does", () =>
    Effect.gen(function*() {
      const lazy = yield* facts.pipe(Effect.provide(LazyTerminal.layer))
      const node = yield* facts.pipe(Effect.provide(NodeTerminal.layer))
      expect(lazy).toEqual(node)
    }))

  it.scoped("loads @effect/platform-node's terminal to display a prompt, in the layer's scope", () =>
    Effect.gen(function*() {
      const terminal = yield* Terminal.Terminal
      // an empty prompt: written through the loaded terminal, nothing shows
      yield* terminal.display("")
      yield* terminal.display("")
    }).pipe(Effect.provide(LazyTerminal.layer)))
})
