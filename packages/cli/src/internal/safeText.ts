/**
 * Text for people, made safe for a terminal. A session's text (messages, names, labels, ids, tool
 * output, paths) can carry escape sequences that a terminal would obey: clear the screen, write the
 * clipboard (OSC 52), set the title, draw a link, move the cursor over what was printed. Human
 * output shows every control character instead (ESC as `␛`, the other C0 controls and DEL as
 * their control pictures, C1 controls as `\x9b`), on a terminal and in a pipe alike; a newline
 * and a tab stay, as layout.
 *
 * The command's own colours are the only escapes that reach a terminal: {@link sgr} writes them
 * with a mark that stands for ESC, which no session can hold (it is drawn at random when the
 * process starts), and {@link forStream} turns the marks into ESC, or drops them, after the text
 * around them was made visible.
 */
import { randomBytes } from "node:crypto"

/** C0 controls but tab and newline, a CRLF pair, DEL, and C1 controls. */
const controls = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

const picture = (char: string): string => {
  if (char === "\r\n") return "\n"
  const code = char.charCodeAt(0)
  if (code === 0x1b) return "␛"
  if (code < 0x20) return String.fromCharCode(0x2400 + code) // ␀ … ␟ (␇ for BEL, ␍ for CR)
  if (code === 0x7f) return "␡"
  return `\\x${code.toString(16)}` // C1: no control pictures exist for them
}

/** `text` with every control character but newline and tab made visible (a CRLF pair is a newline). */
export const visible = (text: string): string => text.replace(controls, picture)

/**
 * What stands for ESC in the command's own styling until the text is written: private-use
 * characters around 128 random bits, new in every process, so that no session can forge it.
 */
const mark = `\uE000${randomBytes(16).toString("hex")}\uE001`

/** The command's own SGR sequence (colour, bold, dim), as {@link forStream} will write it. */
export const sgr = (code: number): string => `${mark}[${code}m`

const marks = new RegExp(`${mark}\\[([0-9]+)m`, "g")

/**
 * `text` as written to a stream: control characters made visible, then the command's own styling
 * written as SGR escapes when `colours` is `true`, or dropped.
 */
export const forStream = (text: string, colours: boolean): string =>
  visible(text).replace(marks, colours ? "\u001b[$1m" : "")

/**
 * `JSON.stringify(value, null, 2)` with DEL and the C1 controls written as `\u` escapes too: the
 * same value for every JSON reader, and no raw control character for a terminal to obey
 * (`JSON.stringify` escapes C0 controls itself, not these).
 */
export const json = (value: unknown): string => {
  const text: string | undefined = JSON.stringify(value, null, 2)
  return text === undefined
    ? String(text)
    : text.replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
}
