/**
 * Printing: JSON for scripts, lines for people, notes on stderr. Every line for people is made
 * safe here, once for every command: a control character in a session's text (an escape that
 * would clear the screen, write the clipboard or set the title) is shown, not obeyed, on a
 * terminal and in a pipe; the command's own colours are written only where colours are allowed.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { coloursAllowed } from "./plainConsole.js"
import * as SafeText from "./safeText.js"
import * as Style from "./style.js"

/** Prints a value as JSON (what `--json` prints), with no raw control character in it. */
export const json = (value: unknown) => Console.log(SafeText.json(value))

/** Lines per write: a long listing is printed in pieces, never joined into one string beyond V8's limit. */
const LINES_PER_WRITE = 4096

const forStdout = (text: ReadonlyArray<string>) => SafeText.forStream(text.join("\n"), coloursAllowed(process.stdout))

/** Prints lines on stdout, control characters made visible. */
export const lines = (text: ReadonlyArray<string>) =>
  text.length <= LINES_PER_WRITE
    ? text.length === 0 ? Effect.void : Console.log(forStdout(text))
    : Effect.forEach(
      Array.from({ length: Math.ceil(text.length / LINES_PER_WRITE) }, (_, i) => i * LINES_PER_WRITE),
      (start) => Console.log(forStdout(text.slice(start, start + LINES_PER_WRITE))),
      { discard: true }
    )

/** Prints a note (or an error) on stderr, control characters made visible. */
export const note = (text: string) => Console.error(SafeText.forStream(text, coloursAllowed(process.stderr)))

/** The colours for stdout. */
export const stdoutStyle = (): Style.Style => Style.forStream(process.stdout)
