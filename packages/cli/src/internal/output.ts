/** Printing: JSON for scripts, lines for people, notes on stderr. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Style from "./style.js"

/** Prints a value as JSON (what `--json` prints). */
export const json = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Lines per write: a long listing is printed in pieces, never joined into one string beyond V8's limit. */
const LINES_PER_WRITE = 4096

/** Prints lines on stdout. */
export const lines = (text: ReadonlyArray<string>) =>
  text.length <= LINES_PER_WRITE
    ? text.length === 0 ? Effect.void : Console.log(text.join("\n"))
    : Effect.forEach(
      Array.from({ length: Math.ceil(text.length / LINES_PER_WRITE) }, (_, i) => i * LINES_PER_WRITE),
      (start) => Console.log(text.slice(start, start + LINES_PER_WRITE).join("\n")),
      { discard: true }
    )

/** Prints a note on stderr. */
export const note = (text: string) => Console.error(text)

/** The colours for stdout. */
export const stdoutStyle = (): Style.Style => Style.forStream(process.stdout)
