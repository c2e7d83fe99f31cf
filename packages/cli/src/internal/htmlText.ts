/**
 * Escaping for the HTML page of `branchlog export --html`: every value from a session goes
 * through one of these before it reaches the page.
 */
import { visible } from "./safeText.js"

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** An attribute value, escaped (anything: a hostile file can put a number where a string belongs). */
export const attribute = (value: unknown): string => String(value).replace(/[&<>"']/g, (char) => entities[char]!)

/** Text, escaped, its control characters made visible. */
export const escape = (value: unknown): string => attribute(visible(String(value)))

/** A class name made of `value`: letters, digits, `-` and `_` only (so it cannot add classes). */
export const classToken = (value: unknown): string => String(value).replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)

/** Preformatted text, escaped (nothing for empty text). */
export const pre = (text: string, cls = ""): string =>
  text === "" ? "" : `<pre${cls === "" ? "" : ` class="${cls}"`}>${escape(text)}</pre>`
