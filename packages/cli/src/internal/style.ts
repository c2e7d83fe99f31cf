/**
 * Terminal colours: only on a terminal, never with NO_COLOR. The escapes are the command's own
 * marks (see `safeText.ts`): the output layer writes them as SGR escapes, or drops them, once the
 * text around them was made safe, so a session's text can never pass for styling.
 */
import { coloursAllowed } from "./plainConsole.js"
import { sgr } from "./safeText.js"

/** The styles the command prints with. */
export interface Style {
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly red: (text: string) => string
  readonly cyan: (text: string) => string
}

const plain = (text: string) => text
const ansi = (open: number, close: number) => (text: string) => `${sgr(open)}${text}${sgr(close)}`

/** No colours. */
export const none: Style = { dim: plain, bold: plain, green: plain, yellow: plain, red: plain, cyan: plain }

/** ANSI colours. */
export const colours: Style = {
  dim: ansi(2, 22),
  bold: ansi(1, 22),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  red: ansi(31, 39),
  cyan: ansi(36, 39)
}

/** Colours when `stream` is a terminal and `NO_COLOR` is not set. */
export const forStream = (stream: { readonly isTTY?: boolean }): Style => (coloursAllowed(stream) ? colours : none)
