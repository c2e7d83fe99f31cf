/** Terminal colours: only on a terminal, never with NO_COLOR. */
import { coloursAllowed } from "./plainConsole.js"
export interface Style {
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly red: (text: string) => string
  readonly cyan: (text: string) => string
}

const plain = (text: string) => text
const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`

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
