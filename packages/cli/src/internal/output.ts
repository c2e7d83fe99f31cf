/** Printing: JSON for scripts, lines for people, notes on stderr. */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Style from "./style.js"

/** Prints a value as JSON (what `--json` prints). */
export const json = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Prints lines on stdout. */
export const lines = (text: ReadonlyArray<string>) => text.length === 0 ? Effect.void : Console.log(text.join("\n"))

/** Prints a note on stderr. */
export const note = (text: string) => Console.error(text)

/** The colours for stdout. */
export const stdoutStyle = (): Style.Style => Style.forStream(process.stdout)
