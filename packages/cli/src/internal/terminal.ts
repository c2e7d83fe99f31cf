/**
 * The Terminal service of the executable, loaded when a command first uses it: `columns`, `rows`
 * and `isTTY` are read from `process.stdout` as @effect/platform-node's terminal reads them, and
 * the rest (`readInput`, `readLine`, `display`: prompts) is that terminal, imported and built in
 * this layer's scope on first use. @effect/platform-node's layer creates `process.stdin` and loads
 * `node:readline` at every start, which a command that prompts for nothing never needs.
 */
import * as Terminal from "@effect/platform/Terminal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

/** The terminal over process.stdin / process.stdout, its input side built when first used. */
export const layer: Layer.Layer<Terminal.Terminal> = Layer.scoped(
  Terminal.Terminal,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const node = yield* Effect.cached(
      Effect.promise(() => import("@effect/platform-node/NodeTerminal")).pipe(
        Effect.flatMap((NodeTerminal) => NodeTerminal.make()),
        Scope.extend(scope)
      )
    )
    return Terminal.Terminal.of({
      columns: Effect.sync(() => process.stdout.columns ?? 0),
      rows: Effect.sync(() => process.stdout.rows ?? 0),
      isTTY: Effect.sync(() => Boolean(process.stdout.isTTY)),
      readInput: Effect.flatMap(node, (terminal) => terminal.readInput),
      readLine: Effect.flatMap(node, (terminal) => terminal.readLine),
      display: (text) => Effect.flatMap(node, (terminal) => terminal.display(text))
    })
  })
)
