/**
 * How wide human output may be: `$COLUMNS` when it is set to a positive number (the shell's own
 * override), else the terminal's width when stdout is one, else 80 (a pipe, a file).
 */

/** The default width when stdout is not a terminal. */
export const DEFAULT_WIDTH = 80

/** The width of stdout's lines, in columns (at least 20). */
export const columns = (): number => {
  const fromEnv = Number(process.env["COLUMNS"])
  const width = Number.isInteger(fromEnv) && fromEnv > 0
    ? fromEnv
    : process.stdout.isTTY && (process.stdout.columns ?? 0) > 0
    ? process.stdout.columns
    : DEFAULT_WIDTH
  return Math.max(20, width)
}

/** The room left for a text after `used` columns of a line (at least 10). */
export const remaining = (used: number): number => Math.max(10, columns() - used)

/** `text` (one line, no colour codes) cut to `width` columns, ending in `…` when cut. */
export const fit = (text: string, width: number): string =>
  text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text
