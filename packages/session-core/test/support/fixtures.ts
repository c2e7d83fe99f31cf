/** A deterministic id minter for tests: 8 hex chars from a counter, skipping taken ids. */
export const counterMint = (seed = 0) => {
  let n = seed
  return (taken: ReadonlySet<string>): string => {
    for (;;) {
      const id = (0x10000000 + n++).toString(16).slice(-8)
      if (!taken.has(id)) return id
    }
  }
}
