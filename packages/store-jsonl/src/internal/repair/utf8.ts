/**
 * Invalid UTF-8 in a session file's lines. A file is UTF-8 (spec §1); what is not decodes to
 * U+FFFD, so every reader sees the replacement, and whatever writes the rows again as text (a copy
 * to another store, a migration's rewrite) writes U+FFFD in their place: the original bytes stay
 * only in the file (and in the backups of a rewrite; `repair` copies lines as bytes). `fsck`
 * reports each such line with the byte offset of its first invalid sequence.
 */
import { isUtf8 } from "node:buffer"

/**
 * The index of the first byte of the first invalid sequence among `n` bytes (`at(i)` gives byte
 * `i`), as the WHATWG decoder reads UTF-8 (no overlong forms, no surrogates, nothing above
 * U+10FFFF, no truncated sequence), or -1 when every byte is valid.
 */
const firstInvalidOf = (n: number, at: (i: number) => number): number => {
  let i = 0
  while (i < n) {
    const b = at(i)
    if (b < 0x80) {
      i++
      continue
    }
    let need: number
    let lower = 0x80
    let upper = 0xbf
    if (b >= 0xc2 && b <= 0xdf) need = 1
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      if (b === 0xe0) lower = 0xa0
      else if (b === 0xed) upper = 0x9f
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      if (b === 0xf0) lower = 0x90
      else if (b === 0xf4) upper = 0x8f
    } else return i
    for (let k = 1; k <= need; k++) {
      const c = i + k < n ? at(i + k) : -1
      if (c < lower || c > upper) return i
      lower = 0x80
      upper = 0xbf
    }
    i += need + 1
  }
  return -1
}

/** {@link firstInvalidOf} of one array of bytes. */
export const firstInvalid = (bytes: Uint8Array): number => firstInvalidOf(bytes.length, (i) => bytes[i]!)

/**
 * The byte offset, within its line, of the first invalid sequence of a line given as the pieces of
 * the reads it spans, or -1. Valid pieces make a valid line; only a line with an invalid piece is
 * walked byte by byte (across its pieces, never copied: a line may be longer than any array).
 */
export const invalidAt = (pieces: ReadonlyArray<Uint8Array>): number => {
  if (pieces.every((p) => isUtf8(p))) return -1
  if (pieces.length === 1) return firstInvalid(pieces[0]!)
  const starts: Array<number> = []
  let total = 0
  for (const p of pieces) {
    starts.push(total)
    total += p.length
  }
  let piece = 0
  return firstInvalidOf(total, (i) => {
    while (i < starts[piece]!) piece--
    while (piece + 1 < pieces.length && i >= starts[piece + 1]!) piece++
    return pieces[piece]![i - starts[piece]!]!
  })
}
