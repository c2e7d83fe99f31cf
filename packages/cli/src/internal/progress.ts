/** A progress bar on stderr, only when stderr is a terminal. */

/** Where a bar is drawn: a stream that may be a terminal. */
export interface BarStream {
  readonly isTTY?: boolean
  readonly write: (text: string) => unknown
}

/** The least time between two drawings of a bar (the last step is always drawn). */
export const REDRAW_MS = 50

/**
 * Reports `done / total`; a no-op unless the stream (default stderr) is a terminal. Drawn at most
 * every {@link REDRAW_MS} and at the last step: a listing of 10,000 sessions is not 10,000 writes
 * to the terminal.
 */
export const progressBar = (what: string, stream: BarStream = process.stderr, now: () => number = Date.now) => {
  if (stream.isTTY !== true) return { update: (_done: number, _total: number) => {}, end: () => {} }
  const width = 30
  let drawn = Number.NEGATIVE_INFINITY
  return {
    update: (done: number, total: number) => {
      const at = now()
      if (done < total && at - drawn < REDRAW_MS) return
      drawn = at
      const filled = total === 0 ? width : Math.round((done / total) * width)
      stream.write(`\r${what} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`)
    },
    end: () => void stream.write("\r\u001b[K")
  }
}
