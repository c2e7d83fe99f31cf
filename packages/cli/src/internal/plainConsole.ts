/**
 * Colours only on a terminal, never with NO_COLOR: @effect/cli prints its help and errors with
 * ANSI codes whatever the output is, so the executable's Console strips them when stdout is not a
 * terminal or NO_COLOR is set, and shows any other control character (the commands' own output
 * is made safe in `output.ts`; this catches what @effect/cli prints, such as a mistyped argument).
 */
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { visible } from "./safeText.js"

const ansi = /\u001b\[[0-9;]*[A-Za-z]/g

/** Removes ANSI escape codes. */
export const strip = (text: string): string => text.replace(ansi, "")

/** `true` when colours may be printed on `stream`. */
export const coloursAllowed = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && (process.env.NO_COLOR === undefined || process.env.NO_COLOR === "")

const plainArgs = (args: ReadonlyArray<unknown>) =>
  args.map((arg) => (typeof arg === "string" ? visible(strip(arg)) : arg))

/**
 * Runs `effect` with a Console that strips colours from what goes to a stream that may not have
 * them, and shows the other control characters there.
 */
export const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const out = coloursAllowed(process.stdout)
  const err = coloursAllowed(process.stderr)
  if (out && err) return effect
  return Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(
      effect,
      {
        ...console,
        log: (...args: ReadonlyArray<unknown>) => console.log(...(out ? args : plainArgs(args))),
        info: (...args: ReadonlyArray<unknown>) => console.info(...(out ? args : plainArgs(args))),
        error: (...args: ReadonlyArray<unknown>) => console.error(...(err ? args : plainArgs(args))),
        warn: (...args: ReadonlyArray<unknown>) => console.warn(...(err ? args : plainArgs(args)))
      } satisfies Console.Console
    ))
}
