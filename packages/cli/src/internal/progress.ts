/** A progress bar on stderr, only when stderr is a terminal. */

/** Reports `done / total`; a no-op unless stderr is a terminal. */
export const progressBar = (what: string) => {
  if (process.stderr.isTTY !== true) return { update: (_done: number, _total: number) => {}, end: () => {} }
  const width = 30
  return {
    update: (done: number, total: number) => {
      const filled = total === 0 ? width : Math.round((done / total) * width)
      process.stderr.write(`\r${what} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`)
    },
    end: () => process.stderr.write("\r\u001b[K")
  }
}
